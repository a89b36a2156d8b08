"""/results/: the measured results, the record charts and the planner's predictions beside them."""

from __future__ import annotations

from django.http import QueryDict
from django.shortcuts import render

from explorer.mlperf import charts as mlperf_charts
from explorer.mlperf import documents as mlperf
from explorer.mlperf import system as mlperf_system
from explorer.planner.public import short_accuracy
from explorer.web.errors import ApiError
from explorer.web.forms import QueryForm
from explorer.web.links import link

from .charts import figures
from .documents import FIGURE_NAMES, SORT_KEYS, ResultsForm, answer


def given_fields(query: QueryDict, form_class: type[QueryForm]) -> QueryDict:
    """The query without the blank fields a browser's form sends (an empty value is the parameter
    left out: explorer/web/forms.py), so that the page's links do not carry them on; a name the
    form does not declare stays, to be refused."""
    given = QueryDict(mutable=True)
    for name, values in query.lists():
        kept = [value for value in values if value.strip()]
        if kept or name not in form_class.base_fields:
            given.setlist(name, kept or values)
    return given


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
        "mlperf_url": link("results:mlperf", query=_shared_filters(query)),
        "accuracy": short_accuracy(),
    }
    return render(request, "results/results.html", context)


def _shared_filters(query) -> str:
    """The papers' results' filters that MLPerf's list takes too, as its query string."""
    shared = query.copy()
    for name in list(shared):
        if name not in mlperf.MlperfForm.base_fields or name == "ordering":
            del shared[name]
    return shared.urlencode()


def mlperf_page(request):
    query = given_fields(request.GET, mlperf.MlperfForm)
    try:
        document = mlperf.answer(query)
    except ApiError as error:
        context = {"errors": error.errors, "form": mlperf.MlperfForm()}
        return render(request, "mlperf/scores.html", context, status=400)
    context = {
        "document": document,
        "form": mlperf.MlperfForm(query),
        "figures": mlperf_charts.figure_texts(document["charts"]["benchmark"]),
        "previous_url": _page_link(query, document["page"] - 1, document["pages"]),
        "next_url": _page_link(query, document["page"] + 1, document["pages"]),
        "accuracy": short_accuracy(),
    }
    return render(request, "mlperf/scores.html", context)


def _page_link(query, page: int, pages: int) -> str:
    if not 1 <= page <= pages:
        return ""
    changed = query.copy()
    changed["page"] = str(page)
    return link("results:mlperf", query=changed.urlencode())


def _refuse_parameters(request):
    if request.GET:
        errors = {name: ["this page takes no parameter"] for name in request.GET}
        return render(request, "mlperf/scores.html", {"errors": errors}, status=400)
    return None


def mlperf_system_page(request, pk: int):
    if refused := _refuse_parameters(request):
        return refused
    context = mlperf_system.system_document(pk)
    return render(request, "mlperf/system.html", context)


def mlperf_score_page(request, pk: int, benchmark: str):
    if refused := _refuse_parameters(request):
        return refused
    context = mlperf_system.score_document(pk, benchmark)
    return render(request, "mlperf/score.html", context)
