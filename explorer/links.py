"""Links to our own pages, always through their URL names (the paths live only in urls.py)."""

from __future__ import annotations

from django.urls import reverse


def link(name: str, *args: object, query: str = "") -> str:
    """The path of the URL named `name` (e.g. "costs:costs"), with `?query` when there is one."""
    path = reverse(name, args=args)
    return f"{path}?{query}" if query else path
