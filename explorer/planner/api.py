"""/api/planner/: the planner's JSON twin, taking the page's query parameters.

Anonymous read only. A bad value is a 400 {errors: [message naming the parameter and its bound]};
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

from .devices import catalogue_devices
from .documents import PlannerError, answer
from .machine import (
    ALLREDUCE_ALGORITHMS,
    ATTENTION,
    BOUNDS,
    OPTIMIZERS,
    PRECISIONS,
    PRESETS,
    RECOMPUTE,
    SWITCHES,
)
from .networks import networks
from .strategies import ALL_STRATEGY_SLUGS
from .transformer import NETWORKS

# Bounds between parameters, which a parameter's own schema cannot say (a 400 naming it).
JOINT_BOUNDS = {
    "micro_batches": "at most `batch` (a micro-batch holds at least one sample)",
    "devices_per_node": "a node holds at most `devices_per_node` of the P devices (the last "
    "node may hold fewer); with P ≤ devices_per_node every exchange stays inside one node",
    "bits": "at most 8 × the bytes per value sent (`message_bytes`, else the precision's: "
    "8·gamma in fp32, 16 in mixed precision)",
}


def _parameters() -> list[OpenApiParameter]:
    parameters = [
        OpenApiParameter(
            "network",
            str,
            enum=sorted(networks()) + list(NETWORKS),
            description="network: a survey CNN, a transformer preset, or `transformer` (a "
            "configuration of your own: layers, hidden, heads, seq_len, vocab...)",
        ),
        OpenApiParameter("machine", str, enum=list(PRESETS), description="machine preset"),
        OpenApiParameter(
            "attention",
            str,
            enum=list(ATTENTION),
            description="a transformer's attention kernels: standard (Korthikanti et al.'s "
            "activations, with the s x s matrices) or flash (FlashAttention-style, arXiv "
            "2205.14135: activations and FLOPs of selective recomputation)",
        ),
        OpenApiParameter(
            "gated",
            str,
            enum=list(SWITCHES),
            description="a transformer's MLP gated (SwiGLU, three matrices of ffn_hidden) or "
            "not; default: the preset's (a custom transformer: not gated)",
        ),
        OpenApiParameter(
            "device",
            str,
            enum=list(catalogue_devices()),
            description="a device of the catalogue (/devices/): its peak at the precision, "
            "memory and intra-node link over the machine preset's (explicit values win; a "
            "figure the catalogue does not state must be given)",
        ),
        OpenApiParameter("allreduce", str, enum=list(ALLREDUCE_ALGORITHMS)),
        OpenApiParameter(
            "precision",
            str,
            enum=list(PRECISIONS),
            description="bytes per value: fp32 (all gamma) or mixed (2-byte weights, gradients, "
            "activations and messages, fp32 master weights and moments); each size overridable",
        ),
        OpenApiParameter(
            "optimizer",
            str,
            enum=list(OPTIMIZERS),
            description="optimizer state values per parameter: sgd 0, momentum 1, adam 2 "
            "(mixed precision: K = 4 + 4 per value, Adam's K = 12 as in ZeRO)",
        ),
        OpenApiParameter(
            "recompute",
            str,
            enum=list(RECOMPUTE),
            description="activation recomputation: none keeps every layer's output; full keeps "
            "only each segment's input (a pipeline stage, else √layers contiguous layers) and "
            "recomputes the segment in the backward pass: one more forward pass of compute; "
            "transformers as Korthikanti et al. count it, where selective recomputes only the "
            "attention scores (transformer networks only)",
        ),
        OpenApiParameter(
            "overlap",
            str,
            enum=list(SWITCHES),
            description="true (the default, as PyTorch DDP does): the data-parallel gradient "
            "allreduce runs in buckets of `bucket_mb` during the backward pass and only what "
            "outlasts it is exposed; false: the whole exchange after the backward pass",
        ),
        OpenApiParameter(
            "strategy", str, many=True, enum=list(ALL_STRATEGY_SLUGS), description="only these"
        ),
    ]
    for name, bound in BOUNDS.items():
        kind = "integer" if bound.kind is int else "number"
        description = f"{bound.help}, {bound.low:g} to {bound.high:g} {bound.unit}".strip()
        if name in JOINT_BOUNDS:
            description += f"; {JOINT_BOUNDS[name]}"
        parameters.append(
            OpenApiParameter(
                name,
                {"type": kind, "minimum": bound.low, "maximum": bound.high},
                description=description,
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
            "against P. `communication_time` is the exposed communication (what the step waits "
            "for; also `exposed_communication_time`), `total_communication_time` all of it, "
            "hidden behind the backward pass or not. `unconfirmed_parts` names, for each part of "
            "the step, the unconfirmed formulas it rests on; `sensitivity` says, for each of "
            "them taken ×2 and ×0.5, which strategy would be best. For a transformer, `layouts` "
            "ranks every P = dp × tp × pp, each strategy's `communication` splits its seconds "
            "(`data` exposed, `data_total` all of the gradient exchange), and `sensitivity` adds "
            "the best layout of the search (`best_layout`, `best_layout_if_doubled`, "
            "`best_layout_if_halved`, `changes_best_layout`)."
        ),
        parameters=_parameters(),
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        try:
            document = answer(request.GET, extra=("format",))
        except PlannerError as error:
            if error.status == 400:  # keyed by parameter, code "invalid", as everywhere
                raise ValidationError(error.errors) from None
            return Response({"errors": error.messages}, status=error.status)
        return Response(document)
