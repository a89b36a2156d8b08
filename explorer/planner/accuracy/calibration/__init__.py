"""The planner against MLPerf Training's measurements: its accuracy and its calibrated default
efficiency (issue 38). The public API other features read:

- `accuracy()`: the accuracy document, fixtures/planner_accuracy.json (written by
  fixtures/build/planner_accuracy.py from explorer.planner.accuracy.calibration.document);
- `default_efficiency(device, family)`: the efficiency the planner uses when the user gives none,
  fitted on every round, with its basis;
- `comparable_runs(device, family, devices)`: measured runs like a query's, their peak fractions.

Reading needs no database and no planner module (the document is built offline)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from .fit import ANY, FORMULA, efficiency_at, lookup, quantile

# Where the fit's formula is stated once (a basis names it rather than repeating its 2 KB).
MODEL_PAGE = "/planner/accuracy/#model"

FIXTURE = Path(__file__).resolve().parents[4] / "fixtures" / "planner_accuracy.json"
NOT_BUILT: dict[str, Any] = {
    "format": 1,
    "status": "not built",
    "model": {"formula": FORMULA, "description": ""},
    "split": {"by": "round", "fitted_on": [], "held_out": [], "why": ""},
    "efficiency": [],
    "balances": {},
    "siblings": {},
    "errors": [],
    "predictions": [],
    "not_predicted": [],
    "coverage": [],
    "systematic": [],
    "published": {"runs": [], "summary": {"all": {}, "papers": {}, "not_predicted": 0}},
}
# The comparable runs' scale: within this factor of the query's devices.
SCALE_FACTOR = 4


@functools.cache
def accuracy() -> dict[str, Any]:
    """The accuracy document (loaded once); `"status": "not built"` with empty lists if absent.
    Callers must not mutate it."""
    if not FIXTURE.exists():
        return NOT_BUILT
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _all_rows() -> list[dict[str, Any]]:
    return [row for row in accuracy()["efficiency"] if row["fitted_on"] == "all"]


@functools.lru_cache(maxsize=1024)
def default_efficiency(
    device_slug: str | None,
    family: str,
    per_device_batch: float | None = None,
    precision: str = "",
    stack: str = "median",
) -> dict[str, Any]:
    """The planner's default efficiency on `device_slug` for a model `family` ("cnn",
    "encoder", "decoder", "lora") at `per_device_batch` samples per device per step (None: the
    fit's reference): fitted on every MLPerf round, the most specific fit there is (device ×
    family, family only, all runs), within the planner's bounds; 1.0 (the peak) when nothing
    is fitted."""
    balance = accuracy().get("balances", {}).get(device_slug or "")
    siblings = accuracy().get("siblings", {}).get(device_slug or "", [])
    found = lookup(_all_rows(), device_slug, family, balance, siblings)
    fitted = (
        efficiency_at(found, per_device_batch, precision, stack)
        if found["runs"]
        else found["value"]
    )
    value = round(min(1.0, max(0.01, fitted)), 6)
    clipped = " (clipped to the planner's bound of 1)" if fitted > 1 else ""
    if found.get("beta") and per_device_batch:
        clipped += (
            f", at {per_device_batch:g} samples per device per step × ({per_device_batch:g} / "
            f"{found['batch_ref']:g})^{found['beta']:.3g}"
        )
    where = {
        "device × family": f"{device_slug} × {family}",
        "family only": f"{family} on every device",
        "family only × device balance": f"{family} on every device, brought to "
        f"{device_slug}'s bytes per FLOP",
        "all runs": "every MLPerf score",
    }.get(found["basis"], found["basis"])
    basis = (
        f"fitted on the measured MLPerf Training scores' throughput against the planner's "
        f"({where}, {found['runs']} scores, every round){clipped}; the model: {MODEL_PAGE}"
        if found["runs"]
        else "the device's peak (no measured runs fitted: fixtures/planner_accuracy.json absent)"
    )
    return {"value": value, "runs": found["runs"], "basis": basis, "fit": found["basis"]}


# What a score page shows of its prediction (the rest is on /planner/accuracy/).
SHOWN = (
    "predicted_throughput",
    "measured_throughput",
    "throughput_unit",
    "ratio",
    "predicted_minutes",
    "layout",
    "layout_basis",
    "strategy",
    "efficiency",
    "efficiency_basis",
    "peak_fraction",
    "peak_note",
    "precision",
    "held_out",
    "assumed",
)


def prediction_for(version: str, system_id: str, benchmark: str) -> dict[str, Any] | None:
    """The planner's prediction of one MLPerf score (round, system, benchmark) as the accuracy
    document holds it, or None when the planner does not predict it."""
    key = (version, system_id, benchmark)
    found = next(
        (
            p
            for p in accuracy()["predictions"]
            if (p["round"], p["system_id"], p["benchmark"]) == key
        ),
        None,
    )
    if found is None:
        return None
    return {name: found.get(name) for name in SHOWN}


def comparable_runs(device_slug: str | None, family: str, devices: int) -> dict[str, Any]:
    """Measured runs on the same device and model family within a factor SCALE_FACTOR of
    `devices` (else at any scale, else the family on any device; `widened` says so): the 10th
    and 90th percentiles of the fraction of the peak they reached in model FLOPs (MFU, at most
    1), count and entries."""
    predictions = accuracy()["predictions"]
    same = [
        p for p in predictions if p["model_family"] == family and p["device"] == (device_slug or "")
    ]
    near = [
        p for p in same if devices / SCALE_FACTOR <= p["accelerators"] <= devices * SCALE_FACTOR
    ]
    widened = ""
    if not near:
        near, widened = (
            same,
            f"no run within a factor {SCALE_FACTOR} of {devices} devices: any scale",
        )
    if not near:
        near = [p for p in predictions if p["model_family"] == family]
        widened = f"no run on {device_slug or 'this device'}: the family on every device"
    fractions = [p["mfu"] for p in near if p.get("mfu") is not None]
    return {
        "low": quantile(fractions, 0.1) if fractions else None,
        "high": quantile(fractions, 0.9) if fractions else None,
        "n": len(near),
        "widened": widened,
        "runs": near,
    }


__all__ = ["ANY", "accuracy", "comparable_runs", "default_efficiency", "prediction_for"]
