"""The W-D plots of /costs/: query parameters in, numbers and Plotly figure dicts out.

Pure: no ORM, no request. The caller loads the cost models as `CostFormula` records and passes
the query string as a mapping of name -> list of values (a QueryDict's `lists()`). Bad input
raises `ParameterError` (or `FormulaError` from the formula language), whose message names the
parameter and what is allowed; the views answer 400 with it.

Plots (each also an API twin at /api/costs/plots/<name>/):
- wd-plane: every operator of Tables 4 and 6 that has a work and a depth formula, as a point
  (x = work W, y = depth D) at one layer configuration;
- parallelism: average parallelism W/D of chosen operators as one layer size is swept;
- brent: Brent's bounds max(W/p, D) <= T_p <= W/p + D against p for one operator;
- allreduce-p and allreduce-m: allreduce time of each algorithm against P and against m.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from catalogue.costs import Formula, FormulaError, parse
from explorer.costs.presets import (
    DEFAULT_PRESET,
    FC,
    FC_SIZES,
    PRESETS,
    SIZE_BOUNDS,
    Layer,
    Preset,
)

Query = Mapping[str, Sequence[str]]

SWEEP_POINTS = 80
CURVE_POINTS = 120
MAX_POINTS = 200
CONFIRMED = "confirmed"
TABLE_COLOURS = {"Table 4": "#2457a6", "Table 6": "#c0392b"}
LINE_COLOURS = ["#2457a6", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#16a085", "#7f8c8d"]
DOUBT_COLOUR = "#b07d00"

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


# The cost models, as plain records ------------------------------------------------------------


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
        return parse(self.formula, [v["name"] for v in self.variables])

    @property
    def confirmed(self) -> bool:
        return self.status == CONFIRMED

    @property
    def doubtful(self) -> bool:
        """The fixtures call a formula "doubtful" when FACTS.md says to check it before use."""
        return "doubtful" in self.status_note.lower()

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


# Parameters -----------------------------------------------------------------------------------

LAYER_PARAMETERS = ("preset", *SIZE_BOUNDS)
SWEEP_PARAMETERS = ("sweep", "from", "to", "ops")
BRENT_PARAMETERS = ("op", "p_max")
ALLREDUCE_PARAMETERS = ("L", "G", "gamma", "m", "P", "P_min", "P_max", "m_min", "m_max")
PAGE_PARAMETERS = frozenset(
    LAYER_PARAMETERS + SWEEP_PARAMETERS + BRENT_PARAMETERS + ALLREDUCE_PARAMETERS
)

# Sweepable sizes of the parallelism plot: (bounds, default range, help).
SWEEPS: dict[str, tuple[tuple[int, int], tuple[int, int], str]] = {
    "N": (SIZE_BOUNDS["N"], (1, 1024), "minibatch size N"),
    "C_in": (SIZE_BOUNDS["C_in"], (1, 4096), "input channels C_in"),
    "C_out": (SIZE_BOUNDS["C_out"], (1, 4096), "output channels C_out"),
    "H_out": ((1, 16384), (1, 512), "output size H_out = W_out (the input follows)"),
    "K": (SIZE_BOUNDS["K"], (1, 15), "kernel size K"),
}
ALLREDUCE_RANGES = {"P": (2, 1024), "m": (1, 1e9)}


def bounds_message(name: str, low: float, high: float, got: object) -> str:
    return f"{name} must be between {low:g} and {high:g} (got {_plain_number(got)})"


def _plain_number(value: object) -> str:
    if isinstance(value, str):
        return value
    value = float(value)
    return f"{value:g}" if not value.is_integer() or abs(value) >= 1e16 else str(int(value))


def check_known(query: Query, allowed: Iterable[str]) -> None:
    unknown = sorted(set(query) - set(allowed))
    if unknown:
        names = ", ".join(unknown)
        raise ParameterError(f"unknown parameter {names} (allowed: {', '.join(sorted(allowed))})")


def query_value(query: Query, name: str) -> str | None:
    """The one non-empty value of `name`, or None. Empty fields count as not given."""
    values = [value.strip() for value in query.get(name, ()) if value.strip()]
    if len(values) > 1:
        raise ParameterError(f"{name} is given {len(values)} times; give it once", name)
    return values[0] if values else None


def read_number(
    query: Query, name: str, low: float, high: float, default: float | None, whole: bool = False
) -> float | None:
    """The number given as ?name=, checked against [low, high]; `default` when not given."""
    raw = query_value(query, name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    kind = "a whole number" if whole else "a number"
    if not math.isfinite(value) or (whole and not value.is_integer()):
        message = f"{name} must be {kind} between {low:g} and {high:g} (got {raw!r})"
        raise ParameterError(message, name)
    if not low <= value <= high:
        raise ParameterError(bounds_message(name, low, high, raw), name)
    return int(value) if whole else value


def layer_from_query(query: Query) -> tuple[Preset, Layer]:
    """The preset named by ?preset= with any sizes the query overrides."""
    slug = query_value(query, "preset") or DEFAULT_PRESET
    if slug not in PRESETS:
        raise ParameterError(f"preset must be one of {', '.join(PRESETS)} (got {slug!r})")
    preset = PRESETS[slug]
    changes = {}
    for name, (low, high) in SIZE_BOUNDS.items():
        if query_value(query, name) is None:
            continue
        if preset.layer.kind == FC and name not in FC_SIZES:
            raise ParameterError(
                f"{name} does not apply to a fully connected layer (preset {slug}); "
                f"it has only {', '.join(FC_SIZES)}"
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
        raise ParameterError(f"sweep must be one of {', '.join(allowed)} (got {name!r})")
    (low, high), (start, stop), _ = SWEEPS[name]
    start = read_number(query, "from", low, high, start, whole=True)
    stop = read_number(query, "to", low, high, min(max(stop, start + 1), high), whole=True)
    if start >= stop:
        raise ParameterError(f"from must be less than to (got from={start}, to={stop})")
    values = sorted({int(v) for v in np.rint(np.geomspace(start, stop, SWEEP_POINTS))})
    return Sweep(name, values, [_layer_at(layer, name, value) for value in values])


def _layer_at(layer: Layer, name: str, value: int) -> Layer:
    if name == "H_out":
        size = (value - 1) * layer.stride + layer.K - 2 * layer.pad
        if not 1 <= size <= SIZE_BOUNDS["H"][1]:
            raise ParameterError(
                f"H_out = {value} needs an input of {size}×{size} with K = {layer.K}, stride "
                f"{layer.stride} and pad {layer.pad}; the input must be between 1 and "
                f"{SIZE_BOUNDS['H'][1]}: narrow the range"
            )
        return layer.with_sizes(H=size, W=size)
    swept = layer.with_sizes(**{name: value})
    try:
        check_layer(swept)
    except ParameterError as error:
        raise ParameterError(f"at {name} = {value}, {error}: narrow the range") from None
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
            f"(choose from {', '.join(usable)})"
        )
    return [usable[k] for k in dict.fromkeys(keys)]


def brent_operator_from_query(query: Query, available: list[Operator], kind: str) -> Operator:
    usable = {op.key: op for op in available if op.applies_to(kind)}
    if not usable:
        raise ParameterError("no operator with a work and a depth formula applies to this layer")
    default = "conv-direct" if kind != FC else "fully-connected.forward"
    key = query_value(query, "op") or (default if default in usable else next(iter(usable)))
    if key not in usable:
        raise ParameterError(f"op must be one of {', '.join(usable)} (got {key!r})")
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
                f"{name}_min must be less than {name}_max (got {_plain_number(first)} and "
                f"{_plain_number(last)})"
            )
        settings[f"{name}_min"], settings[f"{name}_max"] = first, last
    return settings


# Numbers -------------------------------------------------------------------------------------


def crossovers(x: Sequence[float], curves: Mapping[str, Sequence[float | None]]) -> list[dict]:
    """Where two sampled curves cross: where their difference changes sign between neighbouring
    usable samples, interpolated linearly in log x (or the sample where they are equal).
    Samples that are None or not finite are skipped, and curves that only touch do not cross.
    Returns {a, b, x, y} sorted by x."""
    xs = np.asarray(x, dtype=float)
    names = list(curves)
    found = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ya, yb = _array(curves[a]), _array(curves[b])
            difference = ya - yb
            usable = [
                j for j in range(len(xs)) if np.isfinite(difference[j]) and difference[j] != 0
            ]
            for j, k in zip(usable, usable[1:], strict=False):
                if np.sign(difference[j]) == np.sign(difference[k]):
                    continue
                zeros = [i for i in range(j + 1, k) if difference[i] == 0]
                if zeros:  # the curves meet on a sample: that is the crossing
                    crossing, y = float(xs[zeros[0]]), float(ya[zeros[0]])
                else:  # interpolate between the samples, across any gap
                    t = difference[j] / (difference[j] - difference[k])
                    crossing = math.exp(math.log(xs[j]) + t * (math.log(xs[k]) - math.log(xs[j])))
                    y = ya[j] + t * (ya[k] - ya[j])
                found.append({"a": a, "b": b, "x": float(crossing), "y": float(y)})
    return sorted(found, key=lambda c: c["x"])


def _array(values: Sequence[float | None]) -> np.ndarray:
    return np.array([math.nan if v is None else v for v in values], dtype=float)


def _finite_list(values: Iterable[float]) -> list[float | None]:
    """JSON-safe: NaN and infinities become None (null), which Plotly leaves as a gap."""
    return [float(v) if v is not None and math.isfinite(v) else None for v in values]


def format_number(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.4g}"


def _status_phrase(formula: CostFormula) -> str:
    phrase = formula.status_label or formula.status
    return phrase if formula.confirmed else f"{phrase}, not confirmed"


# (a) The W-D plane ---------------------------------------------------------------------------

WD_PLANE_DESCRIPTION = (
    "Each point is one operator of Table 4 or convolution algorithm of Table 6 at the chosen "
    "layer: x is its work W and y its depth D, both on log scales; dotted diagonals are lines "
    "of constant average parallelism W/D."
)


def wd_plane(available: list[Operator], preset: Preset, layer: Layer) -> dict:
    points, not_drawn = [], []
    for op in available:
        if not op.applies_to(layer.kind):
            continue
        try:
            work, depth, defaults = op.at(layer)
        except (ParameterError, FormulaError) as error:
            not_drawn.append({"key": op.key, "label": op.label, "reason": str(error)})
            continue
        if depth <= 0 or work <= 0:
            reason = f"the depth formula gives {format_number(depth)} at these sizes"
            if work <= 0:
                reason = f"the work formula gives {format_number(work)} at these sizes"
            not_drawn.append({"key": op.key, "label": op.label, "reason": reason})
            continue
        points.append(_point(op, work, depth, defaults))
    figure = _wd_figure(points, _layer_title(preset, layer))
    used = [f for op in available if op.applies_to(layer.kind) for f in (op.work, op.depth)]
    return _result(
        "wd-plane", WD_PLANE_DESCRIPTION, figure, used, points=points, not_drawn=not_drawn
    )


def _point(op: Operator, work: float, depth: float, defaults: dict) -> dict:
    return {
        "key": op.key,
        "label": op.label,
        "short_label": op.short_label,
        "technique": op.technique,
        "technique_name": op.work.technique_name,
        "eval": op.work.eval,
        "table": op.table,
        "work": work,
        "depth": depth,
        "parallelism": work / depth,
        "confirmed": op.confirmed,
        "doubtful": [f.label for f in op.doubtful],
        "work_formula": op.work.summary(),
        "depth_formula": op.depth.summary(),
        "works": list(op.works),
        "defaults": defaults,
    }


def _hover(point: dict) -> str:
    lines = [
        # Labels such as "Direct convolution (Table 6)" already name their table.
        f"<b>{point['label']}</b>"
        + ("" if point["table"] in point["label"] else f" ({point['table']})"),
        f"{point['technique_name']}",
        f"W = {format_number(point['work'])} ({_summary_status(point['work_formula'])})",
        f"D = {format_number(point['depth'])} ({_summary_status(point['depth_formula'])})",
        f"W/D = {format_number(point['parallelism'])}",
        "works: " + (", ".join(point["works"]) or "none linked"),
    ]
    if point["defaults"]:
        lines.append("defaults: " + ", ".join(f"{k} = {v:g}" for k, v in point["defaults"].items()))
    lines += [f"⚠ doubtful formula: {label}" for label in point["doubtful"]]
    return "<br>".join(lines)


def _summary_status(summary: dict) -> str:
    return summary["status_label"] + ("" if summary["confirmed"] else ", not confirmed")


def _wd_figure(points: list[dict], title: str) -> dict:
    labels, positions = _point_labels(points)
    traces = _parallelism_guides(points)
    # Hollow markers are larger, so that where points coincide a ring shows around a dot.
    groups = [
        ("confirmed (work and depth)", [p for p in points if p["confirmed"]], "circle", 11),
        ("not confirmed", [p for p in points if not p["confirmed"]], "circle-open", 16),
    ]
    for name, members, symbol, size in groups:
        traces.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": name,
                "x": [p["work"] for p in members],
                "y": [p["depth"] for p in members],
                "text": [labels[p["key"]] for p in members],
                "textposition": [positions[p["key"]] for p in members],
                "textfont": {"size": 10},
                "hovertext": [_hover(p) for p in members],
                "hoverinfo": "text",
                "marker": {
                    "symbol": symbol,
                    "size": size,
                    "color": [TABLE_COLOURS.get(p["table"], "#555") for p in members],
                    "line": {"width": 2},
                },
            }
        )
    doubtful = [p for p in points if p["doubtful"]]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers+text",
            "name": "doubtful formula (the facts record: check before use)",
            "x": [p["work"] for p in doubtful],
            "y": [p["depth"] for p in doubtful],
            "text": [f"{p['short_label']}: work formula doubtful" for p in doubtful],
            "textposition": "bottom center",
            "textfont": {"color": DOUBT_COLOUR, "size": 11},
            "hovertext": [_hover(p) for p in doubtful],
            "hoverinfo": "text",
            "marker": {
                "symbol": "diamond-open",
                "size": 20,
                "color": DOUBT_COLOUR,
                "line": {"width": 2},
            },
        }
    )
    for table in sorted({p["table"] for p in points}):
        name = "Table 4 (operators)" if table == "Table 4" else "Table 6 (convolution algorithms)"
        traces.append(_legend_only(name, TABLE_COLOURS[table]))
    return {
        "data": traces,
        "layout": {
            "title": {"text": title, "font": {"size": 14}},
            "xaxis": _log_axis("work W (operations)", [p["work"] for p in points], 4),
            "yaxis": _log_axis("depth D (steps)", [p["depth"] for p in points], 2),
            "hovermode": "closest",
            "legend": {"orientation": "h", "y": -0.2},
            "margin": {"t": 50, "r": 10},
        },
    }


def _log_axis(title: str, values: list[float], margin: float) -> dict:
    """A log axis whose range (in Plotly's log10 units) reaches `margin` times beyond the
    extreme values, so that the guides do not stretch it; Plotly's own range when empty."""
    axis = {"type": "log", "title": {"text": title}}
    if values:
        axis["range"] = [math.log10(min(values) / margin), math.log10(max(values) * margin)]
    return axis


def _point_labels(points: list[dict]) -> tuple[dict[str, str], dict[str, str]]:
    """One label per position (points at the same place share it), set alternately right and
    left of points with about the same work, so that stacked labels overlap less."""
    labels: dict[str, str] = {}
    first_at: dict[tuple[float, float], str] = {}
    for p in points:
        place = (round(math.log10(p["work"]), 2), round(math.log10(p["depth"]), 2))
        if place in first_at:
            labels[first_at[place]] += f", {p['short_label']}"
            labels[p["key"]] = ""
        else:
            first_at[place] = p["key"]
            labels[p["key"]] = p["short_label"]
    positions = {p["key"]: "middle right" for p in points}
    labelled = sorted((p for p in points if labels[p["key"]]), key=lambda p: p["work"])
    for group in _columns(labelled):
        for rank, p in enumerate(sorted(group, key=lambda p: p["depth"])):
            positions[p["key"]] = "middle right" if rank % 2 == 0 else "middle left"
    return labels, positions


def _columns(points: list[dict]) -> list[list[dict]]:
    """Points (sorted by work) grouped where neighbours are within 0.3 decades of work."""
    columns: list[list[dict]] = []
    for p in points:
        if columns and math.log10(p["work"] / columns[-1][-1]["work"]) <= 0.3:
            columns[-1].append(p)
        else:
            columns.append([p])
    return columns


def _legend_only(name: str, colour: str) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "x": [None],
        "y": [None],
        "marker": {"symbol": "square", "size": 11, "color": colour},
        "hoverinfo": "skip",
    }


