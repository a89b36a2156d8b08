"""Values that depend on the catalogue alone, computed once per catalogue version.

The response cache (explorer/web/middleware.py) keeps whole answers per URL; a reader with a new URL
(another filter, another page) misses it and pays for the whole page. Much of a page does not
depend on its URL: the works of the home page, the cost-model plots at their defaults, the
OpenAPI schema, the facets of the unfiltered works list. Those are kept here under the catalogue's
version (`catalogue.version.catalogue_version`, moved by every catalogue write: signals, and
explicit bumps after bulk writes), so that an edit is seen by the next request, never a stale value.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache import cache

from catalogue.version import catalogue_version

CACHE_SECONDS = 60 * 60


def per_version[T](name: str, compute: Callable[[], T]) -> T:
    """`compute()` once per catalogue version and `name` (one indexed query to read the version;
    with CACHE_URL, shared by every worker)."""
    return cache.get_or_set(f"memo:{catalogue_version()}:{name}", compute, CACHE_SECONDS)
