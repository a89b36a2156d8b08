"""Data parallelism: each node holds the whole model, runs N/P samples and exchanges the gradient
by a parameter server or one of the catalogue's allreduce algorithms."""

from __future__ import annotations

from ..formulas import number_text
from .base import (
    ALLREDUCE_NAMES,
    MACHINE_INPUTS,
    NO_OVERLAP,
    REDUCTION_INPUTS,
    VALUE_INPUTS,
    Context,
    Family,
    Outcome,
    compute_derivation,
    exchange_time,
    gradient_exchange_values,
    memory_derivation,
    memory_split,
)

EXCHANGES = ("ps", "ring", "tree", "butterfly", "rabenseifner")
ROLES = {"ps": "parameter_server.time", **{name: f"allreduce.{name}" for name in EXCHANGES[1:]}}


def data_parallel(ctx: Context, exchange: str) -> Outcome:
    """Each node holds the whole model, runs N/P samples and exchanges the gradient."""
    inputs = ctx.inputs
    if exchange == "ps":
        outcome = Outcome(
            "data-ps",
            "Data parallelism, parameter server",
            ("data-parallelism", "parameter-server"),
            ("allreduce-vs-ps", "data-parallel"),
        )
        role = "parameter_server.time"
    else:
        outcome = Outcome(
            f"data-{exchange}",
            f"Data parallelism, {ALLREDUCE_NAMES[exchange]} allreduce",
            ("data-parallelism", f"allreduce-{exchange}"),
            ("allreduce-vs-ps", "data-parallel"),
        )
        role = f"allreduce.{exchange}"
    if inputs.batch < inputs.P:
        return outcome.not_applicable(
            f"fewer samples (N = {inputs.batch}) than nodes (P = {inputs.P})"
        )
    per_node = ctx.costs(inputs.batch / inputs.P)
    flops = float(per_node.flops.sum())
    compute = compute_derivation(ctx, flops, f"N/P = {number_text(inputs.batch / inputs.P)}")
    outcome.compute = compute.value
    outcome.derivations.append(compute)
    outcome.sources += compute.sources + [NO_OVERLAP]
    values, reduction = gradient_exchange_values(inputs, float(ctx.parameters.sum()))
    outcome.communication = exchange_time(outcome, ctx.formulas[role], values, reduction, ctx)
    if exchange == "ps":
        outcome.notes.append(
            f"S = {inputs.servers} server shards, not counted among the P nodes; the servers' "
            "memory is not counted."
        )
    activations = float(ctx.activations.sum()) * inputs.batch / inputs.P
    outcome.memory = memory_split(inputs, float(ctx.parameters.sum()), activations)
    outcome.derivations.append(
        memory_derivation(inputs, outcome.memory, "whole model, activations of N/P samples")
    )
    return outcome


def compose(ctx: Context) -> list[Outcome]:
    return [data_parallel(ctx, name) for name in EXCHANGES]


FAMILY = Family(
    slug="data",
    name="Data parallelism",
    inputs=("batch", *MACHINE_INPUTS, *VALUE_INPUTS, "servers", *REDUCTION_INPUTS),
    cost_models=tuple(ROLES.values()),
    strategies=tuple(f"data-{name}" for name in EXCHANGES),
    compose=compose,
    exchange_roles=tuple(ROLES.values()),
)
