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
    x_scale = _scale(min(xs), max(xs), MARGIN, WIDTH - 12)
    y_scale = _scale(min(ys), max(ys), HEIGHT - MARGIN, 12)
    marks = []
    for point, x, y in zip(points, xs, ys, strict=True):
        cls = "confirmed" if point.trusted else "unconfirmed"
        marks.append(
            f'<circle class="{cls}" cx="{x_scale(x):.1f}" cy="{y_scale(y):.1f}" r="5">'
            f"<title>{escape(point.label)}: W = {point.work:.3g}, D = {point.depth:.3g}</title>"
            "</circle>"
        )
    axes = (
        f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - 8}" y2="{HEIGHT - MARGIN}"/>'
        f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{MARGIN}" y2="8"/>'
        f'<text x="{WIDTH / 2}" y="{HEIGHT - 10}" text-anchor="middle">log₁₀ work W</text>'
        f'<text x="14" y="{HEIGHT / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {HEIGHT / 2})">log₁₀ depth D</text>'
        + _ticks(min(xs), max(xs), x_scale, horizontal=True)
        + _ticks(min(ys), max(ys), y_scale, horizontal=False)
    )
    return (
        f'<svg class="wd-plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        "aria-label=\"Work against depth of this section's techniques, log scales; "
        'the table lists the same points">'
        f'<g class="axes">{axes}</g><g class="points">{"".join(marks)}</g></svg>'
    )


def _scale(low: float, high: float, start: float, stop: float):
    if high - low < 1e-9:  # one value: put it mid-axis
        low, high = low - 1, high + 1
    return lambda value: start + (value - low) / (high - low) * (stop - start)


def _ticks(low: float, high: float, scale, horizontal: bool) -> str:
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    ticks = range(math.ceil(low), math.floor(high) + 1)
    step = max(1, len(ticks) // 5)  # at most about five labels per axis
    marks = []
    for tick in list(ticks)[::step]:
        at = scale(tick)
        if horizontal:
            marks.append(
                f'<text x="{at:.1f}" y="{HEIGHT - MARGIN + 16}" text-anchor="middle">{tick}</text>'
            )
        else:
            marks.append(f'<text x="{MARGIN - 6}" y="{at + 4:.1f}" text-anchor="end">{tick}</text>')
    return "".join(marks)
