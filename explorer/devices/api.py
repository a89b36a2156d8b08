"""/api/devices/: the device catalogue (the JSON twin of /devices/), each value with the figure
as its page prints it, the page and the page's kind. Anonymous read only; a bad, unknown or
repeated parameter is a 400 in the shared error shape, keyed by parameter."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.devices import KINDS
from explorer.web.renderers import FastJSONRenderer

from .documents import SORT_KEYS, DevicesError, answer, vendors

PARAMETERS = [
    OpenApiParameter("vendor", str, enum=vendors(), description="a vendor, e.g. NVIDIA"),
    OpenApiParameter("kind", str, enum=list(KINDS)),
    OpenApiParameter(
        "ordering",
        str,
        enum=[*SORT_KEYS, *(f"-{k}" for k in SORT_KEYS)],
        description="a column (name, vendor, memory, a bandwidth or a precision); '-' first "
        "for descending; unknown values last",
    ),
]


class DevicesView(APIView):
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
        parameters=PARAMETERS,
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        try:
            return Response(answer(request.GET))
        except DevicesError as error:
            raise ValidationError(error.errors) from None
