"""What every strategy family shares: the context (inputs, network, formulas, per-batch costs), the
outcome of one strategy, the shared pieces of composition (memory split, compute, the gradient
exchange, scalar evaluations) and the `Family` a module in this package declares.

The model, stated once (each step is also a shown `Assumption` or a catalogue formula):
- compute: the FLOPs a node runs per step (catalogue work formulas, see networks.py) divided by
  its throughput; one node alone takes T1 = all FLOPs of a minibatch / throughput;
- communication: the data-parallel gradient exchange runs in buckets during the backward pass
  (`overlap`, the default, see exchange.py) and only what outlasts it is exposed; every other
  exchange (pipeline stages, the hybrid's activations, the parameter server) is exposed whole;
- idle: time a node waits in a step (the pipeline bubble and the imbalance of a layer split).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from explorer.workloads.formulas import (
    CONFIRMED,
    TRUSTED_STATUSES,
    Assumption,
    CatalogueFormula,
    Derivation,
    Formulas,
    Source,
    evaluate,
    number_text,
)
from explorer.workloads.network_model import NetworkModel, from_layer_table
from explorer.workloads.networks import FLOP_ASSUMPTION, LayerCosts, Network, layer_costs_many

from ..machine import Inputs
from ..shape import Strategy

NO_OVERLAP = Assumption(
    "no-overlap",
    "Communication is not overlapped with computation",
    "exposed communication = communication time",
    "A pessimistic, simple bound where no overlap is modelled (or `overlap=false`): real "
    "systems hide part of the exchange behind the backward pass.",
)


POINT_TO_POINT = Assumption(
    "point-to-point",
    "One message of b bytes costs L + b·G",
    "L + b*G",
    "The LogP model without o and g that the catalogue's allreduce formulas use [53]; here for "
    "single messages between pipeline stages and the activation exchanges of the hybrid.",
)


REDUCTION = Assumption(
    "communication-reduction",
    "Gradient compression as a modifier on the gradient exchange",
    "m' = density*m, gamma' = bits/8 (+ 4 bytes of index per value when density < 1)",
    "Quantization sends `bits` per value instead of 8·gamma; sparsification sends the largest "
    "`density`·m values with a 4-byte index each. The exchange keeps its algorithm and the "
    "compressed size on every step: optimistic, since summing sparse vectors fills them in. "
    "Effects on convergence are not modelled (see the quantization and sparsification demos).",
)

PRECISION = Assumption(
    "precision-bytes",
    "Bytes per value by kind: weights, gradients, optimizer state (K), activations, messages",
    "fp32: all γ, K = optimizer values·γ; mixed: 2, 2, K = 4 + 4·optimizer values, 2, 2",
    "Mixed-precision training keeps fp16 (or bf16) weights, gradients and activations and, per "
    "parameter, an fp32 master copy and fp32 optimizer moments: K = 12 bytes for Adam, as ZeRO "
    "counts it (Rajbhandari et al., SC 2020, §3.1 and Figure 1, arXiv 1910.02054: (2 + 2 + K)Ψ "
    "bytes of model states). Each size may be given explicitly.",
    status=CONFIRMED,
    works=("rajbhandari2020zero",),
)
STRIDED_GRADIENT_NOTE = (
    "The catalogue's input-gradient work row for convolutions counts the output size H'·W' (a "
    "transposed convolution, the forward's work), so a strided layer's backward is about twice "
    "its forward, not stride² times (corrected; the row's status is a standard result)."
)


@dataclass
class Context:
    """What every strategy needs: the inputs, the network, its formulas and per-batch costs."""

    inputs: Inputs
    network: Network
    formulas: Formulas
    _costs: dict[float, LayerCosts] = field(default_factory=dict)  # may be shared by a sweep
    _stages: dict[int, list[np.ndarray]] = field(default_factory=dict)
    memo: dict[tuple, float] = field(default_factory=dict)  # scalar evaluations, see sweep

    def costs(self, batch: float) -> LayerCosts:
        if batch not in self._costs:
            self.prime([batch])
        return self._costs[batch]

    def prime(self, batches) -> None:
        """Compute the layer costs of several minibatch sizes in one vectorised pass."""
        missing = sorted({float(b) for b in batches} - self._costs.keys())
        if missing:
            computed = layer_costs_many(self.network, self.formulas, missing)
            self._costs.update(zip(missing, computed, strict=True))

    def stages(self) -> list[np.ndarray]:
        """The best contiguous split of the layers over the P nodes (by FLOPs)."""
        p = self.inputs.P
        if p not in self._stages:
            self._stages[p] = partition(self.costs(self.inputs.batch).flops, p)
        return self._stages[p]

    @functools.cached_property
    def model(self) -> NetworkModel:
        """The network model at the step's minibatch (its layers' FLOPs, parameters and
        activations)."""
        return from_layer_table(self.network, self.costs(self.inputs.batch))

    @property
    def single_node_time(self) -> float:
        return self.model.single_device_time(self.inputs.achieved_flops)

    @functools.cached_property
    def activations(self) -> np.ndarray:
        return self.model.activations

    @functools.cached_property
    def parameters(self) -> np.ndarray:
        return self.model.parameters

    @property
    def exchanged(self) -> np.ndarray:
        """Values per sample each layer sends on when the network is split after it."""
        return self.model.exchanged

    def compute_sources(self) -> list[Source]:
        return list(self.costs(self.inputs.batch).used.values()) + [FLOP_ASSUMPTION]

    def work_sources(self) -> list[Source]:
        """What a compute time rests on: the work formulas (not the depths) and the FLOPs per
        operation."""
        used = self.costs(self.inputs.batch).used
        return [record for role, record in used.items() if role.endswith(".work")] + [
            FLOP_ASSUMPTION
        ]


@dataclass
class Outcome:
    slug: str
    name: str
    techniques: tuple[str, ...]
    demos: tuple[str, ...]
    compute: float = 0.0
    communication: float = 0.0  # exposed: what the step waits for
    hidden: float = 0.0  # communication overlapped with the backward pass
    idle: float = 0.0
    memory: dict[str, float] = field(default_factory=dict)
    applicable: bool = True
    reason: str = ""
    sources: list[Source] = field(default_factory=list)
    derivations: list[Derivation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Each part of the step time ("compute", "communication", "idle") -> the sources it rests on,
    # for the sensitivity of the ranking to the unconfirmed ones.
    parts: dict[str, list[Source]] = field(default_factory=dict)

    @property
    def step(self) -> float:
        return self.compute + self.communication + self.idle

    def not_applicable(self, reason: str) -> Outcome:
        self.applicable, self.reason = False, reason
        return self


# Shared pieces ---------------------------------------------------------------------------------


MEMORY_PARTS = ("weights", "gradients", "optimizer_state", "activations", "buffers")


def memory_split(
    inputs: Inputs,
    parameters: float,
    activation_values: float,
    gradients: float | None = None,
    buffers: float = 0.0,
) -> dict[str, float]:
    """Bytes per node: each kind of value at its own size (`Inputs.sizes`); `buffers` are bytes
    held beside the model states (ZeRO-3's gathered layer)."""
    sizes = inputs.sizes
    split = {
        "weights": parameters * sizes.weights,
        "gradients": (parameters if gradients is None else gradients) * sizes.gradients,
        "optimizer_state": parameters * sizes.optimizer,
        "activations": activation_values * sizes.activations,
        "buffers": buffers,
    }
    split["total"] = memory_total(split)
    return split


def memory_total(split: dict[str, float]) -> float:
    return sum(split[part] for part in MEMORY_PARTS)


def memory_derivation(inputs: Inputs, memory: dict[str, float], what: str) -> Derivation:
    sizes = inputs.sizes
    return Derivation(
        "memory per node",
        memory["total"],
        "bytes",
        "weights·b_w + gradients·b_g + weights·K + stored activations·b_a + buffers",
        f"{inputs.precision}, {inputs.optimizer}: b_w = {sizes.weights}, b_g = {sizes.gradients}, "
        f"K = {sizes.optimizer}, b_a = {sizes.activations} bytes; {what}; "
        f"{number_text(memory['total'] / 1e9)} GB of {number_text(inputs.memory_gb)} GB",
        [PRECISION],
        note="Does not fit." if memory["total"] > inputs.memory else "Fits.",
    )


def compute_derivation(ctx: Context, flops: float, what: str) -> Derivation:
    inputs = ctx.inputs
    return Derivation(
        "compute time",
        flops / inputs.achieved_flops,
        "s",
        "FLOPs per node / (peak throughput · efficiency)",
        f"{number_text(flops)} FLOPs ({what}) / ({number_text(inputs.flops)} FLOP/s · "
        f"{number_text(inputs.efficiency)})",
        ctx.compute_sources(),
        note=STRIDED_GRADIENT_NOTE,
    )


def gradient_exchange_values(inputs: Inputs, elements: float) -> tuple[dict[str, float], list]:
    """The allreduce variables for a gradient of `elements` values, with the reduction applied."""
    message_bytes = inputs.sizes.messages
    reduced = inputs.value_bits < 8 * message_bytes or inputs.density < 1
    gamma = inputs.value_bits / 8 + (4 if inputs.density < 1 else 0)
    values = {
        "P": float(inputs.P),
        "L": inputs.latency,
        "G": inputs.G,
        "gamma": gamma if reduced else float(message_bytes),
        "m": elements * inputs.density,
        "S": float(inputs.servers),
    }
    return values, [REDUCTION] if reduced else []


def memo_key(record: CatalogueFormula, values: dict[str, float]) -> tuple:
    return (record.formula, tuple(sorted(values.items())))


def evaluated(
    record: CatalogueFormula,
    values: dict[str, float],
    quantity: str,
    unit: str,
    memo: dict[tuple, float] | None = None,
):
    """The formula at scalar `values` with its derivation; a sweep may have evaluated it already,
    for all its P at once (`memo`)."""
    value = (memo or {}).get(memo_key(record, values))
    if value is None:
        value = float(evaluate(record, values))
    derivation = Derivation(quantity, value, unit, record.formula, "", [record], values=values)
    return value, derivation


ALLREDUCE_NAMES = {
    "ring": "pipelined ring",
    "tree": "tree",
    "butterfly": "butterfly",
    "rabenseifner": "Rabenseifner",
}


def partition(weights: np.ndarray, parts: int) -> list[np.ndarray]:
    """A split of the layers into at most `parts` contiguous stages with the least largest stage."""
    if parts >= len(weights):
        return [np.array([i]) for i in range(len(weights))]
    total = [0.0, *np.cumsum(weights).tolist()]
    low, high = float(weights.max()), total[-1]
    while high - low > 1e-9 * high:  # bisection on the largest stage's weight
        cap = (low + high) / 2
        if len(_greedy(total, cap)) <= parts:
            high = cap
        else:
            low = cap
    return [np.arange(start, end) for start, end in _greedy(total, high)]


def _greedy(total: list[float], cap: float) -> list[tuple[int, int]]:
    """Stages filled in order up to `cap`; `total` is the running sum of the weights from 0."""
    stages, start, layers = [], 0, len(total) - 1
    while start < layers:
        # the furthest end whose stage weight stays within the cap (at least one layer)
        end = max(bisect.bisect_right(total, total[start] + cap * (1 + 1e-12)) - 1, start + 1)
        stages.append((start, end))
        start = end
    return stages


# The inputs (fields of `Inputs`) every family reads, for their declarations.
MACHINE_INPUTS = (
    "P",
    "flops",
    "efficiency",
    "memory_gb",
    "latency_us",
    "bandwidth_gbs",
    "devices_per_node",
    "intra_latency_us",
    "intra_bandwidth_gbs",
    "recompute",
)
OVERLAP_INPUTS = ("overlap", "bucket_mb")
VALUE_INPUTS = (
    "precision",
    "optimizer",
    "gamma",
    "optimizer_values",
    "weight_bytes",
    "gradient_bytes",
    "optimizer_bytes",
    "message_bytes",
)
REDUCTION_INPUTS = ("bits", "density")


@dataclass(frozen=True)
class Family:
    """A family of strategies, as one module of this package declares it: the inputs it reads
    (fields of `Inputs`), the catalogue cost models it composes (formula roles), the slugs of the
    strategies it yields, in display order, and its composition (a context to outcomes)."""

    slug: str
    name: str
    inputs: tuple[str, ...]
    cost_models: tuple[str, ...]
    strategies: tuple[str, ...]
    compose: Callable[[Context], list[Outcome]]
    exchange_roles: tuple[str, ...] = ()  # gradient exchanges a sweep evaluates for all P at once


def unconfirmed_numbers(outcome: Outcome) -> dict[str, int]:
    """How many of the strategy's numbers (its derivations) rest on at least one unconfirmed
    formula or assumption, out of how many."""
    resting = sum(
        any(source.status not in TRUSTED_STATUSES for source in d.sources)
        for d in outcome.derivations
    )
    return {"unconfirmed": resting, "numbers": len(outcome.derivations)}


STEP_PARTS = ("compute", "communication", "idle")


def unconfirmed_parts(outcome: Outcome) -> dict[str, list[str]]:
    """For each part of the step time, the unconfirmed formulas and assumptions it rests on."""
    return {
        part: sorted(
            {s.label for s in outcome.parts.get(part, ()) if s.status not in TRUSTED_STATUSES}
        )
        for part in STEP_PARTS
    }


def describe(outcome: Outcome, ctx: Context, detailed: bool = True) -> Strategy:
    """An outcome as the API shows it (before ranking); a sweep point needs no derivations."""
    single = ctx.single_node_time
    fits = outcome.applicable and outcome.memory.get("total", 0.0) <= ctx.inputs.memory
    speedup = single / outcome.step if outcome.applicable and outcome.step > 0 else None
    unique = list({id(s): s for s in outcome.sources}.values()) if detailed else []
    unconfirmed = [s.label for s in unique if s.status not in TRUSTED_STATUSES]
    reason = outcome.reason
    if outcome.applicable and not fits:
        reason = (
            f"does not fit: {number_text(outcome.memory['total'] / 1e9)} GB per node, "
            f"{number_text(ctx.inputs.memory_gb)} GB available"
        )
    return {
        "slug": outcome.slug,
        "name": outcome.name,
        "applicable": outcome.applicable,
        "step_time": outcome.step if outcome.applicable else None,
        "compute_time": outcome.compute if outcome.applicable else None,
        "communication_time": outcome.communication if outcome.applicable else None,
        "exposed_communication_time": outcome.communication if outcome.applicable else None,
        "total_communication_time": (
            outcome.communication + outcome.hidden if outcome.applicable else None
        ),
        "idle_time": outcome.idle if outcome.applicable else None,
        "memory_per_node": outcome.memory or None,
        "fits": fits,
        "reason": reason,
        "speedup": speedup,
        "efficiency": speedup / ctx.inputs.P if speedup is not None else None,
        "cost_models": [s.reference() for s in unique],
        "unconfirmed": unconfirmed,
        "unconfirmed_numbers": unconfirmed_numbers(outcome) if detailed else None,
        "unconfirmed_parts": unconfirmed_parts(outcome) if detailed else None,
        "notes": outcome.notes,
        "techniques": list(outcome.techniques),
        "demos": list(outcome.demos),
        "derivations": [d.as_dict() for d in outcome.derivations] if detailed else [],
    }