def _parallelism_guides(points: list[dict]) -> list[dict]:
    """Dotted lines D = W / 10^k for every third power of ten the points span, each labelled
    where it leaves the plotted area (see the axis ranges in _wd_figure)."""
    if not points:
        return []
    works = [p["work"] for p in points]
    depths = [p["depth"] for p in points]
    x0, x1 = min(works) / 4, max(works) * 4
    y_top = max(depths) * 2
    parallelism = [p["parallelism"] for p in points]
    first = 3 * math.floor(math.log10(min(parallelism)) / 3)
    last = 3 * math.ceil(math.log10(max(parallelism)) / 3)
    traces = []
    for power in range(first, last + 1, 3):
        ratio = 10.0**power
        label_x = min(x1, y_top * ratio)  # the right edge, or the top edge if it comes first
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+text",
                "name": "constant W/D",
                "legendgroup": "guides",
                "showlegend": not traces,
                "x": [x0, label_x, x1],
                "y": [x0 / ratio, label_x / ratio, x1 / ratio],
                "text": ["", f"W/D = 1e{power}", ""],
                "textposition": "bottom left",
                "textfont": {"color": "#8e8e8e", "size": 10},
                "line": {"dash": "dot", "color": "#b8bec9", "width": 1},
                "hoverinfo": "skip",
            }
        )
    return traces


