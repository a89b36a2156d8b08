"""The plan's document, typed: what the page and /api/planner/ render, for a network of a layer
table (the survey's CNNs) and for a transformer alike, built in one place (`build`), ranked in one
way (`ranked`), with one tolerance for a computed total beside its paper's figure.

The documents stay dicts (they are the API's JSON); these TypedDicts name their fields, so that
both producers write the same shape and a reader finds each field once.
"""

from __future__ import annotations

import math
from typing import Any, NotRequired, TypedDict

from .machine import Inputs
from .machine_document import machine_document

SHOWN_LAYOUTS = 8  # the layouts the page shows before "more"
DAY = 86400.0


class Comparison(TypedDict):
    quantity: str
    computed: float
    paper: float | None
    paper_text: str
    source: str
    relative_difference: float | None
    within_tolerance: bool | None
    reason: str
    computed_text: NotRequired[str]


class NetworkTotals(TypedDict):
    """The network beside its paper: what both kinds of network show (a layer table adds its
    work, depth and layers; a transformer its configuration and FLOP counts)."""

    slug: str
    name: str
    parameters: float
    flops_per_step: float
    batch: int
    paper: dict[str, Any]
    comparison: list[Comparison]
    tolerance: float
    derivations: list[dict[str, Any]]
    cost_models: list[dict[str, Any]]


class Strategy(TypedDict):
    """One strategy of the registry for this network: its step split, memory, fit and ranking,
    and what it rests on (a transformer's adds its layout, tokens per second and MFU)."""

    slug: str
    name: str
    applicable: bool
    step_time: float | None
    compute_time: float | None
    communication_time: float | None
    exposed_communication_time: float | None
    total_communication_time: float | None
    idle_time: float | None
    memory_per_node: dict[str, float] | None
    fits: bool
    reason: str
    speedup: float | None
    efficiency: float | None
    cost_models: list[dict[str, Any]]
    unconfirmed: list[str]
    unconfirmed_numbers: dict[str, int] | None
    unconfirmed_parts: dict[str, list[str]] | None
    notes: list[str]
    techniques: list[str]
    demos: list[str]
    derivations: list[dict[str, Any]]
    rank: NotRequired[int | None]
    links: NotRequired[dict[str, Any]]


class Plan(TypedDict):
    inputs: dict[str, Any]
    machine: dict[str, Any]
    network: NetworkTotals
    single_node_time: float
    ranking_note: str
    strategies: list[Strategy]
    sensitivity: dict[str, Any]
    layouts: NotRequired[dict[str, Any]]  # a transformer's layout search
    efficiency: NotRequired[dict[str, Any]]  # value, basis, runs (documents.with_efficiency)
    sweep: dict[str, Any] | None


def ranked(strategies: list[Strategy]) -> list[Strategy]:
    """Fastest first among those that apply and fit (ranks 1, 2...), then the others by slug
    (rank None)."""

    def usable(strategy: Strategy) -> bool:
        return bool(strategy["applicable"] and strategy["fits"])

    def key(strategy: Strategy) -> tuple:
        return (not usable(strategy), strategy["step_time"] if usable(strategy) else math.inf)

    ordered = sorted(strategies, key=lambda s: (*key(s), s["slug"]))
    rank = 0
    for strategy in ordered:
        rank += usable(strategy)
        strategy["rank"] = rank if usable(strategy) else None
    return ordered


def build(
    inputs: Inputs,
    network: NetworkTotals,
    single_node_time: float,
    ranking_note: str,
    strategies: list[Strategy],
    sensitivity: dict[str, Any],
    sweep: dict[str, Any] | None,
    layouts: dict[str, Any] | None = None,
) -> Plan:
    """The plan's document, the same shape for every network (`layouts` for a transformer)."""
    document: dict[str, Any] = {
        "inputs": inputs.query(),
        "machine": machine_document(inputs),
        "network": network,
        "single_node_time": single_node_time,
        "ranking_note": ranking_note,
        "strategies": strategies,
        "sensitivity": sensitivity,
    }
    if layouts is not None:
        document["layouts"] = layouts
    document["sweep"] = sweep
    return document  # type: ignore[return-value]
