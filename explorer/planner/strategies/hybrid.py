"""The hybrid of Krizhevsky's "one weird trick" [135]: convolutional layers data-parallel, fully
connected layers model-parallel."""

from __future__ import annotations

import numpy as np

from explorer.workloads.formulas import Derivation, evaluate, number_text, substitute
from explorer.workloads.networks import Network

from .activations import activation_sources, kept_activations, recompute_derivation, recompute_flops
from .base import (
    ALLREDUCE_NAMES,
    MACHINE_INPUTS,
    NO_OVERLAP,
    OVERLAP_INPUTS,
    POINT_TO_POINT,
    REDUCTION_INPUTS,
    VALUE_INPUTS,
    Context,
    Family,
    Outcome,
    compute_derivation,
    memory_derivation,
    memory_split,
)
from .exchange import exchange_into, gradient_exchange


def fc_boundary_width(network: Network, p: int) -> float:
    """Values per sample exchanged by the model-parallel FC layers (the catalogue's C_fc): every FC
    layer's input is gathered from all nodes, and the logits go back to each sample's node."""
    fc = network.rows("fc")
    return sum(row["C_in"] for row in fc) + fc[-1]["C_out"] / p


def hybrid(ctx: Context) -> Outcome:
    """Convolutional layers data-parallel, fully connected layers model-parallel [135]."""
    inputs, network = ctx.inputs, ctx.network
    algorithm = inputs.allreduce
    outcome = Outcome(
        "hybrid",
        f"Hybrid: conv data-parallel ({ALLREDUCE_NAMES[algorithm]} allreduce), FC model-parallel",
        ("hybrid-parallelism", f"allreduce-{algorithm}"),
        ("hybrid-one-weird-trick",),
    )
    if inputs.batch < inputs.P:
        return outcome.not_applicable(
            f"fewer samples (N = {inputs.batch}) than nodes (P = {inputs.P})"
        )
    if not network.rows("fc"):  # Network-in-Network ends on convolutions
        return outcome.not_applicable("no fully connected layers to split between nodes")
    is_fc = np.array([row["kind"] == "fc" for row in network.layers])
    m_conv = float(ctx.parameters[~is_fc].sum())
    m_fc = float(ctx.parameters[is_fc].sum())
    whole = ctx.costs(inputs.batch)
    forward = float(whole.forward_flops.sum()) / inputs.P
    extra = recompute_flops(ctx, forward)
    compute = compute_derivation(ctx, float(whole.flops.sum()) / inputs.P + extra, "all FLOPs / P")
    outcome.compute = compute.value
    outcome.derivations.append(compute)
    outcome.sources += compute.sources
    outcome.parts["compute"] = ctx.work_sources()
    if extra:
        outcome.derivations.append(recompute_derivation(ctx, extra, "all forward FLOPs / P"))
        outcome.parts["compute"] += activation_sources(ctx)
    # The conv gradients are exchanged in buckets during the conv layers' backward pass.
    conv = np.flatnonzero(~is_fc)
    backward = ctx.costs(inputs.batch / inputs.P).backward_flops[conv] / inputs.achieved_flops
    role = f"allreduce.{algorithm}"
    exchange_into(outcome, gradient_exchange(ctx, role, conv, backward, True))
    activations = _activation_exchange(ctx, outcome, m_conv, is_fc)
    outcome.communication += activations
    outcome.parts["communication"] += [NO_OVERLAP]
    samples = inputs.batch / inputs.P
    kept = kept_activations(ctx, np.arange(len(network.layers)), samples)
    outcome.memory = memory_split(inputs, m_conv + m_fc / inputs.P, kept)
    outcome.derivations.append(
        memory_derivation(
            inputs,
            outcome.memory,
            "conv weights whole, FC weights / P; activations of N/P samples",
        )
    )
    outcome.derivations[-1].sources += activation_sources(ctx)
    return outcome


def hybrid_bytes(ctx: Context, m_conv: float) -> tuple[float, dict[str, float]]:
    """Bytes per worker per step: the catalogue's hybrid formula at this network's sizes."""
    inputs = ctx.inputs
    values = {
        "gamma": float(inputs.sizes.messages),
        "m_conv": m_conv,
        "N": float(inputs.batch),
        "C_fc": fc_boundary_width(ctx.network, inputs.P),
        "P": float(inputs.P),
    }
    return float(evaluate(ctx.formulas["hybrid.bytes"], values)), values


def _activation_exchange(ctx: Context, outcome: Outcome, m_conv: float, is_fc) -> float:
    inputs = ctx.inputs
    if inputs.P == 1:
        return 0.0
    total, values = hybrid_bytes(ctx, m_conv)
    gradient_part = float(evaluate(ctx.formulas["data_parallel.bytes"], {**values, "m": m_conv}))
    exchanges = int(is_fc.sum()) + 1
    messages = 2 * exchanges * (inputs.P - 1)
    activation_bytes = total - gradient_part
    time = messages * inputs.latency + activation_bytes * inputs.G
    hybrid_record = ctx.formulas["hybrid.bytes"]
    outcome.derivations.append(
        Derivation(
            "bytes per worker per step (hybrid)",
            total,
            "bytes",
            hybrid_record.formula,
            substitute(hybrid_record.formula, values),
            [hybrid_record],
            note=f"C_fc = Σ FC inputs + last FC outputs / P = {number_text(values['C_fc'])}.",
        )
    )
    outcome.derivations.append(
        Derivation(
            "activation exchange time",
            time,
            "s",
            "messages·L + (hybrid bytes − gradient bytes)·G",
            f"{messages}·{number_text(inputs.latency)} + ({number_text(total)} − "
            f"{number_text(gradient_part)})·{number_text(inputs.G)}",
            [hybrid_record, ctx.formulas["data_parallel.bytes"], POINT_TO_POINT],
            note=f"{exchanges} exchanges (into each FC layer, logits back), each forward and "
            "backward, P−1 messages per node each.",
        )
    )
    used = [hybrid_record, ctx.formulas["data_parallel.bytes"], POINT_TO_POINT]
    outcome.sources += used
    outcome.parts.setdefault("communication", []).extend(used)
    return time


FAMILY = Family(
    slug="hybrid",
    name="Hybrid (conv data-parallel, FC model-parallel)",
    inputs=(
        "batch",
        "allreduce",
        *MACHINE_INPUTS,
        *VALUE_INPUTS,
        *REDUCTION_INPUTS,
        *OVERLAP_INPUTS,
    ),
    cost_models=(
        "allreduce.ring",
        "allreduce.tree",
        "allreduce.butterfly",
        "allreduce.rabenseifner",
        "hybrid.bytes",
        "data_parallel.bytes",
    ),
    strategies=("hybrid",),
    compose=lambda ctx: [hybrid(ctx)],
)
