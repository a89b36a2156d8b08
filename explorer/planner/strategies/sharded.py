"""Sharded data parallelism after the survey: ZeRO's three stages (Rajbhandari et al., SC 2020)."""

from __future__ import annotations

from explorer.workloads.formulas import CONFIRMED, Assumption, Derivation, number_text

from ..machine import ByteSizes
from .base import (
    MACHINE_INPUTS,
    OVERLAP_INPUTS,
    REDUCTION_INPUTS,
    VALUE_INPUTS,
    Context,
    Family,
    Outcome,
    memory_derivation,
    memory_total,
)
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
    "The memory per stage is ZeRO's own rule (§5, Figure 1 and Table 1 of arXiv 1910.02054, "
    "https://arxiv.org/abs/1910.02054: (2+2+K)Ψ, 2Ψ+2Ψ+KΨ/N_d, 2Ψ+(2+K)Ψ/N_d, (2+2+K)Ψ/N_d "
    "with 2-byte weights and gradients), reproduced by the planner's tests; not a catalogue "
    "cost model.",
    status=CONFIRMED,
    works=("rajbhandari2020zero",),
)
GATHERED_LAYER = Assumption(
    "zero3-gathered-layer",
    "ZeRO-3 holds the largest layer gathered whole (its weights and gradients) on every device",
    "buffers = largest layer's parameters · (b_w + b_g)",
    "DeepSpeed's estimator, estimate_zero3_model_states_mem_needs in "
    "deepspeed/runtime/zero/stage3.py (https://github.com/deepspeedai/DeepSpeed), counts "
    "4 · largest_layer_params bytes on each GPU beside 18·Ψ/N (no offload): the fp16 weights and "
    "gradients of the layer being computed. The prefetch of the next layers (DeepSpeed's "
    "stage3_prefetch_bucket_size) is not counted, as the estimator does not count it.",
    status=CONFIRMED,
    works=("rajbhandari2020zero",),
)
SHARDS = {
    0: (),
    1: ("optimizer_state",),
    2: ("optimizer_state", "gradients"),
    3: ("optimizer_state", "gradients", "weights"),
}


def zero_model_states(
    parameters: float, sizes: ByteSizes, stage: int, devices: int
) -> dict[str, float]:
    """ZeRO's model states per device (bytes) at `stage` (0: plain data parallelism) over
    `devices`: Ψ·b_w weights, Ψ·b_g gradients and Ψ·K optimizer state, the stage's shards
    divided by N_d. With b_w = b_g = 2, K = 12: (2+2+K)Ψ, 2Ψ+2Ψ+KΨ/N_d, 2Ψ+(2+K)Ψ/N_d,
    (2+2+K)Ψ/N_d, ZeRO's Figure 1."""
    states = {
        "weights": parameters * sizes.weights,
        "gradients": parameters * sizes.gradients,
        "optimizer_state": parameters * sizes.optimizer,
    }
    for part in SHARDS[stage]:
        states[part] /= devices
    return states


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
        gather = 0.5 * (outcome.communication + outcome.hidden)
        outcome.communication += gather
        outcome.parts["communication"].append(ZERO)
        outcome.derivations.append(
            Derivation(
                "communication time (stage 3)",
                outcome.communication,
                "s",
                "exposed gradient exchange + 0.5 · ring allreduce time (all of it exposed)",
                f"3Ψ instead of 2Ψ: the parameters are gathered before use, "
                f"{number_text(gather)} s not overlapped",
                [ZERO],
                note="The parameter gathers are counted exposed: their prefetch is not modelled.",
            )
        )
    parameters = float(ctx.parameters.sum())
    shards = SHARDS[stage]
    memory = dict(outcome.memory)
    memory.update(zero_model_states(parameters, inputs.sizes, stage, inputs.P))
    if stage == 3:
        largest = float(ctx.parameters.max())
        memory["buffers"] = largest * (inputs.sizes.weights + inputs.sizes.gradients)
        outcome.sources.append(GATHERED_LAYER)
        outcome.derivations.append(
            Derivation(
                "buffers (the gathered largest layer)",
                memory["buffers"],
                "bytes",
                GATHERED_LAYER.formula,
                f"{number_text(largest)} · ({inputs.sizes.weights} + {inputs.sizes.gradients})",
                [GATHERED_LAYER],
            )
        )
    memory["total"] = memory_total(memory)
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
    inputs=("batch", *MACHINE_INPUTS, *VALUE_INPUTS, *REDUCTION_INPUTS, *OVERLAP_INPUTS),
    cost_models=("allreduce.ring",),
    strategies=("zero-1", "zero-2", "zero-3"),
    compose=lambda ctx: [zero(ctx, stage) for stage in (1, 2, 3)],
)
