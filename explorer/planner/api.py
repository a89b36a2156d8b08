"""/api/planner/: the planner's JSON twin, taking the page's query parameters.

Anonymous read only. A bad, unknown or repeated parameter is a 400 in the shared error shape,
its messages keyed by parameter (code `invalid`);
never a 500 for a query string.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.web.middleware import cached_for_anonymous
from explorer.web.renderers import FastJSONRenderer

from .documents import PlannerError, answer
from .machine import ALLREDUCE_ALGORITHMS, BOUNDS, PRESETS
from .networks import networks
from .strategies import STRATEGY_SLUGS


def _parameters() -> list[OpenApiParameter]:
    parameters = [
        OpenApiParameter("network", str, enum=sorted(networks()), description="network"),
        OpenApiParameter("machine", str, enum=list(PRESETS), description="machine preset"),
        OpenApiParameter("allreduce", str, enum=list(ALLREDUCE_ALGORITHMS)),
        OpenApiParameter(
            "strategy", str, many=True, enum=list(STRATEGY_SLUGS), description="only these"
        ),
    ]
    for name, bound in BOUNDS.items():
        kind = "integer" if bound.kind is int else "number"
        parameters.append(
            OpenApiParameter(
                name,
                {"type": kind, "minimum": bound.low, "maximum": bound.high},
                description=f"{bound.help}, {bound.low:g} to {bound.high:g} {bound.unit}".strip(),
            )
        )
    return parameters


@cached_for_anonymous
class PlannerView(APIView):
    empty_value_is_default = True  # ?batch= is the page's blank field: the default (schema)
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]

    @extend_schema(
        summary="Scaling strategies for a network on a machine, ranked, with derivations",
        description=(
            "`network` holds the totals computed with the catalogue's operator formulas and the "
            "paper's figures; `strategies` is ranked by step time among those that fit in memory, "
            "each with its time split, memory per node, speedup, efficiency and `cost_models` "
            "(id and status of every formula used); `sweep` gives step time and efficiency "
            "against P."
        ),
        parameters=_parameters(),
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        try:
            document = answer(request.GET)
        except PlannerError as error:
            if error.status == 400:
                raise ValidationError(error.errors) from None
            return Response({"errors": error.messages}, status=error.status)
        return Response(document)
