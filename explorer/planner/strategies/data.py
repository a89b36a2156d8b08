"""Data parallelism: each node holds the whole model, runs N/P samples and exchanges the gradient
by a parameter server or one of the catalogue's allreduce algorithms (in buckets overlapped with
the backward pass unless `overlap=false`; the parameter server's push and pull are not)."""

from __future__ import annotations

import dataclasses

import numpy as np

from explorer.workloads.formulas import number_text

from .activations import (
    activation_sources,
    kept_activations,
    recompute_derivation,
    recompute_flops,
)
from .base import (
    ALLREDUCE_NAMES,
    MACHINE_INPUTS,
    OVERLAP_INPUTS,
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

EXCHANGES = ("ps", "ring", "tree", "butterfly", "rabenseifner")
ROLES = {"ps": "parameter_server.time", **{name: f"allreduce.{name}" for name in EXCHANGES[1:]}}


def _outcome(exchange: str) -> Outcome:
    if exchange == "ps":
        return Outcome(
            "data-ps",
            "Data parallelism, parameter server",
            ("data-parallelism", "parameter-server"),
            ("allreduce-vs-ps", "data-parallel"),
        )
    return Outcome(
        f"data-{exchange}",
        f"Data parallelism, {ALLREDUCE_NAMES[exchange]} allreduce",
        ("data-parallelism", f"allreduce-{exchange}"),
        ("allreduce-vs-ps", "data-parallel"),
    )


def data_parallel(ctx: Context, exchange: str) -> Outcome:
    """Each node holds the whole model, runs N/P samples and exchanges the gradient. ZeRO's
    three stages start from the ring's outcome: composed once per P, a copy each."""
    key = ("data-parallel", ctx.inputs.P, exchange)
    if key not in ctx.memo:
        ctx.memo[key] = _data_parallel(ctx, exchange)
    return _copy(ctx.memo[key])


def _copy(outcome: Outcome) -> Outcome:
    return dataclasses.replace(
        outcome,
        memory=dict(outcome.memory),
        sources=list(outcome.sources),
        derivations=list(outcome.derivations),
        notes=list(outcome.notes),
        parts={part: list(sources) for part, sources in outcome.parts.items()},
    )


def _data_parallel(ctx: Context, exchange: str) -> Outcome:
    inputs = ctx.inputs
    outcome = _outcome(exchange)
    if inputs.batch < inputs.P:
        return outcome.not_applicable(
            f"fewer samples (N = {inputs.batch}) than nodes (P = {inputs.P})"
        )
    samples = inputs.batch / inputs.P
    per_node = ctx.costs(samples)
    forward = float(per_node.forward_flops.sum())
    extra = recompute_flops(ctx, forward)
    compute = compute_derivation(
        ctx, float(per_node.flops.sum()) + extra, f"N/P = {number_text(samples)}"
    )
    outcome.compute = compute.value
    outcome.derivations.append(compute)
    outcome.sources += compute.sources
    outcome.parts["compute"] = ctx.work_sources()
    if extra:
        outcome.derivations.append(recompute_derivation(ctx, extra, "N/P samples"))
        outcome.parts["compute"] += outcome.derivations[-1].sources
    layers = np.arange(len(ctx.network.layers))
    # The recomputed forward pass runs inside the backward pass: it lengthens what hides buckets.
    backward = (per_node.backward_flops + (per_node.forward_flops if extra else 0.0)) / (
        inputs.achieved_flops
    )
    result = gradient_exchange(ctx, ROLES[exchange], layers, backward, exchange != "ps")
    exchange_into(outcome, result)
    if exchange == "ps":
        outcome.notes.append(
            f"S = {inputs.servers} server shards, not counted among the P nodes; the servers' "
            "memory is not counted; the push and pull are not overlapped."
        )
    activations = kept_activations(ctx, layers, samples)
    outcome.memory = memory_split(inputs, float(ctx.parameters.sum()), activations)
    outcome.derivations.append(
        memory_derivation(
            inputs, outcome.memory, f"whole model, activations of N/P samples ({_kept(ctx)})"
        )
    )
    outcome.derivations[-1].sources += activation_sources(ctx)
    return outcome


def _kept(ctx: Context) -> str:
    if ctx.inputs.recompute == "full":
        return "full recomputation: segment inputs and one segment's outputs"
    return "every layer's outputs"


def compose(ctx: Context) -> list[Outcome]:
    return [data_parallel(ctx, name) for name in EXCHANGES]


FAMILY = Family(
    slug="data",
    name="Data parallelism",
    inputs=(
        "batch",
        *MACHINE_INPUTS,
        *VALUE_INPUTS,
        "servers",
        *REDUCTION_INPUTS,
        *OVERLAP_INPUTS,
    ),
    cost_models=tuple(ROLES.values()),
    strategies=tuple(f"data-{name}" for name in EXCHANGES),
    compose=compose,
    exchange_roles=tuple(ROLES.values()),
)