def _layer_title(preset: Preset, layer: Layer) -> str:
    if layer == preset.layer:
        return f"W-D plane: {preset.name}, N = {layer.N}"
    sizes = ", ".join(f"{k} = {v}" for k, v in layer.sizes().items())
    return f"W-D plane: custom layer from {preset.slug} ({sizes})"


# (b) Average parallelism against a swept size -------------------------------------------------

PARALLELISM_DESCRIPTION = (
    "Average parallelism W/D of the chosen operators as one size of the layer varies and the "
    "others stay fixed (log-log); dotted lines are operators with a formula that is not "
    "confirmed."
)


def parallelism_plot(chosen: list[Operator], sweep: Sweep) -> dict:
    series = []
    for op in chosen:
        values = []
        for layer in sweep.layers:
            try:
                work, depth, _ = op.at(layer)
            except (ParameterError, FormulaError):
                values.append(None)
                continue
            values.append(work / depth if depth > 0 and work > 0 else None)
        series.append({"key": op.key, "label": op.label, "confirmed": op.confirmed, "y": values})
    _, _, axis_help = SWEEPS[sweep.name]
    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": s["label"] + ("" if s["confirmed"] else " (not confirmed)"),
            "x": sweep.values,
            "y": _finite_list(s["y"]),
            "line": {"color": LINE_COLOURS[i % len(LINE_COLOURS)], "dash": _dash(s["confirmed"])},
            "marker": {"size": 4, "symbol": "circle" if s["confirmed"] else "circle-open"},
            "hovertemplate": f"{s['label']}<br>{sweep.name} = %{{x}}<br>W/D = %{{y:.4g}}"
            "<extra></extra>",
        }
        for i, s in enumerate(series)
    ]
    figure = {
        "data": traces,
        "layout": {
            "title": {"text": f"Average parallelism W/D against {axis_help}"},
            "xaxis": {"type": "log", "title": {"text": axis_help}},
            "yaxis": {"type": "log", "title": {"text": "average parallelism W/D"}},
            "legend": {"orientation": "h", "y": -0.2},
            "margin": {"t": 50, "r": 10},
        },
    }
    description = PARALLELISM_DESCRIPTION
    for hidden, on_top in coinciding(series):
        # Drawn wide and pale under the other, so that it shows at its edges.
        traces[hidden]["line"].update(width=7, color="rgba(36, 87, 166, 0.35)")
        description += (
            f" {series[hidden]['label']} and {series[on_top]['label']} have the same work and "
            f"depth here, so their lines coincide: the pale wide line under "
            f"{series[on_top]['label']} is {series[hidden]['label']}."
        )
    used = [f for op in chosen for f in (op.work, op.depth)]
    data = {"sweep": sweep.name, "x": sweep.values, "series": series}
    return _result("parallelism", description, figure, used, **data)


