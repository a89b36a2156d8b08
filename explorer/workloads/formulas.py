"""The catalogue's cost models as the planner uses them: looked up by role, evaluated with the safe
formula language (catalogue.costs), and written out with the reader's values substituted.

The planner never writes a formula of its own into the catalogue's place: every quantity it
computes is one of the formulas below, evaluated at values it states. Where it needs a step the
catalogue does not hold (e.g. a point-to-point message costs L + bytes·G), the step is an
`Assumption` with its own status, shown beside the cost models and flagged like an unconfirmed one.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from catalogue import costs

CONFIRMED = "confirmed"
STANDARD = "standard"
# A formula the planner ranks on is "unconfirmed" unless the catalogue marks it confirmed or a
# standard result: recalled, partial, derived and doubtful rows, and the planner's own
# assumptions, are flagged (a doubtful row is never ranked on silently).
TRUSTED_STATUSES = frozenset({CONFIRMED, STANDARD})

BN = "batch-normalization"
# role -> (technique slug, cost-model label): the catalogue rows the planner composes.
ROLES: dict[str, tuple[str, str]] = {
    "conv.forward.work": ("conv-direct", "Direct convolution (Table 6): work"),
    "conv.forward.depth": ("conv-direct", "Direct convolution (Table 6): depth"),
    "conv.weight_gradient.work": ("conv-direct", "Convolution (direct), weight gradient: work"),
    "conv.input_gradient.work": ("conv-direct", "Convolution (direct), input gradient: work"),
    "conv.input_gradient.depth": ("conv-direct", "Convolution (direct), input gradient: depth"),
    "fc.forward.work": ("fully-connected", "Fully connected, forward: work"),
    "fc.forward.depth": ("fully-connected", "Fully connected, forward: depth"),
    "fc.weight_gradient.work": ("fully-connected", "Fully connected, weight gradient: work"),
    "fc.input_gradient.work": ("fully-connected", "Fully connected, input gradient: work"),
    "fc.input_gradient.depth": ("fully-connected", "Fully connected, input gradient: depth"),
    "pool.forward.work": ("pooling", "Pooling, forward: work"),
    "pool.forward.depth": ("pooling", "Pooling, forward: depth"),
    "pool.input_gradient.work": ("pooling", "Pooling, input gradient: work"),
    "pool.input_gradient.depth": ("pooling", "Pooling, input gradient: depth"),
    "relu.forward.work": ("activation", "Activation, forward: work"),
    "relu.forward.depth": ("activation", "Activation, forward: depth"),
    "relu.input_gradient.work": ("activation", "Activation, input gradient: work"),
    "relu.input_gradient.depth": ("activation", "Activation, input gradient: depth"),
    "bn.forward.work": ("batch-normalization", "Batch normalization, forward: work"),
    "bn.forward.depth": ("batch-normalization", "Batch normalization, forward: depth"),
    "bn.weight_gradient.work": (BN, "Batch normalization, weight gradient: work"),
    "bn.input_gradient.work": (BN, "Batch normalization, input gradient: work"),
    "bn.input_gradient.depth": (BN, "Batch normalization, input gradient: depth"),
    "allreduce.tree": ("allreduce-tree", "Tree allreduce: time"),
    "allreduce.butterfly": ("allreduce-butterfly", "Butterfly allreduce: time"),
    "allreduce.ring": ("allreduce-ring", "Pipelined ring allreduce: time"),
    "allreduce.rabenseifner": ("allreduce-rabenseifner", "Rabenseifner allreduce: time"),
    "parameter_server.time": ("parameter-server", "Parameter server: communication time per step"),
    "data_parallel.bytes": ("data-parallelism", "Data parallelism: bytes sent per worker per step"),
    "model_parallel.bytes": (
        "model-parallelism",
        "Model parallelism: bytes across one layer boundary per step",
    ),
    "pipeline.bubble": ("pipelining", "Pipelining: idle (bubble) fraction of a step"),
    "hybrid.bytes": (
        "hybrid-parallelism",
        "Hybrid (data-parallel conv, model-parallel FC): bytes per worker per step",
    ),
}

# After the survey (fixtures/after_cost_models.json): the transformer planner's roles, apart so
# that the survey's networks need none of them (see the planner's transformers/network.py and
# layouts/).
TRANSFORMER_ROLES: dict[str, tuple[str, str]] = {
    "transformer.flops": (
        "transformer-compute",
        "Transformer training FLOPs per step (generalised)",
    ),
    "transformer.flops.megatron": (
        "transformer-compute",
        "Megatron-LM 2021: FLOPs per iteration, no recomputation",
    ),
    "transformer.flops.megatron_full": (
        "transformer-compute",
        "Megatron-LM 2021: FLOPs per iteration, full recomputation",
    ),
    "transformer.six_nd": ("transformer-compute", "6ND rule: training FLOPs"),
    "tensor.values": (
        "tensor-parallelism",
        "Tensor parallelism (Megatron): values allreduced per layer per micro-batch",
    ),
    "sequence.values": (
        "sequence-parallelism",
        "Sequence parallelism: values exchanged per layer per micro-batch",
    ),
    "activations.none": ("sequence-parallelism", "Activation memory per layer, no parallelism"),
    "activations.tensor": (
        "sequence-parallelism",
        "Activation memory per layer, tensor parallelism",
    ),
    "activations.sequence": (
        "sequence-parallelism",
        "Activation memory per layer, tensor and sequence parallelism",
    ),
    "activations.tensor.selective": (
        "sequence-parallelism",
        "Activation memory per layer, tensor parallelism, selective recomputation",
    ),
    "activations.sequence.selective": (
        "sequence-parallelism",
        "Activation memory per layer, tensor and sequence parallelism, selective recomputation",
    ),
    "activations.full": ("sequence-parallelism", "Activation memory per layer, full recomputation"),
    "pipeline.bubble_1f1b": (
        "pipelining",
        "1F1B and interleaved pipeline: bubble time over ideal time",
    ),
    "expert.values": (
        "expert-parallelism",
        "Expert parallelism: values sent per MoE layer per micro-batch",
    ),
    "expert.all_to_all": ("expert-parallelism", "All-to-all: time"),
}
ALL_ROLES = {**ROLES, **TRANSFORMER_ROLES}

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "cost_models.json"
AFTER_FIXTURE = FIXTURE.with_name("after_cost_models.json")


class CatalogueIncomplete(LookupError):
    """A cost model the planner composes is missing from the catalogue (renamed or deleted)."""


@dataclass(frozen=True)
class CatalogueFormula:
    """One cost model as a plain record (no ORM): what the planner evaluates and cites."""

    id: int | None
    technique: str
    label: str
    formula: str
    status: str
    section: str = ""
    works: tuple[str, ...] = ()
    demo: str = ""

    @property
    def trusted(self) -> bool:
        return self.status in TRUSTED_STATUSES

    def reference(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "technique": self.technique,
            "label": self.label,
            "formula": self.formula,
            "status": self.status,
            "section": self.section,
            "works": list(self.works),
        }


@dataclass(frozen=True)
class Assumption:
    """A step the catalogue has no cost model for; shown and flagged like an unconfirmed one."""

    slug: str
    label: str
    formula: str
    note: str
    status: str = "assumption"
    works: tuple[str, ...] = ()

    def reference(self) -> dict[str, Any]:
        return {
            "id": None,
            "technique": None,
            "label": self.label,
            "formula": self.formula,
            "status": self.status,
            "note": self.note,
            "works": list(self.works),
        }


Source = CatalogueFormula | Assumption


@dataclass
class Derivation:
    """How one number was obtained: the formula, the values put in, the sources."""

    quantity: str
    value: float
    unit: str
    formula: str
    substituted: str
    sources: list[Source] = field(default_factory=list)
    note: str = ""
    values: Mapping[str, Any] | None = None  # when given, `substituted` is written on demand

    def as_dict(self) -> dict[str, Any]:
        substituted = self.substituted
        if self.values is not None:
            substituted = substitute(self.formula, self.values)
        return {
            "quantity": self.quantity,
            "value": self.value,
            "unit": self.unit,
            "formula": self.formula,
            "substituted": substituted,
            "cost_models": [source.reference() for source in self.sources],
            "note": self.note,
        }


Formulas = Mapping[str, CatalogueFormula]


def check_complete(formulas: Formulas, roles: Mapping[str, tuple[str, str]] = ROLES) -> None:
    missing = sorted(role for role in roles if role not in formulas)
    if missing:
        labels = "; ".join(f"{roles[role][0]}: {roles[role][1]!r}" for role in missing)
        raise CatalogueIncomplete(f"the catalogue lacks cost models the planner needs: {labels}")


def by_role(records: Iterable[CatalogueFormula]) -> dict[str, CatalogueFormula]:
    """The records that fill the planner's roles, keyed by role."""
    wanted = {key: role for role, key in ALL_ROLES.items()}
    return {
        wanted[(record.technique, record.label)]: record
        for record in records
        if (record.technique, record.label) in wanted
    }


