"""Builders for the parts of a demo result: metrics, tables, agreement claims, Plotly figures.

Figures are plain dicts in Plotly's JSON format, so the worker process never imports plotly.
"""

import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from explorer.web.log_ticks import log_ticks


class Series(NamedTuple):
    name: str
    x: Sequence[Any]
    y: Sequence[Any]
    mode: str = "lines"  # "lines", "markers" or "lines+markers"
    dash: str | None = None  # "dash" or "dot" draws a model prediction apart from a measurement


def metric(
    name: str,
    value: float | int | None,
    unit: str = "",
    predicted: float | int | None = None,
    note: str = "",
) -> dict[str, Any]:
    """One number; `predicted` is the cost model's value for it, or None when there is no model.

    Measured wall-clock times use unit "s" and nothing else does, so that the determinism check
    (and the cache) can set them apart.
    """
    return {"name": name, "value": value, "unit": unit, "predicted": predicted, "note": note}


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> dict[str, Any]:
    return {"title": title, "columns": list(columns), "rows": [list(row) for row in rows]}


def agreement(claim: str, holds: bool, detail: str) -> dict[str, Any]:
    """A measured-versus-model statement; `holds` is measured, never assumed."""
    return {"claim": claim, "holds": bool(holds), "detail": detail}


def result(
    metrics: Sequence[dict[str, Any]],
    tables: Sequence[dict[str, Any]],
    figures: Sequence[dict[str, Any]],
    agreements: Sequence[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "metrics": list(metrics),
        "tables": list(tables),
        "figures": list(figures),
        "agreement": list(agreements),
    }


def line_figure(
    title: str,
    x_label: str,
    y_label: str,
    series: Sequence[Series],
    *,
    log_x: bool = False,
    log_y: bool = False,
) -> dict[str, Any]:
    traces = [_scatter_trace(one) for one in series]
    layout = _layout(title, x_label, y_label, log_x, log_y)
    for axis, name in (("xaxis", "x"), ("yaxis", "y")):
        if layout[axis].get("type") == "log":
            layout[axis] |= log_ticks([trace[name] for trace in traces])
    return {"data": traces, "layout": layout}


def bar_figure(
    title: str,
    x_label: str,
    y_label: str,
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    *,
    log_y: bool = False,
) -> dict[str, Any]:
    traces = [
        {"type": "bar", "name": name, "x": list(categories), "y": list(values)}
        for name, values in series
    ]
    layout = _layout(title, x_label, y_label, False, log_y) | {"barmode": "group"}
    if log_y:
        layout["yaxis"] |= log_ticks([trace["y"] for trace in traces])
    return {"data": traces, "layout": layout}


def gantt_figure(
    title: str,
    lane_label: str,
    lanes: Sequence[str],
    bars: Sequence[tuple[str, int, float, float]],
) -> dict[str, Any]:
    """Horizontal bars (group name, lane index, start, duration): one trace per group."""
    groups = sorted({group for group, *_ in bars})
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": group,
            "y": [lanes[lane] for name, lane, _, _ in bars if name == group],
            "base": [start for name, _, start, _ in bars if name == group],
            "x": [length for name, _, _, length in bars if name == group],
        }
        for group in groups
    ]
    layout = _layout(title, "time (units)", lane_label, False, False) | {"barmode": "overlay"}
    layout["yaxis"]["autorange"] = "reversed"  # first lane on top, as in a schedule drawing
    return {"data": traces, "layout": layout}


def timed[T](func: Callable[[], T]) -> tuple[T, float]:
    """The value of func() and the wall-clock seconds it took."""
    start = time.perf_counter()
    value = func()
    return value, time.perf_counter() - start


def relative_error(measured: float, predicted: float) -> float:
    if predicted == 0:
        return abs(measured)
    return abs(measured - predicted) / abs(predicted)


def powers_of_two(low: int, high: int) -> list[int]:
    """Powers of two from the one at or above `low` up to `high`, plus `high` itself."""
    values = []
    value = 1
    while value <= high:
        if value >= low:
            values.append(value)
        value *= 2
    if not values or values[-1] != high:
        values.append(high)
    return values


def _scatter_trace(series: Series) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "type": "scatter",
        "mode": series.mode,
        "name": series.name,
        "x": list(series.x),
        "y": list(series.y),
    }
    if series.dash:
        trace["line"] = {"dash": series.dash}
    return trace


def _layout(title: str, x_label: str, y_label: str, log_x: bool, log_y: bool) -> dict[str, Any]:
    x_axis: dict[str, Any] = {"title": {"text": x_label}}
    y_axis: dict[str, Any] = {"title": {"text": y_label}}
    if log_x:
        x_axis["type"] = "log"
    if log_y:
        y_axis["type"] = "log"
    return {"title": {"text": title}, "xaxis": x_axis, "yaxis": y_axis}
