"""The gradient exchange: the catalogue's allreduce (or parameter-server) formula on one or two
levels of network, over the whole gradient or in buckets overlapped with the backward pass.

Two levels (`devices_per_node` > 1): inside a node the intra-node link, between nodes the
inter-node link (`latency_us`, `bandwidth_gbs`: a node's link to the network). Overlap: the
gradients are cut into buckets in the backward order of the layers; a bucket's exchange starts
when its last gradient is computed and the previous bucket's exchange is done, so the backward
pass over the earlier layers hides it, and what outlasts the backward pass is exposed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from explorer.workloads.formulas import Assumption, Derivation, Source, evaluate, number_text

from ..machine import Inputs
from .base import NO_OVERLAP, Context, Outcome, gradient_exchange_values

OVERLAP = Assumption(
    "bucketed-overlap",
    "Gradient exchange in buckets, overlapped with the backward pass",
    "bucket k starts at max(ready_k, end of bucket k−1); exposed = end of the last bucket − "
    "end of the backward pass",
    "PyTorch DDP (Li et al., VLDB 2020, arXiv 2006.15704, https://arxiv.org/abs/2006.15704; "
    "abstract: https://shamra-academia.com/show/952946683770/amp): gradients are grouped into "
    "buckets in the reverse order of the layers and a bucket's allreduce starts as soon as its "
    "gradients are ready, during the backward pass over the earlier layers; the bucket size is "
    "bucket_cap_mb, 25 MB by default (https://github.com/pytorch/pytorch/issues/118421). The "
    "timing model is the planner's: one exchange at a time, each bucket paying the formula's "
    "latency terms; the last bucket (the first layers) is always exposed. DDP's smaller first "
    "bucket is not modelled.",
)

HIERARCHICAL = Assumption(
    "hierarchical-allreduce",
    "Two-level allreduce: reduce-scatter inside each node, allreduce across nodes, allgather "
    "inside",
    "ring allreduce(P = d, intra link, m) + allreduce(P = ⌈P/d⌉, inter link, m)",
    "As Goyal et al. 2017 do on 8-GPU servers (a reduction inside each server with NCCL, then "
    "across servers: https://developer.nvidia.com/blog/facebook-trains-imagenet-in-1-hour/). "
    "The reduce-scatter and allgather inside a node of d devices are the two halves of the "
    "catalogue's pipelined ring allreduce over d; each device then allreduces its 1/d share "
    "across the ⌈P/d⌉ nodes, the d shares sharing their node's link: the time of one allreduce "
    "of the whole gradient across the nodes. Applies to the allreduce exchanges when "
    "1 < d < P; with P ≤ d every exchange stays on the intra-node link. A last node with fewer "
    "than d devices is counted as a full one.",
)


@dataclass
class Exchange:
    """One gradient exchange: its total time, what of it is exposed, and how it was obtained."""

    total: float = 0.0
    exposed: float = 0.0
    derivations: list[Derivation] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)


def levels(inputs: Inputs, role: str, elements) -> list[tuple[str, str, dict[str, float]]]:
    """(role, where, values) of each level the exchange of `elements` values (a number or an
    array of bucket sizes) goes through."""
    values, _ = gradient_exchange_values(inputs, elements)
    inter = {**values, "L": inputs.latency, "G": inputs.G}
    intra = {**values, "L": inputs.intra_latency, "G": inputs.intra_G}
    devices = inputs.devices_per_node
    if devices == 1 or role == "parameter_server.time":
        return [(role, "", inter)]
    if inputs.P <= devices:
        return [(role, "inside one node", intra)]
    nodes = float(math.ceil(inputs.P / devices))
    return [
        ("allreduce.ring", "inside each node", {**intra, "P": float(devices)}),
        (role, "across nodes", {**inter, "P": nodes}),
    ]


def level_seconds(ctx: Context, role: str, values: dict) -> np.ndarray:
    """The formula at `values` (m an array of bucket sizes), kept in the context's memo so that
    a sweep evaluates it once per P."""
    record = ctx.formulas[role]
    key = level_key(record.formula, values)
    if key not in ctx.memo:
        ctx.memo[key] = np.broadcast_to(evaluate(record, values), np.shape(values["m"]))
    return ctx.memo[key]


def level_key(formula: str, values: dict) -> tuple:
    return ("buckets", formula, tuple((k, _hashable(v)) for k, v in sorted(values.items())))


def _hashable(value):
    return np.asarray(value, dtype=float).tobytes() if isinstance(value, np.ndarray) else value


def bucket_sizes(ctx: Context, layers: np.ndarray, overlap: bool) -> np.ndarray:
    """The values of each exchange: the buckets when overlapped, else the whole gradient."""
    if overlap and ctx.inputs.overlap:
        return buckets(ctx, layers)[0]
    return np.array([ctx.parameters[layers].sum()])


def buckets(ctx: Context, layers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient buckets over `layers` in backward order (last layer first): the values in each
    and the position (in that order) of the layer that completes it. A bucket closes once it
    holds `bucket_mb` of gradients; a layer is never split (as DDP fills its buckets)."""
    inputs = ctx.inputs
    cap = inputs.bucket_bytes / inputs.sizes.gradients
    key = ("bucket-split", layers.tobytes(), cap)  # the same for every P of a sweep
    if key not in ctx.memo:
        ctx.memo[key] = _split(ctx.parameters[layers][::-1], cap)
    return ctx.memo[key]


