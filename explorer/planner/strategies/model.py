"""Model parallelism by layers: contiguous stages, one per node, the GPipe makespan of M
micro-batches through them (M = 1 here; the pipeline family composes the same split with M > 1)."""

from __future__ import annotations

import numpy as np

from explorer.workloads.formulas import Assumption, Derivation, evaluate, number_text, substitute

from .activations import (
    ONE_F_ONE_B,
    activation_sources,
    kept_activations,
    recompute_derivation,
)
from .base import (
    MACHINE_INPUTS,
    NO_OVERLAP,
    POINT_TO_POINT,
    VALUE_INPUTS,
    Context,
    Family,
    Outcome,
    compute_derivation,
    evaluated,
    memory_derivation,
    memory_split,
)

GPIPE = Assumption(
    "gpipe-makespan",
    "Makespan of a GPipe schedule with unequal stages",
    "sum(f) + (M - 1)*max(f) + sum(b) + (M - 1)*max(b)",
    "M equal micro-batches flow forward through the stages (times f), then backward (times b) "
    "after a flush: a flow shop of identical jobs, whose makespan is the sum of the stage times "
    "plus M−1 times the slowest stage. With equal stages its idle fraction is the catalogue's "
    "(P−1)/(M+P−1); tests check it against the pipeline demo's event simulation.",
)


def gpipe_makespan(forward: np.ndarray, backward: np.ndarray, micro_batches: int) -> float:
    """Σf + (M−1)·max f + Σb + (M−1)·max b: forward flow shop, flush, backward flow shop."""
    m = micro_batches - 1
    return float(forward.sum() + m * forward.max() + backward.sum() + m * backward.max())


def layer_split(ctx: Context, micro_batches: int, schedule: str = "gpipe") -> Outcome:
    """Layers split into contiguous stages, one per node; M micro-batches pipeline them, under
    GPipe's schedule (all M in flight) or 1F1B's (at most the stages after a node)."""
    inputs = ctx.inputs
    if schedule == "1f1b":
        outcome = Outcome(
            "pipeline-1f1b",
            f"Pipelining, 1F1B schedule (after the survey), M = {micro_batches} micro-batches",
            ("pipelining", "model-parallelism"),
            ("pipeline-bubble",),
        )
    elif micro_batches == 1:
        outcome = Outcome(
            "model-layer-split",
            "Model parallelism (layer split)",
            ("model-parallelism",),
            ("model-parallel",),
        )
    else:
        outcome = Outcome(
            "pipeline",
            f"Pipelining (layer split, M = {micro_batches} micro-batches)",
            ("pipelining", "model-parallelism"),
            ("pipeline-bubble",),
        )
    layers = len(ctx.network.layers)
    if inputs.P > layers:
        return outcome.not_applicable(f"more nodes (P = {inputs.P}) than layers ({layers})")
    whole = ctx.costs(inputs.batch)
    stages = ctx.stages()
    bare, makespan, derivation = _stage_times(ctx, stages, micro_batches)
    _compose_times(ctx, outcome, whole, makespan, bare)
    outcome.derivations += derivation
    outcome.derivations += _idle_derivations(ctx, outcome, bare, len(stages), micro_batches)
    communication = [ctx.formulas["model_parallel.bytes"], POINT_TO_POINT, NO_OVERLAP]
    outcome.sources += [GPIPE, *communication, ctx.formulas["pipeline.bubble"]]
    outcome.parts["communication"] = communication
    outcome.parts["idle"] = [GPIPE]
    if len(stages) < inputs.P:
        outcome.notes.append(f"The best split uses {len(stages)} of the {inputs.P} nodes.")
    outcome.memory = _stage_memory(ctx, stages, micro_batches, schedule)
    outcome.derivations.append(
        memory_derivation(inputs, outcome.memory, _in_flight_text(micro_batches, schedule))
    )
    outcome.derivations[-1].sources += activation_sources(ctx)
    if schedule == "1f1b":
        outcome.sources.append(ONE_F_ONE_B)
        outcome.derivations[-1].sources.append(ONE_F_ONE_B)
        outcome.parts["idle"].append(ONE_F_ONE_B)
    return outcome


def _stage_times(ctx: Context, stages, micro_batches: int) -> tuple[float, float, list]:
    """The makespan without and with the stage transfers, and the transfers' derivation; the
    same for every schedule of this split (kept per P and M: GPipe, 1F1B and the interleaved
    schedule share it)."""
    key = ("stage-times", ctx.inputs.P, micro_batches)
    if key not in ctx.memo:
        inputs = ctx.inputs
        micro = ctx.costs(inputs.batch / micro_batches)
        speed = inputs.achieved_flops
        forward = np.array([micro.forward_flops[s].sum() for s in stages]) / speed
        backward = np.array([micro.backward_flops[s].sum() for s in stages]) / speed
        if inputs.recompute == "full":  # the backward pass first recomputes the stage's forward
            backward = backward + forward
        bare = gpipe_makespan(forward, backward, micro_batches)
        transfer, derivation = _boundary_transfers(ctx, stages, micro_batches)
        forward[:-1] += transfer
        backward[1:] += transfer
        ctx.memo[key] = (bare, gpipe_makespan(forward, backward, micro_batches), derivation)
    return ctx.memo[key]


