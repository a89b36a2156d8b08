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
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.mlperf import documents as mlperf
from explorer.mlperf import system as mlperf_system
from explorer.web.forms import NoParameters
from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
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
MLPERF = document(
    "MlperfScores",
    {
        "count": "int",
        "total": "int",
        "page": "int",
        "pages": "int",
        "results": "list",
        "charts": "obj",
        "about": "str",
        "page_url": "str",
        "api_url": "str",
        "csv_url": "str",
    },
)
MLPERF_SYSTEM = document("MlperfSystem", {"system": "obj", "scores": "list"})
MLPERF_SCORE = document(
    "MlperfScore",
    {
        "system": "obj",
        "benchmark": "str",
        "score": "obj",
        "runs": "list",
        "api_url": "str",
        "prediction": "obj?",
        "accuracy_url": "str",
    },
)


class ReadOnlyView(DeclaredQuery, APIView):
    query_form = ResultsForm
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]


def _document(request, answering=answer) -> dict:
    return answering(request.GET)  # ApiError: a 400 keyed by parameter


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


class MlperfQueryView(ReadOnlyView):
    query_form = mlperf.MlperfForm


class NoQueryView(ReadOnlyView):
    query_form = NoParameters


class MlperfView(MlperfQueryView):
    @extend_schema(
        summary="MLPerf Training scores, read from the submitters' logs, with derived figures",
        description=(
            "One row per (round, system, benchmark): the score by the round's rule, the system, "
            "the source at its commit, and figures derived here, each with its formula; "
            "`charts` the chosen benchmark's chart points (resnet when none is chosen)."
        ),
        responses={200: MLPERF, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        return Response(_document(request, mlperf.answer))


class MlperfCsvView(MlperfQueryView):
    @extend_schema(
        summary="The MLPerf Training scores as CSV (the same filters)",
        responses={(200, "text/csv"): OpenApiTypes.STR, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        rows = mlperf.csv_rows(_document(request, mlperf.answer))
        return csv_response(rows, mlperf.CSV_COLUMNS, "mlperf.csv")


class MlperfSystemView(NoQueryView):
    @extend_schema(
        operation_id="results_mlperf_system",
        summary="One MLPerf system and its scores",
        responses={200: MLPERF_SYSTEM, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int):
        return Response(mlperf_system.system_document(pk))


class MlperfScoreView(NoQueryView):
    @extend_schema(
        operation_id="results_mlperf_system_benchmark",
        summary="One MLPerf system's benchmark: its score and every run with its log",
        responses={200: MLPERF_SCORE, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int, benchmark: str):
        return Response(mlperf_system.score_document(pk, benchmark))
