"""Links to our own pages, always through their URL names (the paths live only in urls.py)."""

from __future__ import annotations

from collections.abc import Callable

from django.urls import reverse


def link(name: str, *args: object, query: str = "") -> str:
    """The path of the URL named `name` (e.g. "costs:costs"), with `?query` when there is one."""
    path = reverse(name, args=args)
    return f"{path}?{query}" if query else path


def link_maker(request, name: str) -> Callable[[str], str]:
    """Absolute URLs of `name` for one argument, reversed once: for lists of hundreds of rows.
    The argument is put where the reversed path has a placeholder (a BibTeX key needs no
    escaping: letters, digits, _ . : -)."""
    placeholder = "0placeholder0"
    template = request.build_absolute_uri(reverse(name, args=[placeholder]))
    before, _, after = template.partition(placeholder)
    return lambda value: f"{before}{value}{after}"
