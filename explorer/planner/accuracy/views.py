"""/planner/accuracy/: how well the planner predicts measured runs it was not fitted on. The
errors per benchmark and strategy family, the efficiency model with its fitted values, the
chart of predicted against measured throughput (each point a held-out run, a link to its
score's page), where the model is systematically off, and what it covers. Its JSON twin is
/api/planner/accuracy/ (api.py); both show accuracy.py's document."""

from __future__ import annotations

from django.shortcuts import render

from explorer.web.forms import NoParameters
from explorer.web.middleware import cached_for_anonymous

from ..shown import number
from . import report as accuracy

WORST_SHOWN = 8  # the held-out runs listed under the chart, the worst first


@cached_for_anonymous
def accuracy_page(request):
    if errors := NoParameters(request.GET).parameter_errors():
        return render(request, "planner/accuracy.html", {"errors": errors}, status=400)
    document = accuracy.document()
    held_out = [p for p in document["predictions"] if p["held_out"]]
    names = accuracy.device_names()
    worst = [
        p
        | {
            "device_name": names.get(p["device"], p["device"]),
            "shown_measured": number(p["measured_throughput"]),
            "shown_predicted": number(p["predicted_throughput"]),
        }
        for p in sorted(held_out, key=lambda p: -abs(p["ratio"] - 1))[:WORST_SHOWN]
    ]
    context = {
        "document": document,
        "summary": document["summary"],
        "errors_table": accuracy.error_rows(document),
        "coverage": accuracy.coverage_rows(document),
        "efficiency_fitted": accuracy.efficiency_rows(document, "fit split"),
        "efficiency_all": accuracy.efficiency_rows(document, "all"),
        "worst": worst,
        "published": accuracy.published_rows(document),
        "targets": {"median": "20 %", "p90": "50 %"},
    }
    return render(request, "planner/accuracy.html", context)
