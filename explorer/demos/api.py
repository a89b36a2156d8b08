"""The demos' JSON API: the registry with parameter schemas, and the runs.

`POST /api/demos/<slug>/runs/ {"params": {...}}` answers 202 {id, status, url, html_url} for a
run queued now or already waiting, or 200 with the whole run when the same demo, version and
canonical parameters already succeeded (nothing is computed twice); `GET /api/demos/runs/<id>/`
is the run. `POST /api/demos/<slug>/run/`, the first API, queues the same way and waits.
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.demos import DEMOS
from explorer.demos.base import schema
from explorer.demos.models import DemoRun
from explorer.demos.service import (
    demo_or_404,
    finished_or_waiting,
    fresh_run,
    params_from_body,
    run_document,
    run_urls,
    start_run,
)
from explorer.demos.tasks import wait_for_run
from explorer.web.query import DeclaredQuery
from explorer.web.schema import document
from explorer.web.throttling import DemoRunThrottle

# The JSON answers' shapes (explorer/web/schema.py's `document`): a run as its URL shows it,
# the synchronous run's result, and the answer of a run still queued or running.
RUN = document(
    "DemoRunStatus",
    {
        "id": "int",
        "slug": "str",
        "version": "int",
        "params": "obj",
        "status": "str",
        "progress": "num",
        "progress_message": "str",
        "queue_position": "int?",
        "attempts": "int",
        "queued_at": "time",
        "started_at": "time?",
        "finished_at": "time?",
        "elapsed_s": "num?",
        "url": "str",
        "html_url": "str",
        "result": "~any",  # once succeeded
        "error": "~str",  # once failed, with the limit it passed (if any)
        "limit": "~str?",
    },
)
RUN_RESULT = document(
    "DemoRunResult",
    {
        "slug": "str",
        "version": "int",
        "params": "obj",
        "cached": "bool",
        "elapsed_s": "num?",
        "result": "any",
    },
)
RUN_WAITING = document(
    "DemoRunWaiting", {"id": "int", "status": "str", "url": "str", "html_url": "str"}
)


class DemoParamSerializer(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["int", "float", "choice", "bool"])
    default = serializers.JSONField()
    min = serializers.FloatField(allow_null=True)
    max = serializers.FloatField(allow_null=True)
    choices = serializers.ListField(child=serializers.CharField(), allow_null=True)
    help = serializers.CharField()
    unit = serializers.CharField(allow_null=True)


class DemoSchemaSerializer(serializers.Serializer):
    """Documents `explorer.demos.base.schema(demo)` for the OpenAPI schema."""

    slug = serializers.SlugField()
    title = serializers.CharField()
    version = serializers.IntegerField()
    level = serializers.CharField()
    techniques = serializers.ListField(child=serializers.SlugField())
    works = serializers.ListField(child=serializers.IntegerField())
    summary = serializers.CharField()
    look_for = serializers.CharField()
    params = DemoParamSerializer(many=True)


class DemoListView(DeclaredQuery, APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Every micro-demo with its parameter schema (numeric bounds included)",
        operation_id="demos_list",
        responses={200: DemoSchemaSerializer(many=True)},
    )
    def get(self, request):
        return Response([schema(demo) for demo in DEMOS.values()])


class DemoDetailView(DeclaredQuery, APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="One micro-demo with its parameter schema",
        operation_id="demos_retrieve",
        responses={200: DemoSchemaSerializer, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, slug: str):
        return Response(schema(demo_or_404(slug)))


class DemoRunView(APIView):
    """Run a demo and wait for its result (the first API; `.../runs/` queues without waiting).
    The run goes through the same queue, throttle and caps; the answer comes when it finishes,
    or after the wall-clock limit as a 202 pointing to the run."""

    permission_classes = [AllowAny]
    throttle_classes = [DemoRunThrottle]

    @extend_schema(
        summary="Run a demo with {params} and wait for the result (up to the wall-clock limit)",
        request=inline_serializer("DemoRunNow", {"params": serializers.DictField(required=False)}),
        examples=[OpenApiExample("pipeline-bubble", value={"params": {"P": 4, "M": 8}})],
        operation_id="demos_run",
        responses={200: RUN_RESULT, 202: RUN_WAITING}
        | {code: OpenApiTypes.OBJECT for code in (400, 404, 422, 429)},
    )
    def post(self, request, slug: str):
        demo = demo_or_404(slug)
        run, created = start_run(request, slug, params_from_body(request.data, demo))
        cached = not created and run.status == DemoRun.SUCCEEDED
        run = wait_for_run(run, settings.DEMO_WALL_SECONDS)
        body, code, headers = finished_or_waiting(run, cached)
        return Response(body, status=code, headers=headers)


RUN_REQUEST = inline_serializer("DemoRun", {"params": serializers.DictField(required=False)})


class DemoRunCreateView(APIView):
    """Queue a demo run. Anyone may; runs are throttled per client (DEMO_RUN_RATE) and the queue
    is capped per client and in total (DEMO_QUEUE_PER_CLIENT, DEMO_QUEUE_TOTAL: then 429 with
    Retry-After)."""

    permission_classes = [AllowAny]
    throttle_classes = [DemoRunThrottle]

    @extend_schema(
        summary="Queue a demo run with {params}; the same parameters share one run",
        request=RUN_REQUEST,
        examples=[OpenApiExample("pipeline-bubble", value={"params": {"P": 4, "M": 8}})],
        operation_id="demos_runs_create",
        responses={200: RUN, 202: RUN_WAITING}
        | {code: OpenApiTypes.OBJECT for code in (400, 404, 429)},
    )
    def post(self, request, slug: str):
        demo = demo_or_404(slug)
        run, created = start_run(request, slug, params_from_body(request.data, demo))
        if not created and run.status == DemoRun.SUCCEEDED:  # computed before: not again
            return Response(run_document(run), status=status.HTTP_200_OK)
        body = {"id": run.pk, "status": run.status, **run_urls(run)}
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class DemoRunDetailView(DeclaredQuery, APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="One demo run: status, progress, and its result or error once finished",
        operation_id="demos_runs_retrieve",
        responses={200: RUN, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int):
        return Response(run_document(fresh_run(pk)))
