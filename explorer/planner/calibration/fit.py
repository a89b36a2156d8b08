"""The efficiency model, its fit and its evaluation on held-out runs. Pure: prediction entries
(dicts with `device`, `model_family`, `peak_fraction`...) in, dicts out.

Model: the efficiency of a (device, model family) is the median peak_fraction of the fitted runs
on that device and family when there are at least MIN_RUNS of them; else the median over the
family on every device; else over every run. peak_fraction = measured throughput / the
planner's throughput at the device's peak (efficiency 1)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import median
from typing import Any

MIN_RUNS = 3
FORMULA = (
    "efficiency(device, family) = median of peak_fraction over the fitted scores of that device "
    f"and model family (at least {MIN_RUNS}), else over the family on every device, else over "
    "every score; peak_fraction = measured samples/s / the planner's samples/s at the device's "
    "16-bit peak (efficiency 1); the prediction is the planner's throughput at that efficiency "
    "(compute at peak × efficiency, communication unchanged)"
)
ANY = "*"


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics (numpy's default)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _row(device: str, family: str, fractions: list[float], fitted_on: str) -> dict[str, Any]:
    return {
        "device": device,
        "family": family,
        "value": round(median(fractions), 6),
        "runs": len(fractions),
        "low": round(quantile(fractions, 0.1), 6),
        "high": round(quantile(fractions, 0.9), 6),
        "fitted_on": fitted_on,
    }


def fit(entries: Iterable[Mapping[str, Any]], fitted_on: str) -> list[dict[str, Any]]:
    """The efficiency table: one row per (device, family) with at least MIN_RUNS scores, per
    family (device "*") and for all (family "*"), sorted."""
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for entry in entries:
        fraction = entry["peak_fraction"]
        groups[(entry["device"], entry["model_family"])].append(fraction)
        groups[(ANY, entry["model_family"])].append(fraction)
        groups[(ANY, ANY)].append(fraction)
    return [
        _row(device, family, fractions, fitted_on)
        for (device, family), fractions in sorted(groups.items())
        if len(fractions) >= MIN_RUNS or device == ANY
    ]


def lookup(table: Sequence[Mapping[str, Any]], device: str | None, family: str) -> dict[str, Any]:
    """The efficiency for (device, family): the most specific row of the table, and its basis."""
    rows = {(r["device"], r["family"]): r for r in table}
    for key, basis in (
        ((device or "", family), "device × family"),
        ((ANY, family), "family only"),
        ((ANY, ANY), "all runs"),
    ):
        if key in rows:
            return {**rows[key], "basis": basis}
    return {"device": ANY, "family": ANY, "value": 1.0, "runs": 0, "basis": "no fit (peak)"}


def abs_errors(entries: Iterable[Mapping[str, Any]]) -> list[float]:
    return [abs(e["ratio"] - 1) for e in entries]


def _summary(entries: list[Mapping[str, Any]]) -> dict[str, Any]:
    errors = abs_errors(entries)
    return {
        "n": len(entries),
        "median": round(median(errors), 6),
        "p90": round(quantile(errors, 0.9), 6),
        "bias": round(median(e["ratio"] for e in entries), 6),
    }


def errors(held_out: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per benchmark and strategy family (and per benchmark over its families, family "*", and
    over all, benchmark "*"): n, median and p90 of |predicted / measured - 1|, and the median
    ratio (bias)."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for entry in held_out:
        groups[(entry["benchmark"], entry["family"])].append(entry)
        groups[(entry["benchmark"], ANY)].append(entry)
        groups[(ANY, entry["family"])].append(entry)
        groups[(ANY, ANY)].append(entry)
    return [
        {"benchmark": benchmark, "family": family, **_summary(members)}
        for (benchmark, family), members in sorted(groups.items())
    ]


SCALES = ((8, "1-8 accelerators"), (64, "9-64"), (512, "65-512"), (4096, "513-4,096"))
SYSTEMATIC = math.log(1.25)  # a median log ratio beyond ±22 %: the page says so
MIN_SYSTEMATIC = 5


def scale_bucket(accelerators: int) -> str:
    return next((name for top, name in SCALES if accelerators <= top), "over 4,096")


def systematic(held_out: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Where held-out predictions are consistently off: per scale bucket, device and model
    family, the median ratio when its log is beyond ±log 1.25 over at least MIN_SYSTEMATIC."""
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for entry in held_out:
        ratio = entry["ratio"]
        groups[("scale", scale_bucket(entry["accelerators"]))].append(ratio)
        groups[("device", entry["device"])].append(ratio)
        groups[("family", entry["model_family"])].append(ratio)
    found = []
    for (kind, where), ratios in sorted(groups.items()):
        bias = median(ratios)
        if len(ratios) >= MIN_SYSTEMATIC and abs(math.log(bias)) > SYSTEMATIC:
            way = "optimistic (predicts faster)" if bias > 1 else "pessimistic (predicts slower)"
            found.append(
                {
                    "where": f"{kind}: {where}",
                    "bias": round(bias, 6),
                    "n": len(ratios),
                    "says": f"held-out predictions at {kind} {where} are {way} than measured: "
                    f"median predicted / measured {bias:.2f} over {len(ratios)} scores",
                }
            )
    return found
