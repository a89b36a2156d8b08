"""The planner's prediction for a measured result, through the planner's public function
(`plan.plan` on `machine.Inputs`), and the reason when the planner cannot express it.

CNN results (predict_cnn.py): a time to train or a throughput, on the paper's devices (the
device catalogue) and links (the planner's table). Transformer results (predict_transformer.py):
the paper's model and layout (paper_inputs.py), compared as step times with the FLOP count the
paper's figure uses, or as device-hours, or as a FLOP count. Every prediction is made twice:
at the devices' peak and at the calibrated default efficiency
(explorer.planner.accuracy.calibration, per device and model family, measured on MLPerf's
runs); `ratio` is the calibrated one, `ratio_at_peak` the other, `efficiency` says which value
and on what basis. A ratio is predicted / measured time: below 1 the planner is optimistic. Pure
but for the cost models the caller passes.
"""

from __future__ import annotations

from statistics import median
from typing import Any

from explorer.planner.public import default_efficiency as calibrated
from explorer.workloads.devices import device_named

from . import predict_cnn, predict_transformer
from .paper_inputs import NOT_EXPRESSIBLE, TRANSFORMER_RUNS


def default_efficiency(
    device: str | None, family: str, per_device_batch: float | None = None
) -> dict[str, Any]:
    """The calibrated fraction of peak for a device and model family at so many samples per
    device per step (the planner's default: the calibration's most specific fit, or the peak
    when nothing is fitted, its basis said)."""
    found = calibrated(device, family, per_device_batch)
    return {key: found[key] for key in ("value", "runs", "basis", "fit") if key in found}


def model_family(result: dict) -> str:
    """The model family the calibration is keyed by: CNNs, encoders, decoders."""
    network = result["config"]["network"]
    if result["id"] in TRANSFORMER_RUNS:
        return "encoder" if "bert" in network else "decoder"
    return "cnn"


def predict(result: dict, formulas: Any, networks: set[str]) -> dict[str, Any]:
    """The planner's prediction for `result` beside the measured figure (ratio predicted /
    measured time, at the calibrated efficiency and at the peak), or why it cannot."""
    if result["id"] in NOT_EXPRESSIBLE:
        return predict_cnn.cannot(NOT_EXPRESSIBLE[result["id"]])
    device = device_named(result["config"]["device_kind"] or "")
    family = model_family(result)

    def efficiency(per_device_batch: float) -> dict[str, Any]:
        slug = device.slug if device else None
        return default_efficiency(slug, family, per_device_batch) | {"family": family}

    if result["id"] in TRANSFORMER_RUNS:
        run = TRANSFORMER_RUNS[result["id"]]
        return predict_transformer.predict(result, formulas, run, efficiency)
    return predict_cnn.predict(result, formulas, networks, efficiency)


def _median(values: list[float]) -> float | None:
    return median(values) if values else None


def summary(rows: list[dict]) -> list[dict[str, Any]]:
    """Per strategy family: how many results, how many predicted, the median and worst ratio
    at the calibrated efficiency (worst: farthest from 1 either way, as a factor), and the
    median at the peak."""
    families: dict[str, list[dict]] = {}
    for row in rows:
        families.setdefault(row["config"]["family"], []).append(row)
    out = []
    for family, members in sorted(families.items()):
        predicted = [r["prediction"] for r in members if r["prediction"].get("ratio")]
        ratios = [p["ratio"] for p in predicted]
        worst = max(ratios, key=lambda x: max(x, 1 / x)) if ratios else None
        out.append(
            {
                "family": family,
                "results": len(members),
                "predicted": len(ratios),
                "median_ratio": _median(ratios),
                "median_ratio_at_peak": _median([p["ratio_at_peak"] for p in predicted]),
                "worst_ratio": worst,
            }
        )
    return out
