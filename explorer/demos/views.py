"""The demos' pages: the list grouped by level, and one demo with a form built from its schema.

All parameters live in the URL. `?run=1` runs the demo on the server (through the same
validated, sandboxed and cached path as the API), so a copied link reproduces the result even
without JavaScript; with JavaScript the page posts to the API and shows progress instead.
"""

from __future__ import annotations

from django.shortcuts import render

from catalogue.models import Technique, Work
from explorer.demos import DEMOS
from explorer.demos.base import LEVELS, schema
from explorer.demos.service import demo_or_404, run_or_error

LEVEL_TITLES = {
    "operators": "Concurrency in operators (§5)",
    "networks": "Concurrency in networks (§6)",
    "training": "Concurrency in training (§7)",
    "distributed": "Distributed training (§7)",
}


def demo_list(request):
    groups = [
        (LEVEL_TITLES[level], [schema(d) for d in DEMOS.values() if d.level == level])
        for level in LEVELS
    ]
    return render(request, "demos/demo_list.html", {"groups": groups})


def demo_detail(request, slug: str):
    demo = demo_or_404(slug)
    raw = {name: value for name, value in request.GET.items() if name != "run"}
    run, error, status = None, None, 200
    if request.GET.get("run") == "1":
        body, status, _headers = run_or_error(slug, raw)
        run, error = (body, None) if status == 200 else (None, body["error"])
    context = {
        "demo": schema(demo),
        "values": {p.name: raw.get(p.name, p.default) for p in demo.params},
        "run": run,
        "error": error,
        "techniques": Technique.objects.filter(slug__in=demo.techniques).order_by("order"),
        "works": Work.objects.filter(survey_ref__in=demo.works).order_by("survey_ref"),
    }
    return render(request, "demos/demo_detail.html", context, status=status)
