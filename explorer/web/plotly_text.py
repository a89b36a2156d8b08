"""Text from the database in a Plotly figure (a trace's name, text, hover text or template, a
title): Plotly reads a few HTML tags and entities in them, and `%{...}` in a hover template is a
variable, so a label such as "W < 2^k & D" or "50%{x}" would show garbled or vanish."""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Callable
from typing import Any

PLOTLY_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "%": "&#37;"})


def plotly_text(label: object) -> str:
    """A label as Plotly shows it literally (Plotly turns the entities back into characters)."""
    return str(label).translate(PLOTLY_ENTITIES)


def marker_traces(
    points: list[dict],
    group: str,
    x: str,
    y: str,
    label: Callable[[dict], str],
    hover: str,
    style: Callable[[str], dict] = lambda name: {},
) -> list[dict[str, Any]]:
    """One Plotly marker trace per value of `points`' `group` field (in the points' order of
    first appearance), each point labelled by `label` and carrying its page's `url` in
    `customdata` for the click handler (static/js/plots.js); `style(name)` adds a trace's own
    keys (a colour, say)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for point in points:
        groups[point[group]].append(point)
    return [
        {
            "type": "scatter",
            "mode": "markers",
            "name": html.escape(name),
            "x": [p[x] for p in members],
            "y": [p[y] for p in members],
            "text": [html.escape(label(p)) for p in members],
            "customdata": [p["url"] for p in members],
            "hovertemplate": hover,
            **style(name),
        }
        for name, members in groups.items()
    ]
