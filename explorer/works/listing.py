"""The works list without a filter (the API's most asked page: /api/works/, ?page=N), read with
SQL compiled once instead of a queryset built, filtered and compiled for each request.

The SQL is the works filter's own for a request without parameters (WorkFilter with no data:
the default era, in reference order), compiled by the ORM once per process and database, so the
two paths cannot disagree on what is listed or in what order (tests/works/test_listing.py
compares them page by page). Building and compiling that queryset was a third of the list's time
(bench/README.md, issue 29).
"""

from __future__ import annotations

import functools

from django.db import connections
from django.db.models import BooleanField
from django.http import QueryDict

from catalogue.models import Work
from explorer.works.filters import WorkFilter


class DefaultListing:
    """The default list's rows as `values()` dicts, sliceable like a queryset (what a Paginator
    needs when it is told the count)."""

    def __init__(self, fields: list[str], using: str = "default") -> None:
        self.fields = fields
        self.using = using

    def __getitem__(self, page: slice) -> list[dict]:
        sql, params = _list_sql(tuple(self.fields), self.using, connections[self.using].vendor)
        limit = [page.stop - page.start, page.start]
        with connections[self.using].cursor() as cursor:
            cursor.execute(f"{sql} LIMIT %s OFFSET %s", [*params, *limit])
            rows = cursor.fetchall()
        flags = _boolean_fields(tuple(self.fields))
        documents = [dict(zip(self.fields, row, strict=True)) for row in rows]
        for document in documents:
            for name in flags:  # SQLite answers 0/1, as the ORM's converters know
                if document[name] is not None:
                    document[name] = bool(document[name])
        return documents


@functools.cache
def _list_sql(fields: tuple[str, ...], using: str, vendor: str) -> tuple[str, tuple]:
    """The works filter's SQL for no parameters, selecting `fields` (vendor: part of the key,
    the SQL differs by database)."""
    works = WorkFilter(QueryDict(), queryset=Work.objects.all())
    works.is_valid()
    return works.qs.values(*fields).query.sql_with_params()


@functools.cache
def _boolean_fields(fields: tuple[str, ...]) -> list[str]:
    return [name for name in fields if _is_boolean(name)]


def _is_boolean(name: str) -> bool:
    field = Work._meta.pk if name == "pk" else Work._meta.get_field(name)
    return isinstance(field, BooleanField)
