"""A small W-D plot of a section's techniques as inline SVG: pure, no ORM, no script.

Each point is one (technique, evaluation) whose work and depth formulas are both in the
catalogue, evaluated at the defaults its cost models declare. Axes are log10; the SVG scales
with its container (viewBox), and the same numbers are listed in a table beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from catalogue import costs

WIDTH, HEIGHT, MARGIN = 360, 240, 44


@dataclass(frozen=True)
class WDPoint:
    label: str
    work: float
    depth: float
    trusted: bool  # both formulas confirmed

    @property
    def parallelism(self) -> float:
        return self.work / self.depth


def evaluate_at_defaults(formula: str, variables: list[Mapping]) -> float | None:
    """The formula's value at its declared defaults; None where it has no finite value."""
    values = {var["name"]: var["default"] for var in variables}
    try:
        value = float(costs.evaluate(formula, values))
    except costs.FormulaError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def wd_svg(points: list[WDPoint]) -> str:
    """The plot as an <svg> element (empty text when there is nothing to plot)."""
    if not points:
        return ""
    xs = [math.log10(p.work) for p in points]
    ys = [math.log10(p.depth) for p in points]
    x_range, y_range = _padded(xs), _padded(ys)
    x_scale = _scale(*x_range, MARGIN, WIDTH - 12)
    y_scale = _scale(*y_range, HEIGHT - MARGIN, 12)
    marks = []
    for point, x, y in zip(points, xs, ys, strict=True):
        cls = "confirmed" if point.trusted else "unconfirmed"
        marks.append(
            f'<circle class="{cls}" cx="{x_scale(x):.1f}" cy="{y_scale(y):.1f}" r="5">'
            f"<title>{escape(point.label)}: W = {point.work:.3g}, D = {point.depth:.3g}</title>"
            "</circle>"
        )
    axes = log_axes("work W (log scale)", "depth D (log scale)", x_range, y_range, x_scale, y_scale)
    return (
        f'<svg class="wd-plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        "aria-label=\"Work against depth of this section's techniques, log scales; "
        'the table lists the same points">'
        f'<g class="axes">{axes}</g><g class="points">{"".join(marks)}</g></svg>'
    )


def _padded(values: list[float]) -> tuple[float, float]:
    """The values' range in decades, widened to at least one decade and a margin each side."""
    low, high = min(values), max(values)
    margin = max(0.15 * (high - low), (1 - (high - low)) / 2, 0.1)
    return low - margin, high + margin


def _scale(low: float, high: float, start: float, stop: float):
    return lambda value: start + (value - low) / (high - low) * (stop - start)


def _ticks(low: float, high: float) -> list[float]:
    """Log positions of 1, 2 and 5 times the powers of ten in range; powers only when many."""
    candidates = [
        k + math.log10(m) for k in range(math.floor(low), math.ceil(high) + 1) for m in (1, 2, 5)
    ]
    ticks = [t for t in candidates if low <= t <= high]
    if len(ticks) > 6:
        ticks = [t for t in ticks if abs(t - round(t)) < 1e-9]
    step = max(1, math.ceil(len(ticks) / 6))
    return ticks[::step]


SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _power(position: float) -> str:
    """A tick's value: 10⁹, 2·10⁹, 5; plain below a thousand."""
    value = 10**position
    if value < 1000:
        return f"{value:.3g}"
    exponent = math.floor(position + 1e-9)
    mantissa = round(value / 10**exponent)
    power = f"10{str(exponent).translate(SUPERSCRIPTS)}"
    return power if mantissa == 1 else f"{mantissa}·{power}"


def log_axes(x_label: str, y_label: str, x_range, y_range, x_scale, y_scale) -> str:
    """Both axes of a log-log plot with their labels (plain text, escaped here) and ticks at the
    powers of ten: the work-depth plot and the cost curves (curves.py) share them."""
    return (
        f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - 8}" y2="{HEIGHT - MARGIN}"/>'
        f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{MARGIN}" y2="8"/>'
        f'<text x="{WIDTH / 2}" y="{HEIGHT - 8}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
        f'<text x="12" y="{HEIGHT / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {HEIGHT / 2})">{escape(y_label)}</text>'
        + "".join(
            f'<text x="{x_scale(t):.1f}" y="{HEIGHT - MARGIN + 16}" text-anchor="middle">'
            f"{_power(t)}</text>"
            for t in _ticks(*x_range)
        )
        + "".join(
            f'<text x="{MARGIN - 6}" y="{y_scale(t) + 4:.1f}" text-anchor="end">{_power(t)}</text>'
            for t in _ticks(*y_range)
        )
    )
