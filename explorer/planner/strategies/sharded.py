"""Sharded data parallelism after the survey: ZeRO's three stages (Rajbhandari et al., SC 2020)."""

from __future__ import annotations

from ..formulas import Assumption, Derivation
from .base import Context, Family, Outcome, memory_derivation
from .data import data_parallel

ZERO = Assumption(
    "zero-sharding",
    "ZeRO-DP: optimizer state, gradients, then parameters sharded over the P nodes",
    "stage 1: W + G + O/P; stage 2: W + (G + O)/P; stage 3: (W + G + O)/P; "
    "stage 3 exchanges 1.5 times data parallelism's volume",
    "After the survey: Rajbhandari et al., ZeRO (SC 2020). Its three stages partition, "
    "cumulatively, the optimizer states, the gradients and the parameters over the N_d "
    "data-parallel devices (transcribed at https://junaidaliop.github.io/zij/math/zero/); "
    "partitioning the parameters costs 3Ψ of communication against 2Ψ for data parallelism "
    "(https://vuink.com/post/aa-d-dynozy-d-dnv/scaling/zero3/index-d-dhtml), the first two "
    "stages keep its volume (https://lelepado01.github.io/FoundationModel4ClimateNotes/zero.html). "
    "The memory per stage is what the stages' definition implies; not a catalogue cost model.",
    status="after the survey",
    works=("rajbhandari2020zero",),
)


def zero(ctx: Context, stage: int) -> Outcome:
    """Data parallelism with a ring allreduce, its model state sharded as ZeRO's `stage` says."""
    outcome = data_parallel(ctx, "ring")
    outcome.slug = f"zero-{stage}"
    outcome.name = f"ZeRO stage {stage} (after the survey): sharded data parallelism"
    outcome.sources.append(ZERO)
    if not outcome.applicable:
        return outcome
    inputs = ctx.inputs
    if stage == 3 and inputs.P > 1:
        outcome.communication *= 1.5
        outcome.derivations.append(
            Derivation(
                "communication time (stage 3)",
                outcome.communication,
                "s",
                "1.5 · ring allreduce time",
                "3Ψ instead of 2Ψ: the parameters are gathered before use",
                [ZERO],
            )
        )
    parameters = float(ctx.parameters.sum())
    shards = {1: ("optimizer_state",), 2: ("optimizer_state", "gradients")}.get(
        stage, ("optimizer_state", "gradients", "weights")
    )
    memory = dict(outcome.memory)
    for part in shards:
        memory[part] /= inputs.P
    memory["total"] = sum(
        memory[p] for p in ("weights", "gradients", "optimizer_state", "activations")
    )
    outcome.memory = memory
    outcome.derivations = [d for d in outcome.derivations if d.quantity != "memory per node"]
    outcome.derivations.append(
        memory_derivation(
            inputs, memory, f"stage {stage}: {', '.join(shards)} divided by P = {inputs.P}"
        )
    )
    outcome.notes.append(
        f"After the survey ({parameters:,.0f} parameters): ZeRO [rajbhandari2020zero]."
    )
    return outcome


FAMILY = Family(
    slug="sharded-data",
    name="Sharded data parallelism (ZeRO, after the survey)",
    inputs=("batch", "P", "flops", "latency", "G", "gamma", "optimizer_values", "bits", "density"),
    cost_models=("allreduce.ring",),
    strategies=("zero-1", "zero-2", "zero-3"),
    compose=lambda ctx: [zero(ctx, stage) for stage in (1, 2, 3)],
)
