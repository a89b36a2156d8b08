"""Pure figure builders: plain data in, a Plotly figure dict out (no ORM, no request)."""

from __future__ import annotations

from explorer.web.palette import level_colours
from explorer.web.plotly_text import plotly_text


def timeline_figure(
    rows: list[tuple[int | None, str, int]],
    level_names: dict[str, str],
    title: str = "Works per year, by parallelism level",
) -> dict:
    """Works per year, stacked by parallelism level. Rows are (year, level code, count);
    works without a year are left out (and counted by the caller)."""
    years = sorted({year for year, _, _ in rows if year is not None})
    counts = {(year, level): n for year, level, n in rows}
    colours = level_colours(list(level_names))
    traces = [
        {
            "type": "bar",
            "name": plotly_text(name),
            "x": years,
            "y": [counts.get((year, code), 0) for year in years],
            "marker": {"color": colours[code]},
            "hovertemplate": f"{plotly_text(name)}<br>%{{x}}: %{{y}} works<extra></extra>",
        }
        for code, name in level_names.items()
    ]
    return {
        "data": traces,
        "layout": {
            "title": {"text": title},
            "barmode": "stack",
            "xaxis": {"title": {"text": "year"}, "dtick": 2},
            "yaxis": {"title": {"text": "works (a work in several levels counts in each)"}},
            # Above the plot: below it, a horizontal legend sits on the x axis title.
            "legend": {"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
            "margin": {"t": 90, "r": 10},
        },
    }
