"""/api/results/: the measured results, their sources and the planner's predictions (the JSON
twin of /results/), and /api/results/csv/: the same rows as CSV.

Anonymous read only. A bad, unknown or repeated parameter is a 400 in the shared error shape,
keyed by parameter; never a 500 for a query string.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer, csv_response
from explorer.web.schema import document

from .documents import CSV_COLUMNS, ResultsForm, answer, csv_rows

RESULTS = document(
    "Results",
    {
        "count": "int",
        "total": "int",
        "results": "list",
        "summary": "list",
        "worst_predicted": "list",
        "charts": "obj",
        "about": "str",
        "page_url": "str",
        "api_url": "str",
        "csv_url": "str",
    },
)


class ReadOnlyView(DeclaredQuery, APIView):
    query_form = ResultsForm
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]


def _document(request) -> dict:
    return answer(request.GET)  # ApiError: a 400 keyed by parameter


class ResultsView(ReadOnlyView):
    @extend_schema(
        summary="Measured results from the literature, with their sources and predictions",
        description=(
            "Each result: its work, configuration, figures (each read on a page with its URL "
            "and that page's `source_kind`: first-hand, index or secondary; derived with its "
            "derivation; or recalled), where in the paper, and the planner's "
            "prediction (ratio predicted / measured) or why the planner cannot express it; "
            "`summary` per strategy family; `charts` the record charts' points."
        ),
        responses={200: RESULTS, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        return Response(_document(request))


class ResultsCsvView(ReadOnlyView):
    @extend_schema(
        summary="The measured results as CSV (the same filters)",
        responses={(200, "text/csv"): OpenApiTypes.STR, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        return csv_response(csv_rows(_document(request)), CSV_COLUMNS, "results.csv")
