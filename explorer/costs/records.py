"""The cost models as plain records (`CostFormula`, and `Operator`: a work and a depth formula
paired), and the one place that copies them out of the database (`cost_formulas`).

Apart from those two loaders, pure: the formulas are evaluated with `catalogue.costs`, and a value
outside a variable's bounds raises `ParameterError`, whose message names the variable.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Prefetch

from catalogue.costs import Formula, parse
from catalogue.models import CostModel, Work
from explorer.costs.presets import FC, Layer
from explorer.web.readers import bounds_message

CONFIRMED = "confirmed"
DOUBTFUL = "doubtful"
TABLE_COLOURS = {"Table 4": "#2457a6", "Table 6": "#c0392b"}

# Names on the label of each operator point, in the survey's notation (y, ∇w, ∇x).
SHORT_NAMES = {
    "activation": "act",
    "fully-connected": "FC",
    "conv-direct": "direct",
    "conv-im2col": "im2col",
    "conv-fft": "FFT",
    "conv-winograd": "Winograd",
    "pooling": "pool",
    "batch-normalization": "BN",
}
EVAL_SYMBOLS = {"forward": "y", "weight-gradient": "∇w", "input-gradient": "∇x"}
# Operators that act on the layer's output tensor N×C_out×H_out×W_out (C, H, W in their
# formulas), as they follow a convolution or fully connected layer in a network.
OUTPUT_TENSOR_OPERATORS = frozenset({"activation", "pooling", "batch-normalization"})
FC_ONLY = frozenset({"fully-connected"})
CONV_ONLY = frozenset({"pooling"})  # and every conv-* technique


class ParameterError(ValueError):
    """A query parameter that is unknown, malformed or out of bounds; the message says which,
    and `parameter` names it when there is one to name."""

    def __init__(self, message: str, parameter: str = "") -> None:
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True)
class CostFormula:
    """One cost model, copied out of the database."""

    id: int
    technique: str
    technique_name: str
    quantity: str
    eval: str
    label: str
    formula: str
    variables: tuple[dict, ...]
    status: str
    status_label: str = ""
    status_note: str = ""
    section: str = ""
    unit: str = ""
    asymptotic: bool = False
    works: tuple[str, ...] = ()

    @functools.cached_property
    def parsed(self) -> Formula:
        return parsed_formula(self.formula, tuple(v["name"] for v in self.variables))

    @property
    def confirmed(self) -> bool:
        return self.status == CONFIRMED

    @property
    def doubtful(self) -> bool:
        """A source prints it but it is probably wrong (the status note says why): plots flag it
        and never rank on it as if it held."""
        return self.status == DOUBTFUL

    @property
    def table(self) -> str:
        return next((t for t in TABLE_COLOURS if t in self.section), "")

    def summary(self) -> dict:
        return {
            "id": self.id,
            "label": self.label,
            "formula": self.formula,
            "status": self.status,
            "status_label": self.status_label or self.status,
            "status_note": self.status_note,
            "confirmed": self.confirmed,
            "doubtful": self.doubtful,
            "section": self.section,
            "unit": self.unit,
            "asymptotic": self.asymptotic,
        }

    def evaluate(self, values: Mapping[str, float | np.ndarray]) -> tuple[float | np.ndarray, dict]:
        """The formula at `values` (defaults for the variables not given); ParameterError when a
        value is outside its variable's bounds. Returns the value and the values used."""
        used = {}
        for variable in self.variables:
            name = variable["name"]
            value = values.get(name, variable["default"])
            low, high = np.min(value), np.max(value)
            if low < variable["min"] or high > variable["max"]:
                bad = low if low < variable["min"] else high
                message = bounds_message(name, variable["min"], variable["max"], bad)
                raise ParameterError(message, name)
            used[name] = value
        return self.parsed.evaluate(used), used


@functools.lru_cache(maxsize=2048)
def parsed_formula(text: str, variables: tuple[str, ...]) -> Formula:
    """A formula parsed once per process: a Formula never changes, and a page evaluates dozens
    (parsing each on every request was a tenth of /costs/)."""
    return parse(text, variables)


