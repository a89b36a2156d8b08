"""/api/results/: the measured results, their sources and the planner's predictions (the JSON
twin of /results/), and /api/results/csv/: the same rows as CSV.

Anonymous read only. A bad, unknown or repeated parameter is a 400 in the shared error shape,
keyed by parameter; never a 500 for a query string.
"""

from __future__ import annotations

import csv
import io

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.models import StrategyFamily
from explorer.web.renderers import FastJSONRenderer

from .documents import CSV_COLUMNS, SORT_KEYS, ResultsError, answer, csv_rows

PARAMETERS = [
    OpenApiParameter("technique", str, description="a technique's slug (its results only)"),
    OpenApiParameter("network", str, description="a network, e.g. resnet-50"),
    OpenApiParameter("family", str, enum=list(StrategyFamily.values)),
    OpenApiParameter("status", str, enum=["read", "recalled"]),
    OpenApiParameter("year_min", {"type": "integer", "minimum": 1900, "maximum": 2100}),
    OpenApiParameter("year_max", {"type": "integer", "minimum": 1900, "maximum": 2100}),
    OpenApiParameter("devices_min", {"type": "integer", "minimum": 1, "maximum": 10**7}),
    OpenApiParameter("devices_max", {"type": "integer", "minimum": 1, "maximum": 10**7}),
    OpenApiParameter(
        "ordering",
        str,
        enum=[*SORT_KEYS, *(f"-{k}" for k in SORT_KEYS)],
        description="a figure (or year, devices, ratio); '-' first for descending",
    ),
]


class ReadOnlyView(APIView):
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]


def _document(request) -> dict:
    try:
        return answer(request.GET)
    except ResultsError as error:
        raise ValidationError(error.errors) from None


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
        parameters=PARAMETERS,
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        return Response(_document(request))


class ResultsCsvView(ReadOnlyView):
    @extend_schema(
        summary="The measured results as CSV (the same filters)",
        parameters=PARAMETERS,
        responses={(200, "text/csv"): OpenApiTypes.STR, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(csv_rows(_document(request)))
        response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="results.csv"'
        return response
