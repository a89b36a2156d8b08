"""/api/devices/: the device catalogue (the JSON twin of /devices/), each value with the figure
as its page prints it, the page and the page's kind. Anonymous read only; a bad, unknown or
repeated parameter is a 400 in the shared error shape, keyed by parameter (its form, declared
once, also lists the parameters in the OpenAPI schema)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
from explorer.web.schema import document

from .documents import DevicesForm, answer, vendors

DEVICES = document(
    "Devices",
    {
        "count": "int",
        "total": "int",
        "conventions": "str",
        "source_kinds": "obj",
        "value_counts": "obj",
        "columns": "list",
        "devices": "list",
        "page_url": "str",
        "api_url": "str",
    },
)


class DevicesView(DeclaredQuery, APIView):
    query_form = DevicesForm
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]

    @extend_schema(
        summary="Accelerators: peak dense FLOP/s per precision, memory and links, each sourced",
        description=(
            "Each device's values (null where no page states one) with their unit, the figure "
            "as its page prints it, the page's URL and kind (vendor, mlperf, secondary) and any "
            "divisor with its reason (a sparse or bidirectional figure halved). Vendors: "
            + ", ".join(vendors())
        ),
        responses={200: DEVICES, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        return Response(answer(request.GET))  # ApiError: a 400 keyed by parameter