@dataclass(frozen=True)
class Operator:
    """A work formula and a depth formula of the same technique and evaluation (one table)."""

    work: CostFormula
    depth: CostFormula
    works: tuple[str, ...] = field(default=())

    @property
    def technique(self) -> str:
        return self.work.technique

    @property
    def key(self) -> str:
        return f"{self.technique}.{self.work.eval}" if self.work.eval else self.technique

    @property
    def table(self) -> str:
        return self.work.table

    @property
    def label(self) -> str:
        label = self.work.label
        return label.removesuffix(": work") if label.endswith(": work") else self.key

    @property
    def short_label(self) -> str:
        name = SHORT_NAMES.get(self.technique, self.work.technique_name)
        if self.table == "Table 6":
            return f"{name} (T6)"
        return f"{name} {EVAL_SYMBOLS.get(self.work.eval, self.work.eval)}".strip()

    @property
    def confirmed(self) -> bool:
        return self.work.confirmed and self.depth.confirmed

    @property
    def doubtful(self) -> list[CostFormula]:
        return [f for f in (self.work, self.depth) if f.doubtful]

    def applies_to(self, kind: str) -> bool:
        conv_only = self.technique.startswith("conv-") or self.technique in CONV_ONLY
        if kind == FC:
            return not conv_only
        return self.technique not in FC_ONLY

    def at(self, layer: Layer) -> tuple[float, float, dict]:
        """(W, D, values of the variables that came from the formulas' defaults)."""
        values = layer_values(layer, self.technique)
        work, used_w = self.work.evaluate(values)
        depth, used_d = self.depth.evaluate(values)
        defaults = {k: v for k, v in (used_w | used_d).items() if k not in values}
        return work, depth, defaults


def operators(formulas: Iterable[CostFormula]) -> list[Operator]:
    """The Table 4 and Table 6 models that pair a work and a depth formula, in fixture order."""
    pairs: dict[tuple[str, str, str], dict[str, CostFormula]] = {}
    for formula in formulas:
        if formula.table and formula.quantity in ("work", "depth"):
            key = (formula.technique, formula.eval, formula.table)
            pairs.setdefault(key, {}).setdefault(formula.quantity, formula)
    return [
        Operator(pair["work"], pair["depth"], works=tuple(dict.fromkeys(pair["work"].works)))
        for pair in pairs.values()
        if "work" in pair and "depth" in pair
    ]


def layer_values(layer: Layer, technique: str) -> dict[str, float]:
    """The formula variables at `layer`. Winograd's r is K (square kernels) and its tile count
    P = N·⌈H_out/m⌉·⌈W_out/m⌉ (a RECALLED definition, FACTS.md §2.3)."""
    values = {
        "N": layer.N,
        "C_in": layer.C_in,
        "C_out": layer.C_out,
        "H": layer.H,
        "W": layer.W,
        "H_out": layer.H_out,
        "W_out": layer.W_out,
        "K_x": layer.K,
        "K_y": layer.K,
        "r": layer.K,
        "m_tile": layer.m_tile,
        "P_tiles": layer.tiles,
    }
    if technique in OUTPUT_TENSOR_OPERATORS:
        output = {"C": layer.C_out, "H": layer.H_out, "W": layer.W_out}
        values |= output | {"K_x": layer.pool, "K_y": layer.pool}
    return {name: float(value) for name, value in values.items()}


# From the database ----------------------------------------------------------------------------


def cost_formulas() -> list[CostFormula]:
    """Every cost model as a plain record, with its works and its technique's: three queries."""
    only_keys = Work.objects.only("key", "survey_ref").order_by("survey_ref", "key")
    models = CostModel.objects.select_related("technique").prefetch_related(
        Prefetch("works", queryset=only_keys),
        Prefetch("technique__works", queryset=only_keys),
    )
    return [cost_formula(model) for model in models]


def cost_formula(model: CostModel, with_works: bool = True) -> CostFormula:
    works = []
    if with_works:
        works = [w.key for w in model.technique.works.all()] + [w.key for w in model.works.all()]
    return CostFormula(
        id=model.pk,
        technique=model.technique.slug,
        technique_name=model.technique.name,
        quantity=model.quantity,
        eval=model.eval,
        label=model.label,
        formula=model.formula,
        variables=tuple(v for v in model.variables if isinstance(v, dict)),
        status=model.status,
        status_label=model.get_status_display(),
        status_note=model.status_note,
        section=model.section,
        unit=model.unit,
        asymptotic=model.asymptotic,
        works=tuple(dict.fromkeys(works)),
    )
