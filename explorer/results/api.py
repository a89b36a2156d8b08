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

from . import mlperf, mlperf_system
from .documents import CSV_COLUMNS, SORT_KEYS, ResultsError, answer, csv_rows

PARAMETERS = [
    # A slug's pattern and the form's lengths, so that a value the schema allows is one the form
    # reads (an unknown slug is still a 400: the catalogue's slugs are not in a static schema).
    OpenApiParameter(
        "technique",
        {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$", "maxLength": 80},
        description="a technique's slug (its results only)",
    ),
    OpenApiParameter(
        "network",
        {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\x00]*\\S[^\\x00]*$"},
        description="a network, e.g. resnet-50",
    ),
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


def _document(request, answering=answer) -> dict:
    try:
        return answering(request.GET)
    except ResultsError as error:
        raise ValidationError(error.errors) from None


def csv_response(rows: list[dict], columns: list[str], filename: str) -> HttpResponse:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class ResultsView(ReadOnlyView):
    @extend_schema(
        summary="Measured results from the literature, with their sources and predictions",
        description=(
            "Each result: its work, configuration, figures (each read on a page with its URL, "
            "derived with its derivation, or recalled), where in the paper, and the planner's "
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
        return csv_response(csv_rows(_document(request)), CSV_COLUMNS, "results.csv")


SLUG_PATTERN = {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"}
MLPERF_PARAMETERS = [
    PARAMETERS[0],
    PARAMETERS[1],
    OpenApiParameter(
        "round",
        {"type": "string", "pattern": "^[-a-zA-Z0-9_.]+$", "maxLength": 10},
        description="a round, e.g. v4.0",
    ),
    OpenApiParameter("benchmark", SLUG_PATTERN | {"maxLength": 40}, description="e.g. resnet"),
    OpenApiParameter("accelerator", SLUG_PATTERN | {"maxLength": 80}, description="a device slug"),
    OpenApiParameter(
        "submitter",
        {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[^\\x00]*\\S[^\\x00]*$"},
    ),
    OpenApiParameter("division", str, enum=["closed", "open"]),
    PARAMETERS[6],
    PARAMETERS[7],
    OpenApiParameter(
        "ordering", str, enum=[*mlperf.SORT_KEYS, *(f"-{k}" for k in mlperf.SORT_KEYS)]
    ),
    OpenApiParameter("page", {"type": "integer", "minimum": 1, "maximum": 10**6}),
    OpenApiParameter(
        "page_size", {"type": "integer", "minimum": 1, "maximum": mlperf.MAX_PAGE_SIZE}
    ),
]


class MlperfView(ReadOnlyView):
    @extend_schema(
        summary="MLPerf Training scores, read from the submitters' logs, with derived figures",
        description=(
            "One row per (round, system, benchmark): the score by the round's rule, the system, "
            "the source at its commit, and figures derived here, each with its formula; "
            "`charts` the chosen benchmark's chart points (resnet when none is chosen)."
        ),
        parameters=MLPERF_PARAMETERS,
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        return Response(_document(request, mlperf.answer))


class MlperfCsvView(ReadOnlyView):
    @extend_schema(
        summary="The MLPerf Training scores as CSV (the same filters)",
        parameters=MLPERF_PARAMETERS,
        responses={(200, "text/csv"): OpenApiTypes.STR, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        rows = mlperf.csv_rows(_document(request, mlperf.answer))
        return csv_response(rows, mlperf.CSV_COLUMNS, "mlperf.csv")


class MlperfSystemView(ReadOnlyView):
    @extend_schema(
        operation_id="results_mlperf_system",
        summary="One MLPerf system and its scores",
        responses={200: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int):
        return Response(mlperf_system.system_document(pk))


class MlperfScoreView(ReadOnlyView):
    @extend_schema(
        operation_id="results_mlperf_system_benchmark",
        summary="One MLPerf system's benchmark: its score and every run with its log",
        responses={200: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int, benchmark: str):
        return Response(mlperf_system.score_document(pk, benchmark))