def coinciding(series: list[dict]) -> list[tuple[int, int]]:
    """(hidden, on top): indexes of series with the same values as a later one, which plotly
    draws over them (Table 6 gives direct and im2col convolution the same W and D)."""
    pairs = []
    for later in range(len(series)):
        for earlier in range(later):
            values = series[later]["y"]
            if values == series[earlier]["y"] and any(v is not None for v in values):
                pairs.append((earlier, later))
                break
    return pairs


def _dash(confirmed: bool) -> str:
    return "solid" if confirmed else "dot"


# (c) Brent's bounds ---------------------------------------------------------------------------

BRENT_DESCRIPTION = (
    "Brent's bounds on the run time T_p of the chosen operator on p processors (log-log): T_p "
    "lies between max(W/p, D) and W/p + D, so beyond p ≈ W/D more processors barely help."
)


def brent_default_p_max(work: float, depth: float, high: float) -> int:
    """The next power of two above 64·W/D, at least 16 and at most the formulas' bound."""
    wanted = 2 ** math.ceil(math.log2(max(64 * work / depth, 16)))
    return int(min(wanted, high))


def brent_plot(op: Operator, bounds: list[CostFormula], layer: Layer, query: Query) -> dict:
    try:
        work, depth, _ = op.at(layer)
    except (ParameterError, FormulaError) as error:
        raise ParameterError(f"{op.label} at this layer: {error}", "op") from None
    if depth < 1 or work < 1:
        raise ParameterError(
            f"{op.label} has W = {format_number(work)} and D = {format_number(depth)} at this "
            "layer; Brent's bounds need W and D of at least 1: choose another operator or sizes",
            "op",
        )
    low, high, _ = common_bounds(bounds, "p")
    p_max = read_number(query, "p_max", max(low, 2), high, None, whole=True)
    if p_max is None:
        p_max = brent_default_p_max(work, depth, high)
    p = np.unique(np.rint(np.geomspace(1, p_max, CURVE_POINTS)))
    curves = []
    for formula in bounds:
        try:
            values, _ = formula.evaluate({"work": work, "depth": depth, "p": p})
        except (ParameterError, FormulaError) as error:
            raise ParameterError(f"{formula.label} for {op.label}: {error}") from None
        curves.append((formula, _finite_list(values)))
    # The lower curve first, so that the band between the two fills (Plotly's "tonexty").
    curves.sort(key=lambda item: sum(v or 0 for v in item[1]))
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": formula.label + ("" if formula.confirmed else " (not confirmed)"),
            "x": p.tolist(),
            "y": values,
            "line": {"color": LINE_COLOURS[i], "dash": _dash(formula.confirmed)},
            "fill": "tonexty" if i else "none",
            "fillcolor": "rgba(36, 87, 166, 0.08)",
            "hovertemplate": f"{formula.label}<br>p = %{{x}}<br>T = %{{y:.4g}} steps"
            "<extra></extra>",
        }
        for i, (formula, values) in enumerate(curves)
    ]
    traces.append(_horizontal_line(depth, [1, p_max], f"D = {format_number(depth)} (T_∞)"))
    knee = work / depth
    title = f"Brent's bounds: {op.label}, W = {format_number(work)}, D = {format_number(depth)}"
    if knee <= p_max:
        traces.append(_vertical_line(knee, [depth, work], f"p = W/D ≈ {format_number(knee)}"))
    else:
        title += f"<br>(p = W/D ≈ {knee:.3g} lies beyond p_max: T_p stays near W/p here)"
    figure = {
        "data": traces,
        "layout": {
            "title": {"text": title, "font": {"size": 14}},
            "xaxis": {"type": "log", "title": {"text": "processors p"}},
            "yaxis": {"type": "log", "title": {"text": "run time T_p (steps)"}},
            "legend": {"orientation": "h", "y": -0.2},
            "margin": {"t": 50, "r": 10},
        },
    }
    used = [op.work, op.depth, *bounds]
    data = {
        "operator": op.key,
        "work": work,
        "depth": depth,
        "parallelism": knee,
        "p_max": p_max,
        "p": p.tolist(),
        "curves": [{"label": f.label, "id": f.id, "y": values} for f, values in curves],
    }
    return _result("brent", BRENT_DESCRIPTION, figure, used, **data)


