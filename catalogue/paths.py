"""The paths of pages that lists link by the hundred (a work, a hub), around their one argument:
reversed once per URL name, script prefix and URLconf for the process (the URLs do not change
while it runs), the argument put where a placeholder was. A key or a code needs no escaping
(letters, digits, _ . : -). Every other link goes through explorer/web/links.py's `link`."""

from __future__ import annotations

import functools

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

PLACEHOLDER = "0placeholder0"


def path_parts(name: str) -> tuple[str, str]:
    """(before, after) the argument in the path of the URL named `name`."""
    return _parts(name, get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)


def path_with(name: str, argument: str) -> str:
    before, after = path_parts(name)
    return f"{before}{argument}{after}"


@functools.lru_cache(maxsize=64)
def _parts(name: str, script_prefix: str, urlconf: str) -> tuple[str, str]:
    before, _, after = reverse(name, args=[PLACEHOLDER], urlconf=urlconf).partition(PLACEHOLDER)
    return before, after
