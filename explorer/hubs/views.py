"""The hub page: one taxonomy node with everything the catalogue holds on it."""

from __future__ import annotations

from django.shortcuts import render

from explorer.hubs.hub import load_hub, status_label
from explorer.hubs.links import hub_links
from explorer.hubs.wd_plot import wd_svg
from explorer.middleware import cached_for_anonymous


@cached_for_anonymous
def hub(request, slug: str):
    found = load_hub(slug)
    neighbours = [
        (found.neighbour_works[work_id], cites, cited_by)
        for work_id, cites, cited_by in found.citations.neighbours
    ]
    context = {
        "hub": found,
        "node": found.node,
        "status_label": status_label(found.node),
        "links": hub_links(found),
        "wd_svg": wd_svg(found.points),
        "neighbours": neighbours,
    }
    return render(request, "hubs/hub.html", context)
