"""(a) The W-D plane: each operator of Tables 4 and 6 as a point (x = work W, y = depth D) at one
layer configuration. Pure: operators and a layer in, the result document out."""

from __future__ import annotations

import math

from catalogue.costs import FormulaError
from explorer.costs.numbers import (
    DOUBT_COLOUR,
    format_number,
    plot_result,
)
from explorer.costs.presets import Layer, Preset
from explorer.costs.records import TABLE_COLOURS, Operator, ParameterError
from explorer.web.log_ticks import log_ticks
from explorer.web.plotly_text import plotly_text

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
    return plot_result(
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
    label, table = plotly_text(point["label"]), plotly_text(point["table"])
    lines = [
        # Labels such as "Direct convolution (Table 6)" already name their table.
        f"<b>{label}</b>" + ("" if point["table"] in point["label"] else f" ({table})"),
        plotly_text(point["technique_name"]),
        f"W = {format_number(point['work'])} ({_summary_status(point['work_formula'])})",
        f"D = {format_number(point['depth'])} ({_summary_status(point['depth_formula'])})",
        f"W/D = {format_number(point['parallelism'])}",
        "works: " + (plotly_text(", ".join(point["works"])) or "none linked"),
    ]
    if point["defaults"]:
        lines.append("defaults: " + ", ".join(f"{k} = {v:g}" for k, v in point["defaults"].items()))
    lines += [f"⚠ doubtful formula: {plotly_text(label)}" for label in point["doubtful"]]
    return "<br>".join(lines)


def _summary_status(summary: dict) -> str:
    return plotly_text(summary["status_label"]) + (
        "" if summary["confirmed"] else ", not confirmed"
    )


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
                "text": [plotly_text(labels[p["key"]]) for p in members],
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
            "text": [f"{plotly_text(p['short_label'])}: work formula doubtful" for p in doubtful],
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
        low, high = min(values) / margin, max(values) * margin
        axis["range"] = [math.log10(low), math.log10(high)]
        axis |= log_ticks([low, high])
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
