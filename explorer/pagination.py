from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination

MAX_PAGE_SIZE = 500


class WorkPagination(PageNumberPagination):
    """Page-number pagination whose `page_size` is validated, not silently clamped."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE_SIZE:
            raise ValidationError(
                {"page_size": f"must be a whole number between 1 and {MAX_PAGE_SIZE} (got {raw!r})"}
            )
        return int(raw)
