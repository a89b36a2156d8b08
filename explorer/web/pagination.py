from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import Count, Window
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination

from explorer.web.words import echoed

MAX_PAGE_NUMBER = 2**40  # page * page_size must fit an SQL OFFSET (beyond: the counted path)


def counted_paginator(object_list, per_page: int, count: int) -> Paginator:
    """A Paginator told its count by a query that already counted (no COUNT query of its own)."""
    paginator = Paginator(object_list, per_page)
    paginator.__dict__["count"] = count  # Paginator.count is a cached property
    return paginator


class WorkPagination(PageNumberPagination):
    """Page-number pagination whose `page_size` is validated, not silently clamped."""

    page_size = 50
    page_size_query_param = "page_size"

    @property
    def max_page_size(self) -> int:
        return settings.MAX_PAGE_SIZE

    def get_schema_operation_parameters(self, view) -> list[dict]:
        """page and page_size with the bounds get_page_size and the paginator enforce."""
        return [
            {
                "name": self.page_query_param,
                "in": "query",
                "required": False,
                "description": "Page number, from 1, or last (a page past the last answers "
                "404, a value that is no page number 400; empty means 1).",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_NUMBER},
                "allowEmptyValue": True,
            },
            {
                "name": self.page_size_query_param,
                "in": "query",
                "required": False,
                "description": f"Results per page, 1 to {self.max_page_size} ({self.page_size}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size},
            },
        ]

    def paginate_queryset(self, queryset, request, view=None):
        check_page_number(request.query_params.get(self.page_query_param, ""))
        return super().paginate_queryset(queryset, request, view)

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not raw.isdigit() or not 1 <= int(raw) <= self.max_page_size:
            raise ValidationError({"page_size": page_size_message(raw)})
        return int(raw)


def check_page_number(raw: str) -> None:
    """A 400 naming `page` for a value that is no page number (DRF answers it 404 "Invalid
    page.", as if a page were missing); a page past the last stays a 404."""
    if raw == "" or raw == "last" or (raw.isascii() and raw.isdigit() and int(raw) >= 1):
        return
    raise ValidationError({"page": [f"must be a whole number from 1, or last (got {echoed(raw)})"]})


def page_size_message(raw: str) -> str:
    """The one message for a bad ?page_size=, on the works page and in the API."""
    return f"must be a whole number between 1 and {settings.MAX_PAGE_SIZE} (got {raw!r})"


class CountInPagePagination(WorkPagination):
    """Counts the matches of a search in the page's own query (COUNT(*) OVER ()), for querysets
    of `values()` rows. Ranked by relevance, the page query visits every match anyway; counting
    there scans the table once instead of twice: at 100,000 works, 98 -> 67 ms in-process
    (bench/browse_bench.py). Same answers and errors as WorkPagination; a separate count runs
    when the page comes back empty, for ?page=last, and for lists that are not searches."""

    known_count: int | None = None  # set by a view that knows it (WorkViewSet, unfiltered)

    def django_paginator_class(self, object_list, per_page) -> Paginator:
        if self.known_count is None:
            return Paginator(object_list, per_page)
        return counted_paginator(object_list, per_page, self.known_count)

    def paginate_rows(self, rows, request, view=None):
        """A page of a sequence of rows that is not a queryset (sliceable; `known_count` set)."""
        return super().paginate_queryset(rows, request, view)

    def paginate_queryset(self, queryset, request, view=None):
        if "-relevance" not in queryset.query.order_by:
            # Not a search: the page stops early along the order's index, where a window would
            # visit every match (at 100,000 works, ?level=train: 63 -> 160 ms).
            return super().paginate_queryset(queryset, request, view)
        number = request.query_params.get(self.page_query_param, "1")
        page_size = self.get_page_size(request)
        if not number.isdigit() or not 1 <= int(number) <= MAX_PAGE_NUMBER // page_size:
            return super().paginate_queryset(queryset, request, view)  # "last", or an error
        self.request = request
        number = int(number)
        start = (number - 1) * page_size
        rows = list(queryset.annotate(matches=Window(Count("pk")))[start : start + page_size])
        total = rows[0]["matches"] if rows else queryset.count()
        paginator = counted_paginator(queryset, page_size, total)
        if not rows and number > 1:
            message = "That page contains no results"
            raise NotFound(self.invalid_page_message.format(page_number=number, message=message))
        for row in rows:
            del row["matches"]
        self.page = Page(rows, number, paginator)
        return rows
