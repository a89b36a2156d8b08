"""The W-D plots of /costs/: query parameters in, numbers and Plotly figure dicts out.

Pure: no ORM, no request. The caller loads the cost models as `CostFormula` records
(records.py); `build_plot` reads the query with params.py, then each figure builder takes plain
values (records, layers, numbers) and returns the figure dict. Bad input raises `ParameterError`
(or `FormulaError` from the formula language); the views answer 400 with its message.

Plots (each also an API twin at /api/costs/plots/<name>/):
- wd-plane (wd_plane.py): every operator of Tables 4 and 6 that has a work and a depth formula,
  as a point (x = work W, y = depth D) at one layer configuration;
- parallelism: average parallelism W/D of chosen operators as one layer size is swept;
- brent: Brent's bounds max(W/p, D) <= T_p <= W/p + D against p for one operator;
- allreduce-p and allreduce-m: allreduce time of each algorithm against P and against m.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from catalogue.costs import FormulaError
from explorer.costs.numbers import (
    CURVE_POINTS,
    LINE_COLOURS,
    crossovers,
    finite_list,
    format_number,
    plot_result,
    status_phrase,
)
from explorer.costs.params import (
    SWEEPS,
    Query,
    Sweep,
    allreduce_settings,
    brent_operator_from_query,
    brent_p_max,
    common_bounds,
    layer_from_query,
    operators_from_query,
    sweep_from_query,
)
from explorer.costs.presets import Layer
from explorer.costs.records import CostFormula, Operator, ParameterError, operators
from explorer.costs.wd_plane import wd_plane
from explorer.web.log_ticks import log_axis
from explorer.web.plotly_text import plotly_text

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
            "name": plotly_text(s["label"]) + ("" if s["confirmed"] else " (not confirmed)"),
            "x": sweep.values,
            "y": finite_list(s["y"]),
            "line": {"color": LINE_COLOURS[i % len(LINE_COLOURS)], "dash": _dash(s["confirmed"])},
            "marker": {"size": 4, "symbol": "circle" if s["confirmed"] else "circle-open"},
            "hovertemplate": f"{plotly_text(s['label'])}<br>{sweep.name} = %{{x}}"
            "<br>W/D = %{y:.4g}"
            "<extra></extra>",
        }
        for i, s in enumerate(series)
    ]
    figure = {
        "data": traces,
        "layout": {
            "title": {"text": f"Average parallelism W/D against {axis_help}"},
            "xaxis": log_axis({"type": "log", "title": {"text": axis_help}}, sweep.values),
            "yaxis": log_axis(
                {"type": "log", "title": {"text": "average parallelism W/D"}},
                [t["y"] for t in traces],
            ),
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
    return plot_result("parallelism", description, figure, used, **data)


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


def brent_plot(op: Operator, bounds: list[CostFormula], layer: Layer, p_max: int | None) -> dict:
    """Brent's bounds for `op` at `layer` up to p_max processors (None: from W/D)."""
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
    _, high, _ = common_bounds(bounds, "p")
    if p_max is None:
        p_max = brent_default_p_max(work, depth, high)
    p = np.unique(np.rint(np.geomspace(1, p_max, CURVE_POINTS)))
    curves = []
    for formula in bounds:
        try:
            values, _ = formula.evaluate({"work": work, "depth": depth, "p": p})
        except (ParameterError, FormulaError) as error:
            raise ParameterError(f"{formula.label} for {op.label}: {error}") from None
        curves.append((formula, finite_list(values)))
    # The lower curve first, so that the band between the two fills (Plotly's "tonexty").
    curves.sort(key=lambda item: sum(v or 0 for v in item[1]))
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": plotly_text(formula.label) + ("" if formula.confirmed else " (not confirmed)"),
            "x": p.tolist(),
            "y": values,
            "line": {"color": LINE_COLOURS[i], "dash": _dash(formula.confirmed)},
            "fill": "tonexty" if i else "none",
            "fillcolor": "rgba(36, 87, 166, 0.08)",
            "hovertemplate": f"{plotly_text(formula.label)}<br>p = %{{x}}<br>T = %{{y:.4g}} steps"
            "<extra></extra>",
        }
        for i, (formula, values) in enumerate(curves)
    ]
    traces.append(_horizontal_line(depth, [1, p_max], f"D = {format_number(depth)} (T_∞)"))
    knee = work / depth
    title = (
        f"Brent's bounds: {plotly_text(op.label)}, W = {format_number(work)}, "
        f"D = {format_number(depth)}"
    )
    if knee <= p_max:
        traces.append(_vertical_line(knee, [depth, work], f"p = W/D ≈ {format_number(knee)}"))
    else:
        title += f"<br>(p = W/D ≈ {knee:.3g} lies beyond p_max: T_p stays near W/p here)"
    figure = {
        "data": traces,
        "layout": {
            "title": {"text": title, "font": {"size": 14}},
            "xaxis": log_axis(
                {"type": "log", "title": {"text": "processors p"}}, [t["x"] for t in traces]
            ),
            "yaxis": log_axis(
                {"type": "log", "title": {"text": "run time T_p (steps)"}},
                [t["y"] for t in traces],
            ),
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
    return plot_result("brent", BRENT_DESCRIPTION, figure, used, **data)


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


def allreduce_plot(formulas: list[CostFormula], settings: dict[str, float], axis: str) -> dict:
    """Each formula's time against `axis` (P or m) over its range in `settings`."""
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
        curves.append((formula, finite_list(np.broadcast_to(y, x.shape))))
    # A doubtful formula is drawn and flagged, but no crossing (which algorithm wins where)
    # rests on it.
    algorithms = {f.label: y for f, y in curves if f.quantity == "time" and not f.doubtful}
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
            "xaxis": log_axis({"type": "log", "title": {"text": axis_title}}, x.tolist()),
            "yaxis": log_axis(
                {"type": "log", "title": {"text": "time (s)"}}, [y for _, y in curves]
            ),
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
    return plot_result(name, ALLREDUCE_DESCRIPTION[axis], figure, formulas, **data)


def _allreduce_trace(formula: CostFormula, x: np.ndarray, y: list, axis: str, i: int) -> dict:
    bound = formula.quantity == "bound"
    flags = []
    if not formula.confirmed:
        flags.append("not confirmed")
    if formula.doubtful:
        flags.append("doubtful")
    name = plotly_text(formula.label) + (f" ({', '.join(flags)})" if flags else "")
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
        "hovertemplate": f"{plotly_text(formula.label)} ({plotly_text(status_phrase(formula))})"
        f"<br>{axis} = %{{x:.4g}}"
        "<br>time = %{y:.4g} s<extra></extra>",
    }


def _crossover_trace(crossings: list[dict], axis: str) -> dict:
    def short(label: str) -> str:
        return label.split(" allreduce")[0].split(":")[0]

    # Crossings at (about) the same place share one label, so that labels do not overprint.
    texts, first_at = [], {}
    for crossing in crossings:
        place = (round(math.log10(crossing["x"]), 2), round(math.log10(crossing["y"]), 2))
        pair = plotly_text(f"{short(crossing['a'])} × {short(crossing['b'])}")
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
            f"{plotly_text(c['a'])} = {plotly_text(c['b'])}<br>at {axis} ≈ {c['x']:.4g}, "
            f"time ≈ {c['y']:.4g} s"
            for c in crossings
        ],
        "hoverinfo": "text",
    }


# Results and the registry ---------------------------------------------------------------------


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
        return allreduce_plot(chosen, allreduce_settings(query, chosen), axis)
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
    return brent_plot(op, bounds, layer, brent_p_max(query, bounds))


def _missing(name: str, description: str, message: str) -> dict:
    """An empty plot when the catalogue lacks the formulas (not the reader's fault: no 400)."""
    figure = {"data": [], "layout": {"title": {"text": message}}}
    return plot_result(name, description, figure, [], missing=message)
