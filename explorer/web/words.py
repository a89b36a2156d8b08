"""The words of a refused parameter and a readable figure, in one place (no Django: the demos'
worker uses them too)."""

from __future__ import annotations

from collections.abc import Iterable

MAX_ECHOED = 40  # characters of a value sent back in a message (a long value is cut)


def echoed(value: object) -> str:
    """A value the request sent, quoted for a message and cut to MAX_ECHOED characters: a
    10,000-character value is not sent back (twice) in the error."""
    text = str(value)
    return repr(text if len(text) <= MAX_ECHOED else text[:MAX_ECHOED] + "…")


def unknown_message(name: str, known: Iterable[str]) -> str:
    """The one wording of an unknown parameter (a query's, or a demo run's body)."""
    return f"unknown parameter {echoed(name)} (allowed: {', '.join(sorted(known)) or 'none'})"


def repeated_message(name: str, count: int) -> str:
    return f"{name} is given {count} times; give it once"


def readable_number(value: float | None, unit: str = "") -> str:
    """A measured or predicted figure as a reader reads it: four significant digits below 10,000,
    whole and grouped from there ("11,393"), scientific from 1e15; "—" for none."""
    if value is None:
        return "—"
    text = f"{value:.4g}" if abs(value) < 1e4 or abs(value) >= 1e15 else f"{value:,.0f}"
    return f"{text} {unit}".strip()
