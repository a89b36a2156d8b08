"""Ticks of a Plotly log axis a reader can read: at 1, 2 and 5 × 10^k, each labelled with its
full number (0.2, 0.5, 1, 2, 5, 10, 20), where Plotly's own labels its minor ticks with a bare
digit ("2" for 0.2, or for 20). An axis spanning many decades ticks at powers of ten only, and
beyond eight decades at every few, so that the labels never crowd.

Pure: the figure builders pass the values they plot (explorer/results, explorer/costs,
explorer/demos); an axis without a positive value keeps Plotly's ticks.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

MANTISSAS_NARROW = (1, 2, 5)  # up to NARROW_DECADES decades
NARROW_DECADES = 4
MOST_TICKS = 9  # at most this many powers of ten on a wide axis


def positive_values(values: Iterable) -> list[float]:
    """The finite positive numbers among `values`, nested lists read through (a trace's x, a
    list of traces' y), None and text skipped."""
    found: list[float] = []
    for value in values:
        if isinstance(value, list | tuple):
            found += positive_values(value)
        elif isinstance(value, numbers.Real) and not isinstance(value, bool):
            if math.isfinite(value) and value > 0:  # numpy's numbers too
                found.append(float(value))
    return found


def tick_values(low: float, high: float) -> list[float]:
    """The ticks from the power of ten at or below `low` to the one at or above `high`."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    decades = max(1, last - first)
    if decades <= NARROW_DECADES:
        mantissas: tuple[int, ...] = MANTISSAS_NARROW
        step = 1
    else:
        mantissas, step = (1,), math.ceil((decades + 1) / MOST_TICKS)
    # From text, so that 2e-1 is exactly the float 0.2 is (2 * 10**-1 is not always).
    ticks = [
        float(f"{mantissa}e{exponent}")
        for exponent in range(first, last + 1, step)
        for mantissa in mantissas
    ]
    return [tick for tick in ticks if tick <= 10**last]


def tick_text(value: float) -> str:
    """A tick's full number: 0.05, 0.2, 5, 20, 1,000; M, G and T from a million on."""
    for suffix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6)):
        if value >= scale:
            return f"{value / scale:g}{suffix}"
    if value >= 1:
        return f"{value:,.0f}"
    if value < 1e-4:
        return f"{value:g}"
    decimals = -math.floor(math.log10(value))
    return f"{value:.{decimals}f}"


def log_ticks(values: Iterable) -> dict:
    """The keys to add to a Plotly log axis that shows `values`: {} when none is positive."""
    found = positive_values(values)
    if not found:
        return {}
    ticks = tick_values(min(found), max(found))
    texts = [tick_text(t) for t in ticks]
    # automargin: "100,000" is wider than Plotly's "1e5"; the axis title moves aside for it.
    return {"tickmode": "array", "tickvals": ticks, "ticktext": texts, "automargin": True}


def log_axis(axis: dict, values: Iterable) -> dict:
    """`axis` (a Plotly axis with "type": "log") with readable ticks for `values`."""
    return axis | log_ticks(values)
