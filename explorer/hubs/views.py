"""The hub page: one taxonomy node with everything the catalogue holds on it."""

from __future__ import annotations

from django.shortcuts import render

from explorer.hubs.hub import load_hub, status_label
from explorer.hubs.links import hub_links
from explorer.hubs.wd_plot import wd_svg
from explorer.web.memo import per_version
from explorer.web.middleware import cached_for_anonymous


@cached_for_anonymous
def hub(request, slug: str):
    return render(request, "hubs/hub.html", per_version(f"hub:{slug}", lambda: hub_context(slug)))


def hub_context(slug: str) -> dict:
    """A hub depends on its node and the catalogue alone: built once per catalogue version."""
    found = load_hub(slug)  # an unknown slug: Http404, and nothing kept
    neighbours = [
        (found.neighbour_works[work_id], cites, cited_by)
        for work_id, cites, cited_by in found.citations.neighbours
    ]
    return {
        "hub": found,
        "node": found.node,
        "status_label": status_label(found.node),
        "links": hub_links(found),
        "wd_svg": wd_svg(found.points),
        "neighbours": neighbours,
    }
