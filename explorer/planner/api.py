"""/api/planner/: the planner's JSON twin, taking the page's query parameters.

Anonymous read only. A bad value is a 400 in the error shape, its messages keyed by parameter;
never a 500 for a query string.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.web.middleware import cached_for_anonymous
from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
from explorer.web.schema import document

from .documents import answer
from .forms import PlannerForm

# The answer's shape (issue 44: every API answer has a response schema): `layouts` for a
# transformer, `sweep` for a layer table (null for a transformer).
PLAN = document(
    "Plan",
    {
        "inputs": "obj",
        "machine": "obj",
        "network": "obj",
        "single_node_time": "num",
        "ranking_note": "str",
        "strategies": "list",
        "sensitivity": "obj",
        "layouts": "~obj",
        "sweep": "obj?",
        "efficiency": "obj",
        "accuracy": "obj",
        "page_url": "str",
        "api_url": "str",
    },
)


@cached_for_anonymous
class PlannerView(DeclaredQuery, APIView):
    query_form = PlannerForm
    empty_value_is_default = True  # ?batch= is the page's blank field: the default (schema)
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]

    @extend_schema(
        summary="Scaling strategies for a network on a machine, ranked, with derivations",
        description=(
            "`network` holds the totals computed with the catalogue's operator formulas and the "
            "paper's figures; `strategies` is ranked by step time among those that fit in memory,"
            " each with its time split, memory per node, speedup, efficiency and `cost_models` "
            "(id and status of every formula used); `sweep` gives step time and efficiency "
            "against P, each P at its own calibrated efficiency unless `efficiency` is given "
            "(each point is the answer at that P). `communication_time` is the exposed "
            "communication (what the step waits for; also `exposed_communication_time`), "
            "`total_communication_time` all of it, hidden behind the backward pass or not. "
            "`unconfirmed_parts` names, for each part of the step, the unconfirmed formulas it "
            "rests on; `sensitivity` says, for each of them taken ×2 and ×0.5, which strategy "
            "would be best. For a transformer, `layouts` ranks every P = dp × tp × pp, each "
            "strategy's `communication` splits its seconds (`data` exposed, `data_total` all of "
            "the gradient exchange), and `sensitivity` adds the best layout of the search "
            "(`best_layout`, `best_layout_if_doubled`, `best_layout_if_halved`, "
            "`changes_best_layout`)."
        ),
        responses={200: PLAN, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        # The form DeclaredQuery checked, not a second one: ApiError, a 400 keyed by parameter
        # (or a 503 when the catalogue's cost models cannot be composed).
        return Response(answer(request.GET, self.declared_query))
