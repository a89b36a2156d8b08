"""/results/: the measured results, the record charts and the planner's predictions beside them."""

from __future__ import annotations

from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from catalogue.version import per_version
from explorer.planner.public import short_accuracy
from explorer.web.errors import ApiError
from explorer.web.forms import given_fields
from explorer.web.links import link

from .charts import figures
from .documents import FIGURE_NAMES, SORT_KEYS, ResultsForm, all_rows, answer

# The filters of the papers' results that MLPerf's list (/results/mlperf/) takes too: its link
# carries them on (tests/results/test_pages.py pins them against MLPerf's form).
MLPERF_FILTERS = ("technique", "network", "devices_min", "devices_max")


def results_page(request):
    query = given_fields(request.GET, ResultsForm)
    try:
        document = answer(query)
    except ApiError as error:
        context = {"errors": error.errors, "form": ResultsForm()}
        return render(request, "results/results.html", context, status=400)
    context = {
        "document": document,
        "result_rows": result_rows_html(document["results"]),
        "form": ResultsForm(query),
        "figures": figures(document["charts"]),
        "figure_names": FIGURE_NAMES,
        "sort_keys": SORT_KEYS,
        "mlperf_url": link("mlperf:mlperf", query=_shared_filters(query)),
        "accuracy": short_accuracy(),
    }
    return render(request, "results/results.html", context)


def _shared_filters(query) -> str:
    """The papers' results' filters that MLPerf's list takes too, as its query string."""
    shared = query.copy()
    for name in list(shared):
        if name not in MLPERF_FILTERS:
            del shared[name]
    return shared.urlencode()


def result_rows_html(rows: list[dict]) -> SafeString:
    """The table's rows, in the order and selection of the query. A row depends on its result
    alone: each is rendered once per catalogue version (43 rows of some 60 template nodes each
    were most of the page's time), and a query picks and orders them."""

    def render_rows() -> dict[str, str]:
        return {
            row["id"]: render_to_string("results/_result_row.html", {"row": row}).strip()
            for row in all_rows()
        }

    kept = per_version("results-row-html", render_rows, in_process=True)
    # The whitespace of the template's loop, as it was: the page stays the same to the byte.
    html = "".join(f"\n    {kept[row['id']]}\n    " for row in rows)
    return mark_safe(html)  # noqa: S308 - rendered (escaped) by the template
