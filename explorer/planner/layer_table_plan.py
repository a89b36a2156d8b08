"""The plan of a network given by its layer table (the survey's CNNs): the network's totals beside
its paper, the registry's strategies for layer tables ranked with their derivations, and a sweep
of step time and efficiency against P. Numbers in, dicts out; no ORM."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from explorer.workloads.agreement import TOLERANCE
from explorer.workloads.formulas import Formulas, check_complete
from explorer.workloads.network_model import from_layer_table
from explorer.workloads.networks import networks, paper_comparison, totals

from .machine import Inputs, PlannerInputError
from .sensitivity import sensitivity
from .shape import NetworkTotals, Plan, Strategy, build, ranked
from .strategies import Context, all_outcomes, describe, prime_exchanges

RANKING_NOTE = (
    "Ranked by step time among the strategies that fit in memory, fastest first. Every strategy's "
    "compute time uses the catalogue's backward-pass work rows, which are recalled (not checked "
    "against the survey); strategies are marked with every unconfirmed formula they rest on."
)


def network_document(inputs: Inputs, formulas: Formulas, ctx: Context) -> NetworkTotals:
    network = networks()[inputs.network]
    computed = totals(network, formulas, inputs.batch, (ctx.costs(inputs.batch), ctx.costs(1)))
    model = from_layer_table(network, ctx.costs(inputs.batch)).totals
    figures = network.paper_figures
    return {
        "slug": network.slug,
        "name": network.name,
        "parameters": round(model.parameters),  # an integer count
        "forward_work": computed["forward_work"],
        "backward_work": computed["backward_work"],
        "forward_multiply_adds": computed["forward_multiply_adds"],
        "depth": computed["depth"],
        "average_parallelism": computed["average_parallelism"],
        "activations_per_sample": model.activations_per_sample,
        "flops_per_step": model.flops_per_step,
        "batch": inputs.batch,
        "paper": {
            "work": network.key,
            "ref": network.ref,
            "url": network.paper_url,
            "parameters": figures.get("parameters"),
            "parameters_text": figures.get("parameters_text", ""),
            "forward_multiply_adds": figures.get("multiply_adds"),
            "forward_multiply_adds_text": figures.get("multiply_adds_text", ""),
            "layers_source": network.layers_source,
            "paper_batch": network.batch,
        },
        "comparison": paper_comparison(network, computed),
        "tolerance": TOLERANCE,
        "layers": list(network.layers),
        "derivations": computed["derivations"],
        "cost_models": computed["cost_models"],
    }


def strategies_at(
    inputs: Inputs, formulas: Formulas, primer: Context | None = None, detailed: bool = True
) -> tuple[list[Strategy], float]:
    ctx = Context(inputs, networks()[inputs.network], formulas)
    if primer is not None:  # a sweep: share what the primer computed for all P at once
        ctx._costs, ctx.memo = primer._costs, primer.memo
    described = [describe(outcome, ctx, detailed) for outcome in all_outcomes(ctx)]
    return described, ctx.single_node_time


def sweep_points(inputs: Inputs) -> list[int]:
    """`sweep_points` values of P from 1 to `sweep_max`, evenly spaced on a log scale."""
    count, top = inputs.sweep_points, inputs.sweep_max
    points = {round(top ** (i / (count - 1))) for i in range(count)}
    return sorted(points | {1})


class _Identity:
    """A key part equal only to itself's value (the catalogue's formulas, one object per
    catalogue version): a memo keyed on it never serves another version's answer."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value


# The efficiency of the inputs at another P (the planner's calibrated default), or None.
EfficiencyAt = Callable[[Inputs], float] | None


@functools.lru_cache(maxsize=256)
def _sweep(inputs: Inputs, formulas: _Identity, efficiency_at: EfficiencyAt) -> dict[str, Any]:
    return _sweep_uncached(inputs, formulas.value, efficiency_at)


def sweep(inputs: Inputs, formulas: Formulas, efficiency_at: EfficiencyAt = None) -> dict[str, Any]:
    """Step time and efficiency of every strategy at each P of the sweep (None where a strategy
    does not apply; `fits` says where it runs out of memory). With `efficiency_at` (the
    efficiency calibrated for each P's batch per device) each point is the planner's answer at
    that P; without, every point is at the inputs' efficiency. Either way it does not depend on
    the query's own P, so queries that differ only in P share it (memoised in process; callers
    must not mutate it)."""
    at_one = inputs.with_p(1)
    if efficiency_at is not None:  # the key: the rest of the inputs decide every point's value
        at_one = replace(at_one, efficiency=efficiency_at(at_one))
    return _sweep(at_one, _Identity(formulas), efficiency_at)


def _sweep_uncached(
    inputs: Inputs, formulas: Formulas, efficiency_at: EfficiencyAt
) -> dict[str, Any]:
    points = sweep_points(inputs)
    series: dict[str, dict[str, Any]] = {}
    primer = Context(inputs, networks()[inputs.network], formulas)
    primer.prime(batches_needed(inputs, points))
    prime_exchanges(primer, points)
    for p in points:
        at_p = inputs.with_p(p)
        if efficiency_at is not None:
            at_p = replace(at_p, efficiency=efficiency_at(at_p))
        strategies, _ = strategies_at(at_p, formulas, primer, detailed=False)
        for strategy in strategies:
            entry = series.setdefault(
                strategy["slug"],
                {"name": strategy["name"], "step_time": [], "efficiency": [], "fits": []},
            )
            entry["step_time"].append(strategy["step_time"])
            entry["efficiency"].append(strategy["efficiency"])
            entry["fits"].append(strategy["fits"])
    return {"P": points, "strategies": series}


def batches_needed(inputs: Inputs, points: list[int]) -> list[float]:
    """Every minibatch size whose layer costs an answer uses: the whole minibatch, one sample
    (the paper's per-sample figures), a micro-batch, and N/P for each P."""
    sizes = [inputs.batch, 1, inputs.batch / inputs.micro_batches, inputs.batch / inputs.P]
    return sizes + [inputs.batch / p for p in points]


def plan(
    inputs: Inputs,
    formulas: Formulas,
    with_sweep: bool = True,
    efficiency_at: EfficiencyAt = None,
) -> Plan:
    if inputs.recompute == "selective":
        raise PlannerInputError(
            "recompute=selective (the attention scores only, Korthikanti et al.) applies to "
            f"transformer networks; for {inputs.network} choose none or full"
        )
    check_complete(formulas)
    # One context computes every layer cost the answer needs in one vectorised pass.
    ctx = Context(inputs, networks()[inputs.network], formulas)
    ctx.prime(batches_needed(inputs, []))
    strategies, single = strategies_at(inputs, formulas, ctx)
    strategies = ranked(strategies)
    return build(
        inputs,
        network_document(inputs, formulas, ctx),
        single,
        RANKING_NOTE,
        strategies,
        sensitivity(strategies),
        sweep(inputs, formulas, efficiency_at) if with_sweep else None,
    )