def _compose_times(ctx: Context, outcome: Outcome, whole, makespan: float, bare: float) -> None:
    """Compute (all FLOPs / P, plus one forward pass with full recomputation), the stage
    transfers' share of the makespan, and the idle rest."""
    inputs = ctx.inputs
    forward = float(whole.forward_flops.sum()) / inputs.P
    extra = forward if inputs.recompute == "full" else 0.0
    compute = compute_derivation(ctx, float(whole.flops.sum()) / inputs.P + extra, "all FLOPs / P")
    outcome.compute = compute.value
    outcome.communication = makespan - bare
    outcome.idle = max(bare - outcome.compute, 0.0)
    outcome.derivations.append(compute)
    outcome.sources += compute.sources
    outcome.parts["compute"] = ctx.work_sources() + activation_sources(ctx)
    if extra:
        outcome.derivations.append(recompute_derivation(ctx, extra, "all forward FLOPs / P"))


def _in_flight_text(micro_batches: int, schedule: str) -> str:
    if schedule == "1f1b":
        return (
            "the largest stage: its layers, activations of min(M, S − s) micro-batches in flight "
            f"(1F1B; M = {micro_batches})"
        )
    return f"the largest stage: its layers, activations of all M = {micro_batches} micro-batches"


def _boundary_transfers(ctx: Context, stages, micro_batches: int):
    """Per micro-batch, the time to send a stage's output to the next stage (and its gradient
    back): the catalogue's model-parallelism bytes, as one message each way."""
    inputs = ctx.inputs
    record = ctx.formulas["model_parallel.bytes"]
    if len(stages) == 1:
        return 0.0, []
    widths = ctx.exchanged[[int(s[-1]) for s in stages[:-1]]]
    values = {
        "N": inputs.batch / micro_batches,
        "C_boundary": widths,
        "gamma": inputs.sizes.messages,
    }
    both_ways = np.asarray(evaluate(record, values), dtype=float)
    latency, per_byte = _boundary_links(inputs, len(stages) - 1)
    transfer = latency + both_ways / 2 * per_byte
    total = float(both_ways.sum()) * micro_batches
    derivation = Derivation(
        "bytes across the stage boundaries per step",
        total,
        "bytes",
        f"M · Σ boundaries {record.formula}",
        f"M = {micro_batches}; " + substitute(record.formula, {**values, "C_boundary": widths}),
        [record, POINT_TO_POINT],
        note="Each boundary's activations go forward and their gradients back, one message "
        "each way per micro-batch (L + bytes·G), added to the sending stage's time. Stages sit "
        "on consecutive devices: a boundary between two nodes takes the inter-node link, one "
        "inside a node the intra-node link.",
    )
    return transfer, [derivation]


def _boundary_links(inputs, boundaries: int) -> tuple[np.ndarray, np.ndarray]:
    """(L, G) of each boundary between consecutive stages, stage i on device i: the intra-node
    link unless the boundary is the last device of a node."""
    crosses = (np.arange(1, boundaries + 1) % inputs.devices_per_node) == 0
    latency = np.where(crosses, inputs.latency, inputs.intra_latency)
    per_byte = np.where(crosses, inputs.G, inputs.intra_G)
    return latency, per_byte


def _idle_derivations(ctx, outcome, bare, stage_count, micro_batches) -> list[Derivation]:
    record = ctx.formulas["pipeline.bubble"]
    values = {"P": float(stage_count), "M": float(micro_batches)}
    fraction, bubble = evaluated(record, values, "bubble fraction (balanced stages)", "", ctx.memo)
    bubble.note = (
        f"With equal stages the idle time would be {number_text(fraction)} of the step; the "
        f"layer split's measured idle fraction is {number_text(outcome.idle / bare if bare else 0)}"
        " (the rest is the imbalance of the best contiguous split)."
    )
    idle = Derivation(
        "idle time",
        outcome.idle,
        "s",
        GPIPE.formula + " − compute",
        f"{number_text(bare)} s − {number_text(outcome.compute)} s",
        [GPIPE],
    )
    return [bubble, idle]


def _stage_memory(ctx: Context, stages, micro_batches: int, schedule: str) -> dict[str, float]:
    """The stage with the most memory: GPipe keeps all M micro-batches' activations, 1F1B at
    most min(M, S − s) on stage s (the first stage the most)."""
    inputs = ctx.inputs
    best: dict[str, float] = {}
    micro_samples = inputs.batch / micro_batches
    for index, stage in enumerate(stages):
        in_flight = micro_batches
        if schedule == "1f1b":
            in_flight = min(micro_batches, len(stages) - index)
        activations = kept_activations(ctx, stage, micro_samples, in_flight, [stage])
        memory = memory_split(inputs, float(ctx.parameters[stage].sum()), activations)
        if not best or memory["total"] > best["total"]:
            best = memory
    return best


def compose(ctx: Context) -> list[Outcome]:
    return [layer_split(ctx, 1)]


FAMILY = Family(
    slug="model",
    name="Model parallelism (layer split)",
    inputs=("batch", *MACHINE_INPUTS, *VALUE_INPUTS),
    cost_models=("model_parallel.bytes", "pipeline.bubble"),
    strategies=("model-layer-split",),
    compose=compose,
)
