"""The hub page: one taxonomy node with everything the catalogue holds on it."""

from __future__ import annotations

from django.shortcuts import render
from django.template.loader import render_to_string

from catalogue.version import per_version
from explorer.hubs.curves import CostPlot, curves_svg
from explorer.hubs.hub import load_hub, status_label
from explorer.hubs.links import hub_links
from explorer.hubs.wd_plot import wd_svg
from explorer.web.middleware import cached_for_anonymous
from explorer.works.selection import linked_for


@cached_for_anonymous
def hub(request, slug: str):
    return render(request, "hubs/hub.html", per_version(f"hub:{slug}", lambda: hub_page(slug)))


def hub_page(slug: str) -> dict[str, str]:
    """The hub's title and content as HTML, once per catalogue version: the content depends on
    nothing of the request, and keeping its context instead meant unpickling some 2,000 model
    instances and rendering 2,500 template nodes on every request (/categories/net/: 50 ms)."""
    context = hub_context(slug)
    node = context["node"]
    return {
        "title": f"§{node.section} {node.name}" if node.section else node.name,
        "body": render_to_string("hubs/_hub_body.html", context),
    }


def hub_context(slug: str) -> dict:
    """A hub depends on its node and the catalogue alone: built once per catalogue version."""
    found = load_hub(slug)  # an unknown slug: Http404, and nothing kept
    names = {technique.slug: technique.name for technique in found.techniques}
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
        "cost_plots": [_shown_plot(plot, names) for plot in found.plots],
        "neighbours": neighbours,
        "timeline": section_timeline(found.node),
    }


def section_timeline(node) -> dict:
    """The works page's timeline of the section's works, both eras; each bar a link to them
    on /works/ in that year."""
    facet = "category" if node.parent_id else "level"
    return linked_for([(facet, node.code), ("era", "all")])


def _shown_plot(plot: CostPlot, names: dict[str, str]) -> dict:
    """A cost plot as the page shows it: the SVG and its numbers as text, 3 significant digits."""
    return {
        "plot": plot,
        "technique": names.get(plot.technique, plot.technique),
        "svg": curves_svg(plot),
        "xs": [f"{x:.3g}" for x in plot.xs],
        "rows": [
            {
                "label": curve.label,
                "trusted": curve.trusted,
                "index": index % 6,
                "values": [f"{v:.3g}" for v in curve.values],
            }
            for index, curve in enumerate(plot.curves)
        ],
    }