def _horizontal_line(y: float, span: list[float], label: str) -> dict:
    return {
        "type": "scatter",
        "mode": "lines",
        "name": label,
        "x": span,
        "y": [y, y],
        "line": {"dash": "dot", "color": "#8e8e8e", "width": 1},
        "hoverinfo": "skip",
    }


def _vertical_line(x: float, span: list[float], label: str) -> dict:
    return {
        "type": "scatter",
        "mode": "lines+text",
        "name": label,
        "x": [x, x],
        "y": span,
        "text": [label, ""],
        "textposition": "top right",
        "line": {"dash": "dash", "color": "#8e8e8e", "width": 1},
        "hoverinfo": "skip",
    }


# (d) Allreduce --------------------------------------------------------------------------------

ALLREDUCE_DESCRIPTION = {
    "P": "Allreduce time of each algorithm in the simplified LogP model against the number of "
    "machines P, at the chosen vector size m (log-log); × marks where two algorithms cross.",
    "m": "Allreduce time of each algorithm in the simplified LogP model against the vector size "
    "m (elements of γ bytes), at the chosen number of machines P (log-log); × marks where two "
    "algorithms cross.",
}


def allreduce_formulas(formulas: Iterable[CostFormula]) -> list[CostFormula]:
    """The allreduce algorithms' times, then the lower bounds."""
    chosen = [
        f
        for f in formulas
        if f.technique.startswith("allreduce") and f.quantity in ("time", "bound")
    ]
    return sorted(chosen, key=lambda f: f.quantity == "bound")


