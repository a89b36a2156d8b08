"""The /costs/ page's query parameters (shared with its JSON twins): read, checked against the
bounds of the layer presets and of the formulas, and turned into plain values for the figures.

Pure: the query is a mapping of name -> list of values (a QueryDict's `lists()`). Bad input raises
`ParameterError`, whose message names the parameter and what is allowed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from django import forms

from explorer.costs.presets import DEFAULT_PRESET, FC, FC_SIZES, PRESETS, SIZE_BOUNDS, Layer, Preset
from explorer.costs.records import (
    FC_ONLY,
    CostFormula,
    Operator,
    ParameterError,
)
from explorer.web.forms import (
    ChoiceParameter,
    EveryValue,
    NumberParameter,
    QueryForm,
    QueryParameter,
)
from explorer.web.readers import plain_number
from explorer.web.words import echoed

Query = Mapping[str, Sequence[str]]

SWEEP_POINTS = 80
MAX_POINTS = 200
# Parameters -----------------------------------------------------------------------------------

LAYER_PARAMETERS = ("preset", *SIZE_BOUNDS)
SWEEP_PARAMETERS = ("sweep", "from", "to", "ops")
BRENT_PARAMETERS = ("op", "p_max")
ALLREDUCE_PARAMETERS = ("L", "G", "gamma", "m", "P", "P_min", "P_max", "m_min", "m_max")
PAGE_PARAMETERS = frozenset(
    LAYER_PARAMETERS + SWEEP_PARAMETERS + BRENT_PARAMETERS + ALLREDUCE_PARAMETERS
)
# The parameters each plot reads (plots.build_plot): the others do not change it.
PLOT_PARAMETERS = {
    "wd-plane": LAYER_PARAMETERS,
    "parallelism": LAYER_PARAMETERS + SWEEP_PARAMETERS,
    "brent": LAYER_PARAMETERS + BRENT_PARAMETERS,
    "allreduce-p": ALLREDUCE_PARAMETERS,
    "allreduce-m": ALLREDUCE_PARAMETERS,
}


def plot_query_key(name: str, query: Query) -> str:
    """The parameters `name` reads, as they were given, in one canonical string: two queries
    with the same key draw the same plot."""
    given = [(key, list(query[key])) for key in PLOT_PARAMETERS[name] if key in query]
    return json.dumps(given, separators=(",", ":"))


# Sweepable sizes of the parallelism plot: (bounds, default range, help).
SWEEPS: dict[str, tuple[tuple[int, int], tuple[int, int], str]] = {
    "N": (SIZE_BOUNDS["N"], (1, 1024), "minibatch size N"),
    "C_in": (SIZE_BOUNDS["C_in"], (1, 4096), "input channels C_in"),
    "C_out": (SIZE_BOUNDS["C_out"], (1, 4096), "output channels C_out"),
    "H_out": ((1, 16384), (1, 512), "output size H_out = W_out (the input follows)"),
    "K": (SIZE_BOUNDS["K"], (1, 15), "kernel size K"),
}
ALLREDUCE_RANGES = {"P": (2, 1024), "m": (1, 1e9)}


class PlotsForm(QueryForm):
    """The /costs/ page's parameters, taken by every plot (each uses its own): declared here for
    the check of names and the schema; the functions below read and check their values, against
    bounds that depend on the preset and the formulas."""

    preset = ChoiceParameter(
        "preset",
        PRESETS,
        "preset: a layer preset",
        help_text="Layer preset (default alexnet-conv1); the sizes below override it.",
    )
    sweep = ChoiceParameter("sweep", SWEEPS, "parallelism: size to sweep")
    ops = forms.CharField(
        required=False,
        widget=forms.MultipleHiddenInput,
        help_text="parallelism: operator keys (repeated or comma-separated), e.g. conv-fft, "
        "conv-direct.forward; default: the Table 6 algorithms (convolution) or the fully "
        "connected operators",
    )
    op = QueryParameter("op", help_text="brent: operator key (default conv-direct)")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, (low, high) in SIZE_BOUNDS.items():
            self.fields[name] = NumberParameter(name, low, high, whole=True)
        self.fields["from"] = NumberParameter("from", 1, math.inf, whole=True)
        self.fields["to"] = NumberParameter("to", 1, math.inf, whole=True)
        self.fields["p_max"] = NumberParameter("p_max", 2, math.inf, whole=True)
        for name in ALLREDUCE_PARAMETERS:
            self.fields[name] = NumberParameter(name, -math.inf, math.inf)


def check_known(query) -> None:
    """ParameterError for an unknown or a repeated parameter of a plot."""
    for name, messages in PlotsForm(query).parameter_errors().items():
        raise ParameterError(messages[0], name)


def read(field: QueryParameter, query: Query) -> object:
    """One parameter read by its form field; ParameterError (naming it) when it is bad."""
    values = EveryValue().value_from_datadict(query, {}, field.name)
    try:
        return field.clean(values)
    except forms.ValidationError as error:
        raise ParameterError(error.messages[0], field.name) from None


def query_value(query: Query, name: str) -> str | None:
    """The one non-empty value of `name`, or None. Empty fields count as not given."""
    return read(QueryParameter(name), query)


def read_number(
    query: Query, name: str, low: float, high: float, default: float | None, whole: bool = False
) -> float | None:
    """The number given as ?name=, checked against [low, high]; `default` when not given."""
    return read(NumberParameter(name, low, high, whole=whole, default=default), query)


def layer_from_query(query: Query) -> tuple[Preset, Layer]:
    """The preset named by ?preset= with any sizes the query overrides."""
    slug = query_value(query, "preset") or DEFAULT_PRESET
    if slug not in PRESETS:
        message = f"preset must be one of {', '.join(PRESETS)} (got {echoed(slug)})"
        raise ParameterError(message, "preset")
    preset = PRESETS[slug]
    changes = {}
    for name, (low, high) in SIZE_BOUNDS.items():
        if query_value(query, name) is None:
            continue
        if preset.layer.kind == FC and name not in FC_SIZES:
            raise ParameterError(
                f"{name} does not apply to a fully connected layer (preset {slug}); "
                f"it has only {', '.join(FC_SIZES)}",
                name,
            )
        changes[name] = read_number(query, name, low, high, None, whole=True)
    layer = preset.layer.with_sizes(**changes)
    check_layer(layer)
    return preset, layer


def check_layer(layer: Layer) -> None:
    if layer.H_out < 1 or layer.W_out < 1:
        raise ParameterError(
            f"the kernel (K = {layer.K}) does not fit the padded input "
            f"({layer.H + 2 * layer.pad}×{layer.W + 2 * layer.pad}): the layer has no output"
        )


@dataclass(frozen=True)
class Sweep:
    name: str
    values: list[int]
    layers: list[Layer]


def sweep_from_query(query: Query, layer: Layer) -> Sweep:
    name = query_value(query, "sweep") or "N"
    allowed = [n for n in SWEEPS if layer.kind != FC or n in FC_SIZES]
    if name not in allowed:
        message = f"sweep must be one of {', '.join(allowed)} (got {echoed(name)})"
        raise ParameterError(message, "sweep")
    (low, high), (start, stop), _ = SWEEPS[name]
    start = read_number(query, "from", low, high, start, whole=True)
    stop = read_number(query, "to", low, high, min(max(stop, start + 1), high), whole=True)
    if start >= stop:
        raise ParameterError(f"from must be less than to (got from={start}, to={stop})", "from")
    values = sorted({int(v) for v in np.rint(np.geomspace(start, stop, SWEEP_POINTS))})
    return Sweep(name, values, [_layer_at(layer, name, value) for value in values])


def _layer_at(layer: Layer, name: str, value: int) -> Layer:
    if name == "H_out":
        size = (value - 1) * layer.stride + layer.K - 2 * layer.pad
        if not 1 <= size <= SIZE_BOUNDS["H"][1]:
            raise ParameterError(
                f"H_out = {value} needs an input of {size}×{size} with K = {layer.K}, stride "
                f"{layer.stride} and pad {layer.pad}; the input must be between 1 and "
                f"{SIZE_BOUNDS['H'][1]}: narrow the range",
                "to",
            )
        return layer.with_sizes(H=size, W=size)
    swept = layer.with_sizes(**{name: value})
    try:
        check_layer(swept)
    except ParameterError as error:
        message = f"at {name} = {value}, {error}: narrow the range"
        raise ParameterError(message, "to") from None
    return swept


def operators_from_query(query: Query, available: list[Operator], kind: str) -> list[Operator]:
    """?ops= (repeated or comma-separated keys); by default the Table 6 algorithms for a
    convolution and the fully connected operators for a fully connected layer."""
    usable = {op.key: op for op in available if op.applies_to(kind)}
    keys = [k.strip() for v in query.get("ops", ()) for k in v.split(",") if k.strip()]
    if not keys:
        if kind == FC:
            return [op for op in usable.values() if op.technique in FC_ONLY]
        return [op for op in usable.values() if op.table == "Table 6"]
    unknown = [k for k in keys if k not in usable]
    if unknown:
        raise ParameterError(
            f"ops: unknown operator {', '.join(unknown)} for this layer "
            f"(choose from {', '.join(usable)})",
            "ops",
        )
    return [usable[k] for k in dict.fromkeys(keys)]


def brent_operator_from_query(query: Query, available: list[Operator], kind: str) -> Operator:
    usable = {op.key: op for op in available if op.applies_to(kind)}
    if not usable:
        raise ParameterError("no operator with a work and a depth formula applies to this layer")
    default = "conv-direct" if kind != FC else "fully-connected.forward"
    key = query_value(query, "op") or (default if default in usable else next(iter(usable)))
    if key not in usable:
        raise ParameterError(f"op must be one of {', '.join(usable)} (got {echoed(key)})", "op")
    return usable[key]


def common_bounds(formulas: Sequence[CostFormula], name: str) -> tuple[float, float, float]:
    """(min, max, default) of a variable that all `formulas` can take: the narrowest bounds."""
    variables = [v for f in formulas for v in f.variables if v["name"] == name]
    if not variables:
        raise ParameterError(f"no formula here has a variable {name}")
    low = max(v["min"] for v in variables)
    high = min(v["max"] for v in variables)
    return low, high, min(max(variables[0]["default"], low), high)


def allreduce_settings(query: Query, formulas: Sequence[CostFormula]) -> dict[str, float]:
    settings = {}
    for name in ("L", "G", "gamma", "m", "P"):
        low, high, default = common_bounds(formulas, name)
        settings[name] = read_number(query, name, low, high, default, whole=name == "P")
    for name, (start, stop) in ALLREDUCE_RANGES.items():
        low, high, _ = common_bounds(formulas, name)
        whole = name == "P"
        first = read_number(query, f"{name}_min", low, high, max(start, low), whole)
        last = read_number(query, f"{name}_max", low, high, min(stop, high), whole)
        if first >= last:
            raise ParameterError(
                f"{name}_min must be less than {name}_max (got {plain_number(first)} and "
                f"{plain_number(last)})",
                f"{name}_min",
            )
        settings[f"{name}_min"], settings[f"{name}_max"] = first, last
    return settings


def brent_p_max(query: Query, bounds: Sequence[CostFormula]) -> int | None:
    """?p_max=, within the bounds of the Brent formulas' p (at least 2); None when not given."""
    low, high, _ = common_bounds(bounds, "p")
    return read_number(query, "p_max", max(low, 2), high, None, whole=True)


