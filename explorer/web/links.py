"""Links to our own pages, always through their URL names (the paths live only in urls.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse


def link(name: str, *args: object, query: str = "") -> str:
    """The path of the URL named `name` (e.g. "costs:costs"), with `?query` when there is one."""
    if all(type(arg) in (str, int) for arg in args):
        path = _reversed(name, args, get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)
    else:
        path = reverse(name, args=args)
    return f"{path}?{query}" if query else path


@functools.lru_cache(maxsize=20_000)
def _reversed(name: str, args: tuple, script_prefix: str, urlconf: str) -> str:
    """reverse() kept for the process: the URLs do not change while it runs, and a planner
    document links ~100 works and techniques (a tenth of a changed plan's time)."""
    return reverse(name, args=args, urlconf=urlconf)


PLACEHOLDER = "0placeholder0"


def link_maker(request, name: str) -> Callable[[str], str]:
    """Absolute URLs of `name` for one argument, reversed once: for lists of hundreds of rows.
    The argument is put where the reversed path has a placeholder (a BibTeX key needs no
    escaping: letters, digits, _ . : -)."""
    template = request.build_absolute_uri(path_template(name, get_script_prefix()))
    before, _, after = template.partition(PLACEHOLDER)
    return lambda value: f"{before}{value}{after}"


@functools.cache
def path_template(name: str, script_prefix: str) -> str:
    """The path of `name` with PLACEHOLDER for its argument: reversed once per process (the
    URLs do not change while it runs; the script prefix is part of the key)."""
    return reverse(name, args=[PLACEHOLDER])
