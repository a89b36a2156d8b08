"""The activations a node keeps for the backward pass: per layer, for the micro-batches in flight,
and with full recomputation only each segment's input (plus one segment while it is recomputed).

Per layer, a layer's stored values are its outputs (`networks.activations_per_sample`: one
output per layer, a lower bound on what a framework keeps). The schedule decides how many
micro-batches are in flight on a node: all M under GPipe, at most the stages after it under 1F1B.
"""

from __future__ import annotations

import math

import numpy as np

from explorer.workloads.formulas import CONFIRMED, Assumption, Derivation, number_text

from .base import Context

RECOMPUTATION = Assumption(
    "recompute-full",
    "Full recomputation: keep each segment's input, recompute the segment in the backward pass",
    "kept = Σ segment inputs · samples in flight + largest segment's outputs · one micro-batch; "
    "compute + one forward pass",
    "Gradient checkpointing: the memory is the kept checkpoints plus the largest recomputed "
    "segment ('the sum of the memory cost of the gradient checkpoints and the maximum memory "
    "cost of local forwards', https://ar5iv.labs.arxiv.org/html/1808.00079), for one more "
    "forward pass per step; with ⌈√layers⌉ segments, Chen et al.'s O(√n) memory 'at the cost of "
    "one extra forward pass' (arXiv 1604.06174, https://www.pith.science/paper/1604.06174): the "
    "segments where a node holds the whole network (data parallelism, the hybrid, ZeRO). In a "
    "pipeline each stage is one segment, kept for every micro-batch in flight, as GPipe's "
    "re-materialization does (Huang et al., NeurIPS 2019, arXiv 1811.06965; its memory formula "
    "not read on a stored page). Shortcut inputs of residual blocks are not counted apart. "
    "UNCONFIRMED: the rule is applied as stated, not checked against the papers' figures.",
)

ONE_F_ONE_B = Assumption(
    "1f1b-in-flight",
    "1F1B schedule: stage s of S keeps at most min(M, S − s) micro-batches in flight",
    "kept micro-batches of stage s = min(M, S − s); step time as GPipe's (same bubble)",
    "After the survey: the one-forward-one-backward schedule (PipeDream-Flush; Narayanan et al., "
    "SC 2021, arXiv 2104.04473, §2.2.1, https://arxiv.org/abs/2104.04473) starts a micro-batch's "
    "backward pass as soon as it leaves the last stage, so the first stage holds at most S "
    "micro-batches' activations (GPipe: all M) while the bubble stays (S−1)/M of the ideal time "
    "(as restated at https://vizuaraai.github.io/5d-parallelism-visual-guide/advanced-pipeline-"
    "schedules.html: 'peak activations to just p micro-batches in flight (vs. m in GPipe)'). "
    "The planner keeps GPipe's makespan for it.",
    status=CONFIRMED,
    works=("narayanan2021efficient",),
)


def layer_inputs(ctx: Context) -> np.ndarray:
    """Values entering each layer for one sample (C_in·H·W): what a segment boundary keeps."""
    network = ctx.network
    return network.column("C_in") * network.column("H") * network.column("W")


def kept_activations(
    ctx: Context,
    layers: np.ndarray,
    micro_samples: float,
    in_flight: float = 1.0,
    segments: list[np.ndarray] | None = None,
) -> float:
    """Activation values a node keeps at its peak for `layers`: every layer's outputs of
    `micro_samples` samples per micro-batch for `in_flight` micro-batches; with full
    recomputation only each segment's input per micro-batch in flight, plus the largest
    segment's outputs of one micro-batch (the one being recomputed)."""
    outputs = ctx.activations
    if ctx.inputs.recompute == "none" or len(layers) == 0:
        return float(outputs[layers].sum()) * micro_samples * in_flight
    if segments is None:  # the whole network on the node: √layers segments (Chen et al.)
        segments = np.array_split(layers, math.ceil(math.sqrt(len(layers))))
    inputs = layer_inputs(ctx)
    boundary = sum(float(inputs[int(s[0])]) for s in segments)
    working = max(float(outputs[s].sum()) for s in segments)
    return (boundary * in_flight + working) * micro_samples


def activation_sources(ctx: Context) -> list[Assumption]:
    return [RECOMPUTATION] if ctx.inputs.recompute == "full" else []


def recompute_flops(ctx: Context, forward_flops: float) -> float:
    """The compute a full recomputation adds: one more forward pass (0 without it)."""
    return forward_flops if ctx.inputs.recompute == "full" else 0.0


def recompute_derivation(ctx: Context, forward_flops: float, what: str) -> Derivation:
    inputs = ctx.inputs
    return Derivation(
        "recomputation (one more forward pass)",
        forward_flops / inputs.achieved_flops,
        "s",
        "forward FLOPs per node / (peak throughput · efficiency)",
        f"{number_text(forward_flops)} FLOPs ({what}) / ({number_text(inputs.flops)} FLOP/s · "
        f"{number_text(inputs.efficiency)})",
        [RECOMPUTATION],
        note="Included in the compute time: the backward pass first recomputes the segment's "
        "forward pass from its kept input.",
    )
