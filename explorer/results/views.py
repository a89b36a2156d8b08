"""/results/: the measured results, the record charts and the planner's predictions beside them."""

from __future__ import annotations

from django.shortcuts import render

from explorer.web.errors import ApiError

from .charts import figures
from .documents import FIGURE_NAMES, SORT_KEYS, ResultsForm, answer


def results_page(request):
    try:
        document = answer(request.GET)
    except ApiError as error:
        context = {"errors": error.errors, "form": ResultsForm()}
        return render(request, "results/results.html", context, status=400)
    context = {
        "document": document,
        "form": ResultsForm(request.GET),
        "figures": figures(document["charts"]),
        "figure_names": FIGURE_NAMES,
        "sort_keys": SORT_KEYS,
    }
    return render(request, "results/results.html", context)
