"""Model parallelism by layers: contiguous stages, one per node, the GPipe makespan of M
micro-batches through them (M = 1 here; the pipeline family composes the same split with M > 1)."""

from __future__ import annotations

import numpy as np

from ..formulas import Assumption, Derivation, evaluate, number_text, substitute
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


def layer_split(ctx: Context, micro_batches: int) -> Outcome:
    """Layers split into contiguous stages, one per node; M micro-batches pipeline them."""
    inputs = ctx.inputs
    if micro_batches == 1:
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
    micro = ctx.costs(inputs.batch / micro_batches)
    forward = np.array([micro.forward_flops[s].sum() for s in stages]) / inputs.achieved_flops
    backward = np.array([micro.backward_flops[s].sum() for s in stages]) / inputs.achieved_flops
    bare = gpipe_makespan(forward, backward, micro_batches)
    transfer, derivation = _boundary_transfers(ctx, stages, micro_batches)
    forward[:-1] += transfer
    backward[1:] += transfer
    makespan = gpipe_makespan(forward, backward, micro_batches)
    compute = compute_derivation(ctx, float(whole.flops.sum()) / inputs.P, "all FLOPs / P")
    outcome.compute = compute.value
    outcome.communication = makespan - bare
    outcome.idle = max(bare - outcome.compute, 0.0)
    outcome.derivations += [compute, *derivation]
    outcome.derivations += _idle_derivations(ctx, outcome, bare, len(stages), micro_batches)
    outcome.sources += compute.sources + [GPIPE, POINT_TO_POINT, NO_OVERLAP]
    outcome.sources += [ctx.formulas["model_parallel.bytes"], ctx.formulas["pipeline.bubble"]]
    if len(stages) < inputs.P:
        outcome.notes.append(f"The best split uses {len(stages)} of the {inputs.P} nodes.")
    outcome.memory = _stage_memory(ctx, stages)
    outcome.derivations.append(
        memory_derivation(
            inputs, outcome.memory, "the largest stage: its layers, activations of all N samples"
        )
    )
    return outcome


def _boundary_transfers(ctx: Context, stages, micro_batches: int):
    """Per micro-batch, the time to send a stage's output to the next stage (and its gradient
    back): the catalogue's model-parallelism bytes, as one message each way."""
    inputs = ctx.inputs
    record = ctx.formulas["model_parallel.bytes"]
    if len(stages) == 1:
        return 0.0, []
    widths = ctx.activations[[int(s[-1]) for s in stages[:-1]]]
    values = {
        "N": inputs.batch / micro_batches,
        "C_boundary": widths,
        "gamma": inputs.sizes.messages,
    }
    both_ways = np.asarray(evaluate(record, values), dtype=float)
    transfer = inputs.latency + both_ways / 2 * inputs.G
    total = float(both_ways.sum()) * micro_batches
    derivation = Derivation(
        "bytes across the stage boundaries per step",
        total,
        "bytes",
        f"M · Σ boundaries {record.formula}",
        f"M = {micro_batches}; " + substitute(record.formula, {**values, "C_boundary": widths}),
        [record, POINT_TO_POINT],
        note="Each boundary's activations go forward and their gradients back, one message "
        "each way per micro-batch (L + bytes·G), added to the sending stage's time.",
    )
    return transfer, [derivation]


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


def _stage_memory(ctx: Context, stages) -> dict[str, float]:
    inputs = ctx.inputs
    best: dict[str, float] = {}
    for stage in stages:
        activations = float(ctx.activations[stage].sum()) * inputs.batch
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
