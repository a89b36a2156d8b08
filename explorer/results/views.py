"""/results/: the measured results, the record charts and the planner's predictions beside them."""

from __future__ import annotations

from django.shortcuts import render

from explorer.planner.public import short_accuracy
from explorer.web.errors import ApiError
from explorer.web.forms import given_fields
from explorer.web.links import link

from .charts import figures
from .documents import FIGURE_NAMES, SORT_KEYS, ResultsForm, answer

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
