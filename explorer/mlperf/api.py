"""MLPerf's JSON twins: /api/results/mlperf/ (of /results/mlperf/) and its CSV, a system's and a
score's documents; read only, and a bad query is the shared 400, keyed by parameter."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.web.forms import NoParameters
from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer, csv_response
from explorer.web.schema import document

from . import documents, system

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


class MlperfQueryView(DeclaredQuery, APIView):
    query_form = documents.MlperfForm
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]


class NoQueryView(MlperfQueryView):
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
        return Response(documents.answer(request.GET))


class MlperfCsvView(MlperfQueryView):
    @extend_schema(
        summary="The MLPerf Training scores as CSV (the same filters)",
        responses={(200, "text/csv"): OpenApiTypes.STR, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        rows = documents.csv_rows(documents.answer(request.GET))
        return csv_response(rows, documents.CSV_COLUMNS, "mlperf.csv")


class MlperfSystemView(NoQueryView):
    @extend_schema(
        operation_id="results_mlperf_system",
        summary="One MLPerf system and its scores",
        responses={200: MLPERF_SYSTEM, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int):
        return Response(system.system_document(pk))


class MlperfScoreView(NoQueryView):
    @extend_schema(
        operation_id="results_mlperf_system_benchmark",
        summary="One MLPerf system's benchmark: its score and every run with its log",
        responses={200: MLPERF_SCORE, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int, benchmark: str):
        return Response(system.score_document(pk, benchmark))