# /api/cost-models/<id>/evaluate/ ------------------------------------------------------------

SCALES = ("log", "linear")
DEFAULT_SWEEP_POINTS = 50
SWEEP_PARAMETERS = ("sweep", "from", "to", "points", "scale")


class EvaluateForm(QueryForm):
    """One cost model's variables (each within its bounds, its default when not given), or a
    sweep of one of them: from, to (default: the variable's bounds), points and scale."""

    ignored = frozenset({"format"})

    def __init__(self, data, formula: CostFormula) -> None:
        super().__init__(data)
        self.variables = {v["name"]: v for v in formula.variables}
        for name, variable in self.variables.items():
            low, high = variable["min"], variable["max"]
            self.fields[name] = NumberParameter(name, low, high, default=variable["default"])
        known = ", ".join(self.variables) or "none"
        message = f"sweep must be one of this model's variables: {known}"
        self.fields["sweep"] = ChoiceParameter("sweep", self.variables, message)
        # from and to take the swept variable's bounds, set by clean_sweep (cleaned before them).
        self.fields["from"] = NumberParameter("from", -math.inf, math.inf)
        self.fields["to"] = NumberParameter("to", -math.inf, math.inf)
        self.fields["points"] = NumberParameter(
            "points", 2, MAX_POINTS, whole=True, default=DEFAULT_SWEEP_POINTS
        )
        self.fields["scale"] = ChoiceParameter(
            "scale", SCALES, "scale must be log or linear", default="log"
        )

    def clean_sweep(self) -> str | None:
        swept = self.cleaned_data["sweep"]
        if swept is not None:
            low, high = self.variables[swept]["min"], self.variables[swept]["max"]
            for name, default in (("from", low), ("to", high)):
                field = self.fields[name]
                field.low, field.high, field.default = low, high, default
        return swept

    def clean(self) -> dict:
        data = super().clean()
        swept = data.get("sweep")
        if swept is None:
            for name in SWEEP_PARAMETERS[1:]:
                if self.given(name):
                    self.add_error(name, f"{name} needs sweep=<variable>")
            return data
        if self.given(swept):
            self.add_error(swept, f"{swept} is swept: give from and to, not {swept}")
        start, stop = data.get("from"), data.get("to")
        if start is None or stop is None:
            return data
        if start >= stop:
            self.add_error("from", f"from must be less than to (got from={start:g}, to={stop:g})")
        elif data.get("scale") == "log" and start <= 0:
            self.add_error("from", f"from must be greater than 0 on a log scale (got {start:g})")
        return data

    def values(self) -> dict[str, float]:
        """The variables' values, the swept one apart."""
        swept = self.cleaned_data.get("sweep")
        return {name: self.cleaned_data[name] for name in self.variables if name != swept}