def allreduce_plot(formulas: list[CostFormula], query: Query, axis: str) -> dict:
    settings = allreduce_settings(query, formulas)
    low, high = settings[f"{axis}_min"], settings[f"{axis}_max"]
    x = np.geomspace(low, high, CURVE_POINTS)
    if axis == "P":
        x = np.unique(np.rint(x))
    values = {name: settings[name] for name in ("L", "G", "gamma", "m", "P")} | {axis: x}
    curves = []
    for formula in formulas:
        try:
            y, _ = formula.evaluate(values)
        except (ParameterError, FormulaError) as error:
            raise ParameterError(f"{formula.label}: {error}") from None
        curves.append((formula, _finite_list(np.broadcast_to(y, x.shape))))
    algorithms = {f.label: y for f, y in curves if f.quantity == "time"}
    crossings = crossovers(x.tolist(), algorithms)
    traces = [_allreduce_trace(formula, x, y, axis, i) for i, (formula, y) in enumerate(curves)]
    traces.append(_crossover_trace(crossings, axis))
    fixed = "m" if axis == "P" else "P"
    title = (
        f"Allreduce time against {axis} ({fixed} = {format_number(settings[fixed])}, "
        f"L = {settings['L']:g} s, G = {settings['G']:g} s/byte, γ = {settings['gamma']:g} bytes)"
    )
    axis_title = "machines P" if axis == "P" else "vector size m (elements; γm bytes)"
    figure = {
        "data": traces,
        "layout": {
            "title": {"text": title, "font": {"size": 14}},
            "xaxis": {"type": "log", "title": {"text": axis_title}},
            "yaxis": {"type": "log", "title": {"text": "time (s)"}},
            "legend": {"orientation": "h", "y": -0.2},
            "margin": {"t": 50, "r": 10},
        },
    }
    data = {
        "axis": axis,
        "settings": settings,
        "x": x.tolist(),
        "curves": [{"label": f.label, "id": f.id, "y": y} for f, y in curves],
        "crossovers": crossings,
    }
    name = "allreduce-p" if axis == "P" else "allreduce-m"
    return _result(name, ALLREDUCE_DESCRIPTION[axis], figure, formulas, **data)


