"""The demos' JSON API: list the registry with parameter schemas, run one (validated, sandboxed,
rate-limited and cached)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.demos import DEMOS
from explorer.demos.base import schema
from explorer.demos.run_api import RunRefused, params_from_body, run_urls, start_run
from explorer.demos.runner import WALL_SECONDS
from explorer.demos.tasks import wait_for_run
from explorer.models import DemoRun
from explorer.throttling import DemoRunThrottle


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


def demo_or_404(slug: str):
    if slug not in DEMOS:
        raise Http404(f"No demo {slug!r} (known: {', '.join(DEMOS)}).")
    return DEMOS[slug]


def run_response(run: DemoRun, cached: bool) -> dict:
    return {
        "slug": run.slug,
        "version": run.version,
        "params": run.params,
        "cached": cached,
        "elapsed_s": run.elapsed_s,
        "result": run.result,
    }


def finished_or_waiting(run: DemoRun, cached: bool) -> tuple[dict, int, dict]:
    """(body, HTTP status, headers) of the synchronous run endpoint once its wait is over."""
    if run.status == DemoRun.SUCCEEDED:
        return run_response(run, cached), status.HTTP_200_OK, {}
    if run.status == DemoRun.FAILED:
        code = 422 if run.limit in ("cpu", "memory", "wall") else 500
        return {"error": run.error}, code, {}
    # Still queued or running after the wall-clock limit: the run goes on; poll its URL.
    body = {"id": run.pk, "status": run.status, **run_urls(run)}
    return body, status.HTTP_202_ACCEPTED, {"Location": body["url"], "Retry-After": "2"}


class DemoListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Every micro-demo with its parameter schema (numeric bounds included)",
        operation_id="demos_list",
        responses={200: DemoSchemaSerializer(many=True)},
    )
    def get(self, request):
        return Response([schema(demo) for demo in DEMOS.values()])


class DemoDetailView(APIView):
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
        request=inline_serializer(
            "DemoRunNowRequest", {"params": serializers.DictField(required=False)}
        ),
        examples=[OpenApiExample("pipeline-bubble", value={"params": {"P": 4, "M": 8}})],
        operation_id="demos_run",
        responses={code: OpenApiTypes.OBJECT for code in (200, 202, 400, 404, 422, 429)},
    )
    def post(self, request, slug: str):
        demo_or_404(slug)
        try:
            run, created = start_run(request, slug, params_from_body(request.data))
        except RunRefused as refused:
            return Response(refused.body, status=refused.status_code, headers=refused.headers)
        cached = not created and run.status == DemoRun.SUCCEEDED
        body, code, headers = finished_or_waiting(wait_for_run(run, WALL_SECONDS), cached)
        return Response(body, status=code, headers=headers)
