"""The site's navigation: its pages in four groups, the same on every page (templates/base.html),
the current page marked.

A page joins the navigation by a line in NAV: (URL name, label, the URL names of the pages
reached through it; "results:" names every page of that namespace). A page "reached through" a
link (a work through Works, a hub through Sections, a page added under /results/) marks that
link's group as the current one, not the link itself: aria-current="page" is for the page the
link opens.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.urls import get_script_prefix, get_urlconf
from django.utils.safestring import SafeString

from catalogue.release.shelf import data_version
from explorer.web.links import link

register = template.Library()

# (group id, group label, [(URL name, link label, URL names of the pages below it)])
NAV: list[tuple[str, str, list[tuple[str, str, tuple[str, ...]]]]] = [
    (
        "survey",
        "The survey",
        [
            ("works:category-list", "Sections", ("hubs:",)),
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
            ("demos:demo-list", "Demos", ("demos:",)),
            ("planner:planner", "Planner", ("planner:derivations",)),
            ("devices:devices", "Devices", ()),
        ],
    ),
    (
        "evidence",
        "Evidence",
        [
            ("results:results", "Results from papers", ("results:",)),
            (
                "mlperf:mlperf",
                "MLPerf Training",
                ("mlperf:",),
            ),
            ("planner:accuracy", "Planner accuracy", ()),
            ("works:sources", "Sources", ()),
            ("graph:data-quality", "Data quality", ()),
        ],
    ),
    (
        "tools",
        "API and curators",
        [
            ("api-docs", "API", ()),
            ("releases:data", "Data releases", ()),
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
        items = [NavLink(link(name), text, name == view_name) for name, text, _ in links]
        below = any(view_name == name or _under(view_name, pages) for name, _, pages in links)
        groups.append(NavGroup(slug, label, items, below))
    return groups


def _under(view_name: str, pages: tuple[str, ...]) -> bool:
    return any(
        view_name.startswith(page) if page.endswith(":") else view_name == page for page in pages
    )


@register.simple_tag(takes_context=True)
def site_nav(context) -> SafeString:
    """The navigation as HTML, written once per page kind: it depends on nothing else, and
    rendering it on every request cost about 0.7 ms, as much as some whole pages."""
    match = getattr(context.get("request"), "resolver_match", None)
    urlconf = get_urlconf() or settings.ROOT_URLCONF  # tests may change it
    return nav_html(match.view_name if match else "", get_script_prefix(), urlconf)


@functools.lru_cache(maxsize=256)  # page kinds (URL names), not URLs: a bounded number
def nav_html(view_name: str, prefix: str, urlconf: str) -> SafeString:
    return render_to_string("_site_nav.html", {"groups": nav_groups(view_name)})


@register.simple_tag
def data_version_label() -> str:
    """The data version the page is served from (the footer): no query, two cache reads."""
    return data_version()