def _allreduce_trace(formula: CostFormula, x: np.ndarray, y: list, axis: str, i: int) -> dict:
    bound = formula.quantity == "bound"
    flags = []
    if not formula.confirmed:
        flags.append("not confirmed")
    if formula.doubtful:
        flags.append("doubtful")
    name = formula.label + (f" ({', '.join(flags)})" if flags else "")
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": x.tolist(),
        "y": y,
        "line": {
            "color": "#7f8c8d" if bound else LINE_COLOURS[i % len(LINE_COLOURS)],
            "dash": "dashdot" if bound else _dash(formula.confirmed),
            "width": 1 if bound else 2,
        },
        "hovertemplate": f"{formula.label} ({_status_phrase(formula)})<br>{axis} = %{{x:.4g}}"
        "<br>time = %{y:.4g} s<extra></extra>",
    }


def _crossover_trace(crossings: list[dict], axis: str) -> dict:
    def short(label: str) -> str:
        return label.split(" allreduce")[0].split(":")[0]

    # Crossings at (about) the same place share one label, so that labels do not overprint.
    texts, first_at = [], {}
    for crossing in crossings:
        place = (round(math.log10(crossing["x"]), 2), round(math.log10(crossing["y"]), 2))
        pair = f"{short(crossing['a'])} × {short(crossing['b'])}"
        if place in first_at:
            texts[first_at[place]] += f"; {pair}"
            texts.append("")
        else:
            first_at[place] = len(texts)
            texts.append(pair)
    return {
        "type": "scatter",
        "mode": "markers+text",
        "name": "crossovers",
        "x": [c["x"] for c in crossings],
        "y": [c["y"] for c in crossings],
        "text": texts,
        "textposition": "bottom right",
        "textfont": {"size": 10},
        "marker": {"symbol": "x", "size": 10, "color": "#1d2330"},
        "hovertext": [
            f"{c['a']} = {c['b']}<br>at {axis} ≈ {c['x']:.4g}, time ≈ {c['y']:.4g} s"
            for c in crossings
        ],
        "hoverinfo": "text",
    }


