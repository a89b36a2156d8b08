"""Numbers and pieces shared by the /costs/ figures: crossings of sampled curves, JSON-safe
lists, number formatting, and the result document every plot returns. Pure."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from explorer.costs.records import CostFormula

CURVE_POINTS = 120
LINE_COLOURS = ["#2457a6", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#16a085", "#7f8c8d"]
DOUBT_COLOUR = "#b07d00"


def crossovers(x: Sequence[float], curves: Mapping[str, Sequence[float | None]]) -> list[dict]:
    """Where two sampled curves cross: where their difference changes sign between neighbouring
    usable samples, interpolated linearly in log x (or the sample where they are equal).
    Samples that are None or not finite are skipped, and curves that only touch do not cross.
    Returns {a, b, x, y} sorted by x."""
    xs = np.asarray(x, dtype=float)
    names = list(curves)
    found = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ya, yb = _array(curves[a]), _array(curves[b])
            difference = ya - yb
            usable = [
                j for j in range(len(xs)) if np.isfinite(difference[j]) and difference[j] != 0
            ]
            for j, k in zip(usable, usable[1:], strict=False):
                if np.sign(difference[j]) == np.sign(difference[k]):
                    continue
                zeros = [i for i in range(j + 1, k) if difference[i] == 0]
                if zeros:  # the curves meet on a sample: that is the crossing
                    crossing, y = float(xs[zeros[0]]), float(ya[zeros[0]])
                else:  # interpolate between the samples, across any gap
                    t = difference[j] / (difference[j] - difference[k])
                    crossing = math.exp(math.log(xs[j]) + t * (math.log(xs[k]) - math.log(xs[j])))
                    y = ya[j] + t * (ya[k] - ya[j])
                found.append({"a": a, "b": b, "x": float(crossing), "y": float(y)})
    return sorted(found, key=lambda c: c["x"])


def _array(values: Sequence[float | None]) -> np.ndarray:
    return np.array([math.nan if v is None else v for v in values], dtype=float)


def finite_list(values: Iterable[float]) -> list[float | None]:
    """JSON-safe: NaN and infinities become None (null), which Plotly leaves as a gap."""
    return [float(v) if v is not None and math.isfinite(v) else None for v in values]


def format_number(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.4g}"


def status_phrase(formula: CostFormula) -> str:
    phrase = formula.status_label or formula.status
    return phrase if formula.confirmed else f"{phrase}, not confirmed"


def plot_result(
    name: str, description: str, figure: dict, used: Iterable[CostFormula], **data
) -> dict:
    formulas = list({f.id: f for f in used}.values())
    return {
        "name": name,
        "description": description,
        "formulas": [f.summary() for f in formulas],
        "unconfirmed": [f.label for f in formulas if not f.confirmed],
        "figure": figure,
        "data": data,
    }