@functools.cache
def fixture_formulas() -> dict[str, CatalogueFormula]:
    """The roles filled from fixtures/cost_models.json (ids unknown): for tests and benchmarks."""
    items = json.loads(FIXTURE.read_text(encoding="utf-8"))
    items += json.loads(AFTER_FIXTURE.read_text(encoding="utf-8"))
    return by_role(
        CatalogueFormula(
            id=None,
            technique=item["technique"],
            label=item["label"],
            formula=item["formula"],
            status=item["status"],
            section=item.get("section", ""),
        )
        for item in items
    )


@functools.lru_cache(maxsize=256)
def _parsed(text: str, names: tuple[str, ...]) -> costs.Formula:
    return costs.parse(text, names)


def evaluate(record: CatalogueFormula, values: Mapping[str, Any]) -> Any:
    """The formula at `values` (scalars or numpy arrays); FormulaError when it cannot be."""
    parsed = _parsed(record.formula, tuple(sorted(values)))
    used = {name: values[name] for name in parsed.variables}
    return parsed.evaluate(used)


_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def substitute(text: str, values: Mapping[str, Any]) -> str:
    """`text` with each variable replaced by its value, for a derivation a reader can follow."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(0)
        if name not in values:
            return name
        return number_text(values[name])

    return _NAME.sub(replace, text)


def number_text(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return "[" + ", ".join(number_text(v) for v in value.ravel()[:4]) + ", …]"
    number = float(value)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return f"{number:.4g}"
