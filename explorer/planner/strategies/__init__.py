"""Scaling strategies, each a composition of the catalogue's cost models, for one network on one
machine: time per step split into compute, exposed communication and idle time, and memory per
node split into weights, gradients, optimizer state and activations.

One registry (registry.py) for every network: one module per family of the survey networks'
strategies, each declaring a `Family` (its inputs, its cost models, the strategies it yields and
its composition), and the transformers' layout families (layout_families.py: data, ZeRO, tensor,
sequence, pipelines, expert, 3-D), each entry with the kinds of network it applies to and why
not the others. The shared model and pieces are in `base`.

The interface for the planner (pure: no ORM, no request):

- ``FAMILIES``: the registry, in display order; ``STRATEGY_SLUGS``: every strategy's slug, in
  that order.
- ``Context(inputs, network, formulas)``; ``all_outcomes(ctx)``: each family's composition, in
  order; ``describe(outcome, ctx)``: an outcome as the API shows it; ``prime_exchanges(ctx, P)``:
  a sweep's exchanges evaluated for all its P at once.
"""

from __future__ import annotations

import numpy as np

from explorer.workloads.formulas import evaluate

from .base import (
    Context,
    Family,
    Outcome,
    describe,
    memo_key,
    memory_split,
    partition,
)
from .data import data_parallel
from .exchange import bucket_sizes, level_key, levels
from .hybrid import fc_boundary_width, hybrid_bytes
from .model import gpipe_makespan, layer_split
from .pipeline import interleaved
from .registry import ALL_STRATEGY_SLUGS, FAMILIES, REGISTRY, families_for_layer_tables
from .sharded import zero

# The slugs of the survey networks' strategies, in display order (every slug a query may name,
# the transformers' too: ALL_STRATEGY_SLUGS, the registry's).
STRATEGY_SLUGS: tuple[str, ...] = tuple(slug for f in FAMILIES for slug in f.strategies)

EXCHANGE_ROLES: tuple[str, ...] = tuple(
    dict.fromkeys(role for f in FAMILIES for role in f.exchange_roles)
)


def prime_exchanges(ctx: Context, points: list[int]) -> None:
    """Evaluate the gradient-exchange formulas for every P of a sweep at once (P an array, the
    buckets a second axis) and keep each row under the key its own evaluation would have: the
    same numbers, one evaluation per formula and level instead of one per P."""
    is_fc = np.array([row["kind"] == "fc" for row in ctx.network.layers])
    everything, conv = np.arange(len(is_fc)), np.flatnonzero(~is_fc)
    exchanges = [(everything, role, role != "parameter_server.time") for role in EXCHANGE_ROLES]
    exchanges.append((conv, f"allreduce.{ctx.inputs.allreduce}", True))
    groups: dict[tuple[str, int], list[dict]] = {}
    for layers, role, overlap in exchanges:
        sizes = bucket_sizes(ctx, layers, overlap)
        for p in points:
            if p > 1:
                for level_role, _, values in levels(ctx.inputs.with_p(p), role, sizes):
                    groups.setdefault((level_role, len(sizes)), []).append(values)
    for (role, count), rows in groups.items():
        record = ctx.formulas[role]
        # P and the link vary by row (a column), the bucket sizes by column (the same each row).
        arrays = {
            name: np.array([v[name] for v in rows])[:, None] for name in rows[0] if name != "m"
        }
        arrays["m"] = np.array([v["m"] for v in rows])
        results = np.broadcast_to(evaluate(record, arrays), (len(rows), count))
        for values, result in zip(rows, results, strict=True):
            ctx.memo[level_key(record.formula, values)] = result
    _prime_bubbles(ctx, points)


def _prime_bubbles(ctx: Context, points: list[int]) -> None:
    bubble = ctx.formulas["pipeline.bubble"]
    stage_counts = sorted({float(min(p, len(ctx.network.layers))) for p in points})
    for m in {1.0, float(ctx.inputs.micro_batches)}:
        counts = {"P": np.array(stage_counts), "M": np.full(len(stage_counts), m)}
        results = np.broadcast_to(evaluate(bubble, counts), (len(stage_counts),))
        for count, result in zip(stage_counts, results, strict=True):
            ctx.memo[memo_key(bubble, {"P": count, "M": m})] = float(result)


def all_outcomes(ctx: Context) -> list[Outcome]:
    inputs = ctx.inputs
    ctx.prime([inputs.batch, inputs.batch / inputs.P, inputs.batch / inputs.micro_batches])
    return [outcome for family in families_for_layer_tables() for outcome in family.compose(ctx)]


__all__ = [
    "ALL_STRATEGY_SLUGS",
    "EXCHANGE_ROLES",
    "FAMILIES",
    "REGISTRY",
    "STRATEGY_SLUGS",
    "Context",
    "Family",
    "Outcome",
    "all_outcomes",
    "data_parallel",
    "describe",
    "fc_boundary_width",
    "gpipe_makespan",
    "hybrid_bytes",
    "interleaved",
    "layer_split",
    "memory_split",
    "partition",
    "prime_exchanges",
    "zero",
]
