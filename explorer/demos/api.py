"""The demos' JSON API: list the registry with parameter schemas, run one (validated, sandboxed,
rate-limited and cached)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.demos import DEMOS
from explorer.demos.base import schema
from explorer.demos.service import demo_or_404, run_or_error
from explorer.errors import error_body
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
    """Run a demo. Anyone may run one (it writes nothing but a cache entry); runs are bounded in
    CPU, memory and time, and at most DEMO_MAX_CONCURRENT run at once (then 429 + Retry-After)."""

    permission_classes = [AllowAny]
    throttle_classes = [DemoRunThrottle]

    @extend_schema(
        summary="Run a demo with {params}; missing parameters take their defaults",
        request=inline_serializer("DemoRun", {"params": serializers.DictField(required=False)}),
        examples=[OpenApiExample("pipeline-bubble", value={"params": {"P": 4, "M": 8}})],
        operation_id="demos_run",
        responses={code: OpenApiTypes.OBJECT for code in (200, 400, 404, 422, 429)},
    )
    def post(self, request, slug: str):
        demo_or_404(slug)
        params = request.data.get("params", {}) if isinstance(request.data, dict) else None
        if not isinstance(params, dict):
            message = 'the body must be a JSON object {"params": {...}}'
            raise ValidationError({"params": [message]})
        body, code, headers = run_or_error(slug, params)
        if code != 200:
            body = error_body(code, body["error"])
        return Response(body, status=code, headers=headers)
