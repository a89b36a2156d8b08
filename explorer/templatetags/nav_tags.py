"""The site's navigation: its pages in four groups, the same on every page (templates/base.html),
the current page marked.

A page joins the navigation by a line in NAV: (URL name, label, the URL names of the pages
reached through it). A page "reached through" a link (a work through Works, a hub through
Sections) marks that link's group as the current one, not the link itself: aria-current="page"
is for the page the link opens.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import template

from explorer.templatetags.cached_url import reverse_cached

register = template.Library()

# (group id, group label, [(URL name, link label, URL names of the pages below it)])
NAV: list[tuple[str, str, list[tuple[str, str, tuple[str, ...]]]]] = [
    (
        "survey",
        "The survey",
        [
            ("works:category-list", "Sections", ("hubs:hub",)),
            ("works:work-list", "Works", ("works:work-detail", "works:author-detail")),
            ("graph:graph", "Citation graph", ()),
            ("graph:snowball", "Snowballing", ()),
            ("works:numbers", "Numbers & timeline", ()),
        ],
    ),
    (
        "techniques",
        "Techniques and models",
        [
            ("costs:techniques", "Techniques", ()),
            ("costs:costs", "Cost models", ()),
            ("demos:demo-list", "Demos", ("demos:demo-detail", "demos:demo-run")),
            ("planner:planner", "Planner", ("planner:derivations",)),
        ],
    ),
    (
        "evidence",
        "Evidence",
        [
            ("results:results", "Results", ()),
            ("works:sources", "Sources", ()),
            ("graph:data-quality", "Data quality", ()),
        ],
    ),
    (
        "tools",
        "API and curators",
        [
            ("api-docs", "API", ()),
            ("admin:index", "Curators", ()),
        ],
    ),
]


@dataclass(frozen=True)
class NavLink:
    url: str
    label: str
    current: bool


@dataclass(frozen=True)
class NavGroup:
    slug: str
    label: str
    links: list[NavLink]
    current: bool  # the current page is one of its links or below one


def nav_groups(view_name: str) -> list[NavGroup]:
    """The navigation as seen from the page `view_name` ("works:work-list"; "" if unknown)."""
    groups = []
    for slug, label, links in NAV:
        items = [NavLink(reverse_cached(name), text, name == view_name) for name, text, _ in links]
        below = any(view_name == name or view_name in under for name, _, under in links)
        groups.append(NavGroup(slug, label, items, below))
    return groups


@register.inclusion_tag("_site_nav.html", takes_context=True)
def site_nav(context) -> dict:
    match = getattr(context.get("request"), "resolver_match", None)
    return {"groups": nav_groups(match.view_name if match else "")}
