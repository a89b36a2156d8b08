"""The MLPerf charts: their points aggregated once per catalogue version for every benchmark
(`chart_data`), and the Plotly figures drawn from them (`figures`; JSON drawn by
static/js/plots.js, each point's page URL in `customdata`, followed by static/js/results.js).

Labels come from the database (submitters' and systems' names): escaped before Plotly renders
them as its HTML subset in hover and legend text."""

from __future__ import annotations

import html
from collections import defaultdict
from typing import Any

from catalogue.version import per_version
from explorer.web.log_ticks import log_axis
from explorer.web.palette import accelerator_colour, accelerator_symbol
from explorer.web.plotly_text import marker_traces
from explorer.web.script_json import script_json

from .rows import all_rows


def _point(row: dict) -> dict[str, Any]:
    return {
        "round": row["round"],
        "minutes": row["minutes"],
        "accelerators": row["accelerators"],
        "device": row["device"] or "unknown",
        "label": f"{row['submitter']} {row['system']} ({row['round']})",
        "url": row["url"],
    }


def _aggregates() -> dict[str, dict[str, list[dict]]]:
    """Per benchmark: the record line (the closed division's best score per round), every scored
    system (time against accelerators) and the samples/s per accelerator per device."""
    charts: dict[str, dict[str, list[dict]]] = defaultdict(
        lambda: {"record": [], "scaling": [], "throughput": []}
    )
    best: dict[tuple[str, str], dict] = {}
    for row in sorted(all_rows(), key=lambda r: r["round_order"]):
        if not row["minutes"]:
            continue
        chart = charts[row["benchmark"]]
        chart["scaling"].append(_point(row))
        rate = next(
            (f["value"] for f in row["figures"] if f["name"] == "samples_per_s_per_accelerator"),
            None,
        )
        if rate:
            chart["throughput"].append(_point(row) | {"rate": rate})
        key = (row["benchmark"], row["round"])
        if row["division"] == "closed" and (
            key not in best or row["minutes"] < best[key]["minutes"]
        ):
            best[key] = _point(row)
    for (benchmark, _), point in best.items():
        charts[benchmark]["record"].append(point)
    return dict(charts)


def _aggregates_kept() -> dict[str, dict[str, list[dict]]]:
    return per_version("mlperf-charts", _aggregates, in_process=True)


def chart_data(benchmark: str) -> dict[str, Any]:
    empty = {"record": [], "scaling": [], "throughput": []}
    return _aggregates_kept().get(benchmark, empty) | {"benchmark": benchmark}


def _texts(points: list[dict]) -> list[str]:
    return [html.escape(p["label"]) for p in points]


LAYOUT = {
    "margin": {"l": 60, "r": 10, "t": 40, "b": 50},
    "legend": {"orientation": "h", "x": 0, "y": 1.15},
}


def _record(points: list[dict]) -> dict[str, Any]:
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "best closed-division score",
                "x": [p["round"] for p in points],
                "y": [p["minutes"] for p in points],
                "text": _texts(points),
                "customdata": [p["url"] for p in points],
                "hovertemplate": "%{text}<br>%{y:.4g} min<extra></extra>",
            }
        ],
        "layout": LAYOUT
        | {
            "xaxis": {"title": {"text": "round"}, "type": "category"},
            "yaxis": log_axis(
                {"title": {"text": "time to train (min, log)"}, "type": "log"},
                [p["minutes"] for p in points],
            ),
        },
    }


def _by_device(points: list[dict], x: str, y: str, hover: str) -> list[dict[str, Any]]:
    # Each accelerator its own colour on every chart (explorer/web/palette.py), not Plotly's
    # 10-colour cycle, which gave a V100 and a Gaudi 2 the same blue; unknown ones grey.
    def coloured(device: str) -> dict:
        return {
            "marker": {"color": accelerator_colour(device), "symbol": accelerator_symbol(device)}
        }

    return marker_traces(points, "device", x, y, lambda p: p["label"], hover, coloured)


def _legend_below(traces: int) -> dict[str, Any]:
    """A legend under the plot, the figure taller by its lines: a legend of 20 accelerators
    above the plot covered most of it on a phone (two names a line at 390 px)."""
    return {
        "legend": {"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top"},
        "height": 470 + 12 * traces,
        "margin": {"l": 60, "r": 10, "t": 10, "b": 40},
    }


def figures(charts: dict[str, Any]) -> dict[str, dict]:
    data = _by_device(
        charts["scaling"],
        "accelerators",
        "minutes",
        "%{text}<br>%{x} accelerators: %{y:.4g} min<extra></extra>",
    )
    scaling = {
        "data": data,
        "layout": LAYOUT
        | _legend_below(len(data))
        | {
            "xaxis": log_axis(
                {"title": {"text": "accelerators (log)"}, "type": "log"},
                [p["accelerators"] for p in charts["scaling"]],
            ),
            "yaxis": log_axis(
                {"title": {"text": "time to train (min, log)"}, "type": "log"},
                [p["minutes"] for p in charts["scaling"]],
            ),
        },
    }
    throughput = {
        "data": _by_device(
            charts["throughput"],
            "device",
            "rate",
            "%{text}<br>%{y:.4g} samples/s per accelerator<extra></extra>",
        ),
        "layout": LAYOUT
        | {
            "showlegend": False,
            # The accelerators' names are long: the axis makes room for them, rotated.
            "xaxis": {"type": "category", "automargin": True, "tickangle": -60},
            "margin": {"l": 60, "r": 10, "t": 10, "b": 40},
            "yaxis": log_axis(
                {"title": {"text": "samples/s per accelerator (derived, log)"}, "type": "log"},
                [p["rate"] for p in charts["throughput"]],
            ),
        },
    }
    return {"record": _record(charts["record"]), "scaling": scaling, "throughput": throughput}


def _all_figure_texts() -> dict[str, dict[str, str]]:
    return {
        benchmark: {name: script_json(figure) for name, figure in figures(data).items()}
        for benchmark, data in _aggregates_kept().items()
    }


def figure_texts(benchmark: str) -> dict[str, str]:
    """The benchmark's three figures as the text of their script elements, encoded once per
    catalogue version (encoding them was a third of the page's time)."""
    texts = per_version("mlperf-figure-texts", _all_figure_texts, in_process=True)
    if benchmark in texts:
        return texts[benchmark]
    return {name: script_json(f) for name, f in figures(chart_data(benchmark)).items()}