# Results and the registry ---------------------------------------------------------------------


def _result(name: str, description: str, figure: dict, used: Iterable[CostFormula], **data) -> dict:
    formulas = list({f.id: f for f in used}.values())
    return {
        "name": name,
        "description": description,
        "formulas": [f.summary() for f in formulas],
        "unconfirmed": [f.label for f in formulas if not f.confirmed],
        "figure": figure,
        "data": data,
    }


PLOT_NAMES = ("wd-plane", "parallelism", "brent", "allreduce-p", "allreduce-m")


def build_plot(name: str, formulas: list[CostFormula], query: Query) -> dict:
    """One plot from the query; ParameterError or FormulaError when the query is bad."""
    available = operators(formulas)
    if name in ("wd-plane", "parallelism", "brent"):
        preset, layer = layer_from_query(query)
        result = _layer_plot(name, available, formulas, preset, layer, query)
        result["data"]["layer"] = {
            "preset": preset.slug,
            "name": preset.name,
            "source": preset.citation,
            "source_key": preset.source.key,
            "note": preset.note,
            "kind": layer.kind,
            "sizes": layer.sizes(),
            "custom": layer != preset.layer,
        }
        return result
    if name in ("allreduce-p", "allreduce-m"):
        axis = "P" if name == "allreduce-p" else "m"
        chosen = allreduce_formulas(formulas)
        if not chosen:
            return _missing(
                name, ALLREDUCE_DESCRIPTION[axis], "No allreduce formulas in the catalogue"
            )
        return allreduce_plot(chosen, query, axis)
    raise ParameterError(f"unknown plot {name!r} (plots: {', '.join(PLOT_NAMES)})")


def _layer_plot(name, available, formulas, preset, layer, query) -> dict:
    if name == "wd-plane":
        return wd_plane(available, preset, layer)
    if name == "parallelism":
        sweep = sweep_from_query(query, layer)
        return parallelism_plot(operators_from_query(query, available, layer.kind), sweep)
    bounds = [f for f in formulas if f.technique == "work-depth-model" and f.quantity == "bound"]
    if not bounds or not any(op.applies_to(layer.kind) for op in available):
        message = "No Brent bound formulas, or no operator for this layer, in the catalogue"
        return _missing(name, BRENT_DESCRIPTION, message)
    op = brent_operator_from_query(query, available, layer.kind)
    return brent_plot(op, bounds, layer, query)


def _missing(name: str, description: str, message: str) -> dict:
    """An empty plot when the catalogue lacks the formulas (not the reader's fault: no 400)."""
    figure = {"data": [], "layout": {"title": {"text": message}}}
    return _result(name, description, figure, [], missing=message)
