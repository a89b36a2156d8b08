"""The demos' pages: the list grouped by level, one demo with its form and recent runs, and the
permalink of one run.

All parameters live in the URL of the demo page (a copied link fills the form the same way), but
a GET never runs anything: "Run" is a POST (CSRF-protected, throttled and capped like the API)
that queues a run and redirects to its permalink, `/demos/<slug>/runs/<id>/`. That page shows
the queue position or the progress (htmx polls it; without JavaScript a refresh does), then the
charts and tables.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from catalogue.models import Technique, Work
from explorer.demos import DEMOS
from explorer.demos.base import LEVELS, Demo, ParamError, schema, validate_params
from explorer.demos.models import DemoRun
from explorer.demos.service import (
    demo_or_404,
    fresh_run,
    queue_position,
    start_run,
    throttle_or_refuse,
)
from explorer.web.errors import ApiError

LEVEL_TITLES = {
    "operators": "Concurrency in operators (§5)",
    "networks": "Concurrency in networks (§6)",
    "training": "Concurrency in training (§7)",
    "distributed": "Distributed training (§7)",
}
RECENT_RUNS = 10
FORM_FIELDS_IGNORED = {"run", "csrfmiddlewaretoken"}  # `run=1` of links from before the queue


def demo_list(request):
    groups = [
        (LEVEL_TITLES[level], [schema(d) for d in DEMOS.values() if d.level == level])
        for level in LEVELS
    ]
    return render(request, "demos/demo_list.html", {"groups": groups})


def demo_detail(request, slug: str):
    demo = demo_or_404(slug)
    raw = form_values(request.GET)
    try:
        params = validate_params(demo, raw)
    except ParamError as error:
        return detail_page(request, demo, raw, error=str(error), status=400)
    existing = DemoRun.objects.reusable(demo.slug, demo.version, params)
    return detail_page(request, demo, raw, existing=existing)


@require_POST
def start_demo_run(request, slug: str):
    demo = demo_or_404(slug)
    raw = form_values(request.POST)
    try:
        throttle_or_refuse(request)
        run, _created = start_run(request, slug, raw)
    except ApiError as refused:
        error = "; ".join(refused.messages())
        response = detail_page(request, demo, raw, error=error, status=refused.status)
        for name, value in refused.headers.items():
            response[name] = value
        return response
    response = redirect(run)
    response.status_code = 303  # POST, then GET the run's page
    return response


def demo_run(request, slug: str, pk: int):
    demo = demo_or_404(slug)
    run = fresh_run(pk)
    if run.slug != slug:
        raise Http404("This run belongs to another demo.")
    if request.headers.get("HX-Request") and not run.is_active:
        # The polled status just finished: reload the whole page, which draws the result.
        return HttpResponse(headers={"HX-Refresh": "true"})
    context = {
        "demo": schema(demo),
        "run": run,
        "position": queue_position(run),
        "shown": run_for_script(run),
        "change_query": urlencode(run.sorted_params),
    }
    template = "demos/_run_status.html" if request.headers.get("HX-Request") else "demos/run.html"
    return render(request, template, context)


def form_values(data) -> dict[str, str]:
    return {name: value for name, value in data.items() if name not in FORM_FIELDS_IGNORED}


def detail_page(
    request, demo: Demo, raw: dict, *, error: str | None = None, status: int = 200, existing=None
) -> HttpResponse:
    context = {
        "demo": schema(demo),
        "values": {p.name: raw.get(p.name, p.default) for p in demo.params},
        "error": error,
        "existing": existing,
        "recent": DemoRun.objects.recent(demo.slug, RECENT_RUNS),
        "techniques": Technique.objects.filter(slug__in=demo.techniques)
        .select_related("category")
        .order_by("order"),
        "works": Work.objects.filter(survey_ref__in=demo.works).order_by("survey_ref"),
    }
    return render(request, "demos/demo_detail.html", context, status=status)


def run_for_script(run: DemoRun) -> dict | None:
    """What demo.js draws: the result with its version and duration, once there is one."""
    if run.status != DemoRun.SUCCEEDED:
        return None
    return {
        "version": run.version,
        "elapsed_s": run.elapsed_s,
        "cached": False,
        "result": run.result,
    }
