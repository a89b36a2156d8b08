"""The catalogue's version, and the one memo of values derived from the catalogue alone.

The version is one string that changes whenever the catalogue may have, keying every cache of
what is derived from it (the citation graph, `per_version`'s memos, the response cache). Signals
on works, categories, assignments, citations, cost models... replace the generation
(catalogue/apps.py); bulk writes call `bump_generation` themselves.

`per_version`: the response cache (explorer/web/middleware.py) keeps whole answers per URL; a
reader with a new URL (another filter, another page) misses it and pays for the whole page. Much
of a page does not depend on its URL: the works of the home page, the cost-model plots at their
defaults, the OpenAPI schema, the facets of the unfiltered works list, the graph's measures.
Those are kept under the version, so that an edit is seen by the next request, never a stale
value.
"""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Callable

GENERATION_KEY = "citation-graph:generation"


# A read-only request reads the catalogue's version once (explorer/web/middleware.py opens a
# scope for each GET and HEAD): a page asks for it up to four times (the response cache's key,
# the memos of its parts), and on PostgreSQL each read was a round trip.
REQUEST_SCOPE: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "catalogue_version_scope", default=None
)


def catalogue_version() -> str:
    """Changes when the graph may have: the generation (a random token replaced by signals on
    works, categories, assignments and citations) and the newest citation's id (for bulk
    inserts, which send no signals). One indexed query, once per read-only request."""
    scope = REQUEST_SCOPE.get()
    if scope is None:
        return read_version()
    if "version" not in scope:
        scope["version"] = read_version()
    return scope["version"]


def read_version() -> str:
    from django.core.cache import cache
    from django.db import connections, router

    from catalogue.models import Citation

    generation = cache.get(GENERATION_KEY)
    if generation is None:
        # Evicted or never set: a new token, never an old one (a counter restarting at 0 could
        # bring back the version of a graph that has changed since).
        cache.add(GENERATION_KEY, new_generation(), timeout=None)
        generation = cache.get(GENERATION_KEY) or new_generation()  # (a cache keeping nothing)
    # MAX(pk) reads one end of the primary-key index; a COUNT would scan every edge on each
    # request (300 ms at a million edges, measured). Deletes send signals, so they bump the
    # generation; bulk inserts raise the maximum.
    # Plain SQL: every page reads the version, and building the ORM's aggregate cost more than
    # running it.
    table = Citation._meta.db_table
    with connections[router.db_for_read(Citation)].cursor() as cursor:
        cursor.execute(f"SELECT MAX(id) FROM {table}")
        (last,) = cursor.fetchone()
    return f"{generation}.{last or 0}"


def new_generation() -> str:
    return uuid.uuid4().hex[:16]


def bump_generation(**kwargs) -> None:
    """Signal receiver: a work, a category, an assignment or a citation changed."""
    from django.core.cache import cache

    cache.set(GENERATION_KEY, new_generation(), timeout=None)


MEMO_SECONDS = 60 * 60


# This process's copy of the latest value of each memo kept in process as well: unpickling a
# large value from the shared cache on every request (MLPerf's 2,199 score rows) cost 100 ms
# (bench/mlperf_bench.py). Read-only once built; one entry per name.
_LATEST: dict[str, tuple[str, object]] = {}


def per_version[T](
    name: str, compute: Callable[[], T], version: str | None = None, in_process: bool = False
) -> T:
    """`compute()` once per catalogue version and `name` (one indexed query to read the version
    unless the caller has it; with CACHE_URL, shared by every worker). `in_process` keeps this
    process's copy of the latest value in front of the shared cache, for large values."""
    from django.core.cache import cache

    version = version or catalogue_version()
    kept = _LATEST.get(name) if in_process else None
    if kept is not None and kept[0] == version:
        return kept[1]  # type: ignore[return-value]
    value = cache.get_or_set(f"memo:{version}:{name}", compute, MEMO_SECONDS)
    if in_process:
        _LATEST[name] = (version, value)
    return value
