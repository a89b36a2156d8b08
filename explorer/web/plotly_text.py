"""Text from the database in a Plotly figure (a trace's name, text, hover text or template, a
title): Plotly reads a few HTML tags and entities in them, and `%{...}` in a hover template is a
variable, so a label such as "W < 2^k & D" or "50%{x}" would show garbled or vanish."""

from __future__ import annotations

PLOTLY_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "%": "&#37;"})


def plotly_text(label: object) -> str:
    """A label as Plotly shows it literally (Plotly turns the entities back into characters)."""
    return str(label).translate(PLOTLY_ENTITIES)
