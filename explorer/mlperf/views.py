"""MLPerf Training's pages: the scores with their filters and charts (/results/mlperf/), a system
and one of its scores; their JSON twins are api.py's."""

from __future__ import annotations

from django.shortcuts import render

from explorer.planner.public import short_accuracy
from explorer.web.errors import ApiError
from explorer.web.forms import given_fields
from explorer.web.links import link

from . import charts, documents, system


def mlperf_page(request):
    query = given_fields(request.GET, documents.MlperfForm)
    try:
        document = documents.answer(query)
    except ApiError as error:
        context = {"errors": error.errors, "form": documents.MlperfForm()}
        return render(request, "mlperf/scores.html", context, status=400)
    context = {
        "document": document,
        "form": documents.MlperfForm(query),
        "figures": charts.figure_texts(document["charts"]["benchmark"]),
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
    return link("mlperf:mlperf", query=changed.urlencode())


def _refuse_parameters(request):
    if request.GET:
        errors = {name: ["this page takes no parameter"] for name in request.GET}
        return render(request, "mlperf/scores.html", {"errors": errors}, status=400)
    return None


def mlperf_system_page(request, pk: int):
    if refused := _refuse_parameters(request):
        return refused
    context = system.system_document(pk)
    return render(request, "mlperf/system.html", context)


def mlperf_score_page(request, pk: int, benchmark: str):
    if refused := _refuse_parameters(request):
        return refused
    context = system.score_document(pk, benchmark)
    return render(request, "mlperf/score.html", context)
