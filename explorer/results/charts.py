"""The record charts as Plotly figures (JSON drawn by static/js/plots.js; no inline script):
each point carries its work's URL in `customdata`, which static/js/results.js follows."""

from __future__ import annotations

from typing import Any

from explorer.web.log_ticks import log_axis

STATUS_SYMBOL = {"read": "circle", "derived": "diamond", "recalled": "circle-open"}


def _trace(points: list[dict], status: str, hover: str) -> dict[str, Any]:
    chosen = [p for p in points if p["figure_status"] == status]
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{status}",
        "x": [p["year"] for p in chosen],
        "y": [p["y"] for p in chosen],
        "text": [f"{p['work']}: {p['devices'] or '?'} x {p['device_kind']}" for p in chosen],
        "customdata": [p["url"] for p in chosen],
        "hovertemplate": hover,
        "marker": {
            "size": [8 + 3 * len(str(p["devices"] or "")) for p in chosen],
            "symbol": STATUS_SYMBOL[status],
        },
    }


def figures(charts: dict[str, list[dict]]) -> dict[str, dict]:
    layout = {
        # The caption above says what the chart is: no title; the legend above the plot, so that
        # it never covers the axis title on a phone.
        "margin": {"l": 60, "r": 10, "t": 40, "b": 50},
        "legend": {"title": {"text": "figure"}, "orientation": "h", "x": 0, "y": 1.12},
        "xaxis": {"title": {"text": "year"}, "dtick": 1},
    }
    resnet = {
        "data": [
            _trace(
                charts["resnet50_time_to_train"],
                status,
                "%{text}<br>%{x}: %{y:.0f} s<extra></extra>",
            )
            for status in STATUS_SYMBOL
        ],
        "layout": layout
        | {
            "yaxis": log_axis(
                {"title": {"text": "time to train (s, log)"}, "type": "log"},
                [p["y"] for p in charts["resnet50_time_to_train"]],
            ),
        },
    }
    utilisation = {
        "data": [
            _trace(
                charts["large_model_utilisation"],
                status,
                "%{text}<br>%{x}: %{y:.0%}<extra></extra>",
            )
            for status in STATUS_SYMBOL
        ],
        "layout": layout
        | {
            "yaxis": {"title": {"text": "utilisation (of peak)"}, "tickformat": ".0%"},
        },
    }
    return {"resnet": resnet, "utilisation": utilisation}
