"""Links to our own pages, always through their URL names (the paths live only in urls.py), each
reversed once for the process: `link` here ({% url %} too, explorer/templatetags/cached_url.py),
and for lists of hundreds of rows catalogue/paths.py's templates (`link_maker`)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

from catalogue.paths import path_parts

SIMPLE = (str, int)  # arguments whose reversed path can be kept


def link(name: str, *args: object, query: str = "") -> str:
    """The path of the URL named `name` (e.g. "costs:costs"), with `?query` when there is one."""
    if all(type(arg) in SIMPLE for arg in args):
        urlconf = get_urlconf() or settings.ROOT_URLCONF
        path = cached_reverse(name, args, (), None, get_script_prefix(), urlconf)
    else:
        path = reverse(name, args=args)
    return f"{path}?{query}" if query else path


@functools.lru_cache(maxsize=20_000)
def cached_reverse(
    name: str, args: tuple, kwargs: tuple, current_app: str | None, prefix: str, urlconf: str
) -> str:
    """reverse() kept for the process: the URLs do not change while it runs, and pages link a
    lot (a planner document ~100 works and techniques, /techniques/ ~140 links, every page 17
    in its menu; reverse() costs ~20 microseconds)."""
    return reverse(name, urlconf=urlconf, args=args, kwargs=dict(kwargs), current_app=current_app)


def link_maker(request, name: str) -> Callable[[str], str]:
    """Absolute URLs of `name` for one argument, reversed once: for lists of hundreds of rows."""
    before, after = path_parts(name)
    before = request.build_absolute_uri(before)
    return lambda value: f"{before}{value}{after}"
