"""Where a hub leads: the other features' pages, selected for the hub's node (by URL name)."""

from __future__ import annotations

from urllib.parse import urlencode

from explorer.web.links import link


def facet(node) -> str:
    """The works facet that selects a node's subtree: `level` for a root, else `category`."""
    return urlencode({"category" if node.parent_id else "level": node.code})


def hub_links(hub) -> dict[str, str]:
    query = facet(hub.node)
    snowball = urlencode({"seeds": ",".join(hub.seeds), "direction": "both", "rounds": 1})
    return {
        "works": link("works:work-list", query=query),
        "works_after": link("works:work-list", query=f"{query}&era=after"),
        "graph": link("graph:graph", query=query),
        "snowball": link("graph:snowball", query=snowball) if hub.seeds else "",
        "planner": link("planner:planner"),
        "techniques": link("costs:techniques"),
        "costs": link("costs:costs"),
        "api": link("hubs:api-hub", hub.node.code),
    }
