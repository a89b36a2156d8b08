"""The planner's Plotly figure (plain JSON, drawn by static/js/plots.js): step time and efficiency
against P for every strategy of the sweep."""

from __future__ import annotations

from typing import Any


def sweep_figure(sweep: dict[str, Any] | None, network: str) -> dict[str, Any] | None:
    if not sweep:
        return None
    data = []
    for slug, series in sweep["strategies"].items():
        common = {
            "x": sweep["P"],
            "name": series["name"],
            "legendgroup": slug,
            "mode": "lines+markers",
        }
        data.append(common | {"y": series["step_time"], "xaxis": "x", "yaxis": "y"})
        data.append(
            common | {"y": series["efficiency"], "xaxis": "x2", "yaxis": "y2", "showlegend": False}
        )
    layout = {
        "title": {"text": f"{network}: step time and efficiency against P"},
        "grid": {"rows": 1, "columns": 2, "pattern": "independent"},
        "xaxis": {"title": {"text": "nodes P"}, "type": "log"},
        "yaxis": {"title": {"text": "step time (s)"}, "type": "log"},
        "xaxis2": {"title": {"text": "nodes P"}, "type": "log"},
        "yaxis2": {"title": {"text": "efficiency (speedup / P)"}, "range": [0, 1.05]},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"t": 50},
    }
    return {"data": data, "layout": layout}
