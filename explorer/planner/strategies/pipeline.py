"""Pipelining: the layer split with M micro-batches in flight (GPipe), and after the survey the
1F1B schedule (at most the number of stages in flight) and the interleaved schedule with v model
chunks per node."""

from __future__ import annotations

from explorer.workloads.formulas import CONFIRMED, Assumption, Derivation, number_text

from .base import MACHINE_INPUTS, VALUE_INPUTS, Context, Family, Outcome
from .model import layer_split

INTERLEAVED = Assumption(
    "interleaved-pipeline",
    "Interleaved pipeline schedule: v model chunks per node",
    "idle / v, stage-boundary communication × v",
    "After the survey: the interleaved schedule of Narayanan et al. (SC 2021, arXiv 2104.04473, "
    "§2.2.2, https://arxiv.org/abs/2104.04473; the schedule in Megatron-LM: https://developer."
    "sourcefind.cn/codes/OpenDAS/megatron-lm/-/commit/ab9a79791de91a2fa99d0d52379e23bcd652c61f). "
    "Each node holds v non-contiguous chunks of layers: the bubble becomes (p−1)/(v·m) of the "
    "ideal time instead of (p−1)/m, and the messages between stages grow v times (the formula "
    "as restated at https://vizuaraai.github.io/5d-parallelism-visual-guide/advanced-pipeline-"
    "schedules.html). The planner divides its GPipe idle time by v: with equal stages exactly "
    "(p−1)/(v·m) (tests/planner/test_figures.py).",
    status=CONFIRMED,
    works=("narayanan2021efficient",),
)


def interleaved(ctx: Context) -> Outcome:
    """GPipe-style pipelining with v chunks per node: the bubble shrinks v times (unconfirmed)."""
    inputs = ctx.inputs
    chunks = inputs.chunks
    outcome = layer_split(ctx, inputs.micro_batches)
    outcome.slug = "pipeline-interleaved"
    outcome.name = (
        f"Interleaved pipeline (after the survey), v = {chunks} chunks, M = {inputs.micro_batches}"
    )
    outcome.sources.append(INTERLEAVED)
    for part in ("idle", "communication"):
        outcome.parts.setdefault(part, []).append(INTERLEAVED)
    layers = len(ctx.network.layers)
    if outcome.applicable and inputs.P * chunks > layers:
        return outcome.not_applicable(
            f"P·v = {inputs.P * chunks} chunks, more than the {layers} layers"
        )
    if not outcome.applicable:
        return outcome
    idle, communication = outcome.idle / chunks, outcome.communication * chunks
    outcome.derivations.append(
        Derivation(
            "idle and communication time (interleaved)",
            idle + communication,
            "s",
            INTERLEAVED.formula,
            f"idle {number_text(outcome.idle)} / {chunks} + communication "
            f"{number_text(outcome.communication)} × {chunks}",
            [INTERLEAVED],
        )
    )
    outcome.idle, outcome.communication = idle, communication
    return outcome


def compose(ctx: Context) -> list[Outcome]:
    """GPipe, then 1F1B: the same step time, fewer micro-batches' activations in flight."""
    m = ctx.inputs.micro_batches
    return [layer_split(ctx, m), layer_split(ctx, m, schedule="1f1b")]


# 1F1B is a strategy beside GPipe, not a `schedule` input: the ranking then shows what the
# schedule buys (the memory to fit) at the same step time, without a setting to flip.
FAMILY = Family(
    slug="pipeline",
    name="Pipelining (GPipe and 1F1B)",
    inputs=("batch", "micro_batches", *MACHINE_INPUTS, *VALUE_INPUTS),
    cost_models=("model_parallel.bytes", "pipeline.bubble"),
    strategies=("pipeline", "pipeline-1f1b"),
    compose=compose,
)

INTERLEAVED_FAMILY = Family(
    slug="pipeline-interleaved",
    name="Interleaved pipelining (after the survey)",
    inputs=FAMILY.inputs + ("chunks",),
    cost_models=FAMILY.cost_models,
    strategies=("pipeline-interleaved",),
    compose=lambda ctx: [interleaved(ctx)],
)