def _split(parameters: np.ndarray, cap: float) -> tuple[np.ndarray, np.ndarray]:
    sizes, ends, held = [], [], 0.0
    for position, count in enumerate(parameters):
        held += count
        if held >= cap or position == len(parameters) - 1:
            sizes.append(held)
            ends.append(position)
            held = 0.0
    return np.array(sizes), np.array(ends)


def gradient_exchange(
    ctx: Context, role: str, layers: np.ndarray, backward: np.ndarray, overlap: bool
) -> Exchange:
    """The exchange of the gradients of `layers`; `backward`: each layer's backward time (s),
    which hides the buckets' exchanges when `overlap`."""
    exchange = Exchange()
    if ctx.inputs.P == 1:
        exchange.derivations.append(
            Derivation("communication time", 0.0, "s", "0", "one node: nothing to exchange")
        )
        return exchange
    overlap = overlap and ctx.inputs.overlap
    whole = (np.array([ctx.parameters[layers].sum()]), None)
    sizes, ends = buckets(ctx, layers) if overlap else whole
    seconds = np.zeros(len(sizes))
    for level_role, where, values in levels(ctx.inputs, role, sizes):
        part = level_seconds(ctx, level_role, values)
        seconds = seconds + part
        exchange.derivations.append(_level_derivation(ctx, level_role, where, values, part))
        exchange.sources.append(ctx.formulas[level_role])
    _, reduction = gradient_exchange_values(ctx.inputs, 1.0)
    exchange.sources += reduction + ([HIERARCHICAL] if len(exchange.derivations) > 1 else [])
    exchange.total = float(seconds.sum())
    if ends is None:
        exchange.exposed = exchange.total
        exchange.sources.append(NO_OVERLAP)
        return exchange
    exchange.exposed = _exposed(seconds, ends, backward[::-1])
    exchange.sources.append(OVERLAP)
    exchange.derivations.append(_overlap_derivation(ctx, exchange, len(sizes)))
    return exchange


def _exposed(seconds: np.ndarray, ends: np.ndarray, backward_in_order: np.ndarray) -> float:
    """Time the exchanges run past the end of the backward pass: bucket k is ready when the
    backward pass has gone through its last layer; one exchange at a time."""
    ready = np.cumsum(backward_in_order)[ends]
    finish = 0.0
    for start, duration in zip(ready, seconds, strict=True):
        finish = max(finish, float(start)) + float(duration)
    return max(finish - float(backward_in_order.sum()), 0.0)


def _level_derivation(ctx, role, where, values, seconds) -> Derivation:
    record = ctx.formulas[role]
    quantity = "communication time" + (f" ({where})" if where else "")
    if np.size(seconds) > 1:
        quantity += f", {np.size(seconds)} buckets"
    else:  # one exchange of the whole gradient: written as a number
        values = {**values, "m": float(np.ravel(values["m"])[0])}
    return Derivation(
        quantity,
        float(np.sum(seconds)),
        "s",
        record.formula,
        "",
        [record],
        values=values,  # written out only when shown (a sweep never shows it)
        note="Summed over the buckets (m: the values in each)." if np.size(seconds) > 1 else "",
    )


def _overlap_derivation(ctx: Context, exchange: Exchange, count: int) -> Derivation:
    return Derivation(
        "exposed communication time",
        exchange.exposed,
        "s",
        OVERLAP.formula,
        f"{count} buckets of up to {number_text(ctx.inputs.bucket_mb)} MB; "
        f"{number_text(exchange.total)} s of exchange, {number_text(exchange.exposed)} s "
        "after the backward pass",
        [OVERLAP],
        note="The rest is hidden behind the backward pass (overlap=false exposes it all).",
    )


def exchange_into(outcome: Outcome, exchange: Exchange) -> None:
    """Record an exchange in an outcome: its time split, derivations and sources."""
    outcome.communication += exchange.exposed
    outcome.hidden += exchange.total - exchange.exposed
    outcome.derivations += exchange.derivations
    outcome.sources += exchange.sources
    outcome.parts.setdefault("communication", []).extend(exchange.sources)
