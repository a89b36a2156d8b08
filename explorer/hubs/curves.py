"""Cost curves of the techniques after the survey, as inline SVG: pure, no ORM, no script.

The survey's techniques are drawn as work against depth (wd_plot.py). The ones after it (tensor,
sequence, expert parallelism) have communication, memory and time formulas instead, with no
depth; each such group (technique, quantity) is drawn against one of its sizes (SWEPT, the first
a formula of the group declares), the other variables at their declared defaults, log scales,
and the same numbers listed in a table beside it. A formula of the group without that variable
is a flat line: the baseline it does not depend on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from catalogue import costs
from explorer.hubs.wd_plot import _padded, _scale, log_axes

WIDTH, HEIGHT, MARGIN = 360, 240, 44
POINTS = 7
SPAN = 8.0  # from default/SPAN to default·SPAN, within the variable's bounds
# The size each kind of formula is drawn against, the first found in the group's variables.
SWEPT = ("t", "P", "h", "s", "m", "B")
TRUSTED = {"confirmed", "standard"}


@dataclass(frozen=True)
class Curve:
    label: str
    values: tuple[float, ...]  # at the plot's xs; a formula without the variable: all equal
    trusted: bool


@dataclass(frozen=True)
class CostPlot:
    technique: str  # its slug
    quantity: str
    value_unit: str  # the formulas' unit (bytes, values, s)
    variable: str
    meaning: str
    unit: str
    xs: tuple[float, ...]
    curves: tuple[Curve, ...]

    @property
    def slug(self) -> str:
        return f"{self.technique}-{self.quantity}"

    @property
    def y_label(self) -> str:
        return self.quantity + (f", {self.value_unit}" if self.value_unit else "")


def cost_plots(techniques) -> list[CostPlot]:
    """A plot per (technique, quantity) of the techniques after the survey (their category
    extends a section) whose formulas are not work or depth."""
    plots = []
    for technique in techniques:
        if not technique.category.extends:
            continue
        groups: dict[tuple[str, str], list] = {}
        for model in technique.cost_models.all():
            if model.quantity not in ("work", "depth"):
                groups.setdefault((model.quantity, model.unit), []).append(model)
        for (quantity, unit), models in groups.items():
            plot = _plot(technique.slug, quantity, unit, models)
            if plot is not None:
                plots.append(plot)
    return plots


def _plot(technique: str, quantity: str, unit: str, models) -> CostPlot | None:
    variables = {v["name"]: v for model in models for v in model.variables}
    name = next((n for n in SWEPT if n in variables), None)
    if name is None:
        return None
    xs = _xs(variables[name])
    table = [[_value(m.formula, m.variables, {name: x}) for x in xs] for m in models]
    # Sizes where a formula has no positive value (an all-to-all over one device) are left out.
    kept = [i for i in range(len(xs)) if all(row[i] is not None for row in table)]
    if len(kept) < 2:
        return None
    xs = [xs[i] for i in kept]
    curves = [
        Curve(model.label, tuple(row[i] for i in kept), model.status in TRUSTED)
        for model, row in zip(models, table, strict=True)
    ]
    meaning, x_unit = variables[name]["meaning"], variables[name].get("unit", "")
    return CostPlot(technique, quantity, unit, name, meaning, x_unit, tuple(xs), tuple(curves))


def _xs(variable: Mapping) -> list[float]:
    """POINTS sizes spread evenly on a log scale around the default, within the bounds."""
    default = float(variable["default"])
    low = max(default / SPAN, float(variable.get("min") or default / SPAN), 1e-300)
    high = min(default * SPAN, float(variable.get("max") or default * SPAN))
    if high <= low:
        return [default]
    step = (math.log10(high) - math.log10(low)) / (POINTS - 1)
    return [10 ** (math.log10(low) + i * step) for i in range(POINTS)]


def _value(formula: str, variables: list[Mapping], overrides: dict) -> float | None:
    values = {v["name"]: v["default"] for v in variables}
    values.update({k: v for k, v in overrides.items() if k in values})
    try:
        value = float(costs.evaluate(formula, values))
    except costs.FormulaError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def curves_svg(plot: CostPlot) -> str:
    """The plot as an <svg> element: one polyline per formula, dashed where unconfirmed."""
    xs = [math.log10(x) for x in plot.xs]
    ys = [math.log10(v) for curve in plot.curves for v in curve.values]
    x_range, y_range = _padded(xs), _padded(ys)
    x_scale = _scale(*x_range, MARGIN, WIDTH - 12)
    y_scale = _scale(*y_range, HEIGHT - MARGIN, 12)
    lines = []
    for index, curve in enumerate(plot.curves):
        points = " ".join(
            f"{x_scale(x):.1f},{y_scale(math.log10(v)):.1f}"
            for x, v in zip(xs, curve.values, strict=True)
        )
        cls = f"curve curve-{index % 6} " + ("confirmed" if curve.trusted else "unconfirmed")
        lines.append(
            f'<polyline class="{cls}" points="{points}"><title>{escape(curve.label)}</title>'
            "</polyline>"
        )
    return (
        f'<svg class="wd-plot cost-plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(plot.y_label)} against {escape(plot.meaning)}, log scales; the '
        'table lists the same numbers">'
        f'<g class="axes">{_axes(plot, x_range, y_range, x_scale, y_scale)}</g>'
        f'<g class="curves">{"".join(lines)}</g></svg>'
    )


def _axes(plot: CostPlot, x_range, y_range, x_scale, y_scale) -> str:
    label = f"{plot.variable}: {plot.meaning}" + (f" ({plot.unit})" if plot.unit else "")
    y_label = f"{plot.y_label} (log scale)"
    return log_axes(label, y_label, x_range, y_range, x_scale, y_scale)
