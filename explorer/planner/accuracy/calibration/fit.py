"""The efficiency model, its fit and its evaluation on held-out runs. Pure: prediction entries
(dicts with `device`, `model_family`, `peak_fraction`...) in, dicts out.

Model (FORMULA): efficiency = e(device, family) × (b / b_ref(family))^beta(family), b the
samples per device per step. Fitted on each score's needed efficiency (the planner efficiency
that reproduces its measured throughput), not on the peak fraction directly: the planner's
communication does not scale with the efficiency, so where it is exposed the two differ."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import median
from typing import Any

MIN_RUNS = 3
MIN_SLOPE_RUNS = 10
MIN_BALANCE_DEVICES = 4
FORMULA = (
    "efficiency(device, family, b) = e(device, family) × (b / b_ref)^β(family), b = samples per "
    "device per step (global batch / accelerators); e = the median over the fitted scores of "
    f"that device and family (at least {MIN_RUNS}) of the needed efficiency × (b_ref / b)^β, "
    "else over the family on every device, else (LoRA, a frozen decoder) the decoder's rows, "
    "else over every score (β = 0); a device without a fitted row of that family first takes "
    "a fitted sibling's (the same vendor and 16-bit peak in the device catalogue: the same "
    "compute with another memory, H200 for H100) before the family's; a sibling's or "
    "family's row is brought to the device by e × (B / B_ref)^α, B = the device's machine balance "
    "(peak memory bandwidth / 16-bit peak FLOP/s, bytes per FLOP, both from the device "
    "catalogue), B_ref = the row's B (the sibling's, else the median of the family's fitted "
    "scores), α(family) = the slope of "
    f"log e(device, family) on log B over the family's fitted device rows (at least "
    f"{MIN_BALANCE_DEVICES} devices, else α = 0), clipped to [0, 1], and B clipped to the "
    "range of those devices' B (no extrapolation) "
    "(the roofline's argument: the memory-bound part of a step, normalisation, activations, "
    "optimizer, runs at the memory bandwidth, so a device with fewer bytes per FLOP reaches "
    "less of its peak); the needed "
    "efficiency of a score = the planner efficiency at which the planner's samples/s equal the "
    "measured ones (the peak fraction, measured / planner at peak, where communication is "
    "hidden); β = the family's slope of log needed efficiency against log b within each "
    "(device, family) group, pooled (least squares, clipped to [0, 1]); b_ref = the family's "
    "median b. The prediction is the planner at that efficiency (compute at peak × efficiency, "
    "communication unchanged); above 1 (the fitted runs beat the planner at peak: it counts "
    "more work than they did, BERT's sequences padded to 512 tokens) the planner at peak × "
    "efficiency; the planner's own default is clipped to 1"
)
ANY = "*"
# LoRA fine-tunes a frozen decoder: until LoRA runs are fitted, its efficiency is the decoder's
# (its forward and activation-gradient passes are the decoder's kernels).
PARENT_FAMILY = {"lora": "decoder"}


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics (numpy's default)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def per_device(entry: Mapping[str, Any]) -> float:
    """b: samples per device per step."""
    return entry["global_batch"] / entry["accelerators"]


def _row(
    key: tuple[str, str], members: list[Mapping[str, Any]], scale: tuple[float, float], on: str
) -> dict[str, Any]:
    beta, reference = scale
    fractions = [m["peak_fraction"] for m in members]
    brought = [m["needed"] * (reference / per_device(m)) ** beta for m in members]
    balances = [m["balance"] for m in members if m.get("balance")]
    return {
        "device": key[0],
        "family": key[1],
        "value": round(median(brought), 6),
        "beta": round(beta, 6),
        "batch_ref": reference,
        "runs": len(members),
        "low": round(quantile(fractions, 0.1), 6),
        "high": round(quantile(fractions, 0.9), 6),
        "fitted_on": on,
        # The members' machine balance: the device's (device rows), the median (family rows).
        "balance": float(f"{median(balances):.6g}") if balances else None,
    }


def _balance_range(rows: Sequence[Mapping[str, Any]], family: str) -> list[float] | None:
    """[lowest, highest] machine balance of the family's fitted device rows: the device term
    does not extrapolate beyond them."""
    found = [r["balance"] for r in rows if r["device"] != ANY and r["family"] == family]
    found = [b for b in found if b]
    return [min(found), max(found)] if found else None


def _balance_slope(rows: Sequence[Mapping[str, Any]], family: str) -> float:
    """α(family): the least-squares slope of log e(device, family) on log machine balance over
    the family's fitted device rows (each device once), in [0, 1]; 0 with fewer than
    MIN_BALANCE_DEVICES rows (a family's memory-bound share is its own: not pooled)."""
    points = [
        (math.log(row["balance"]), math.log(row["value"]))
        for row in rows
        if row["device"] != ANY and row["family"] == family and row["balance"]
    ]
    if len(points) < MIN_BALANCE_DEVICES:
        return 0.0
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return 0.0
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return min(1.0, max(0.0, slope))


def _slope(groups: Iterable[list[Mapping[str, Any]]]) -> float:
    """The pooled within-group least-squares slope of log needed efficiency on log b, in [0, 1]."""
    sxy = sxx = 0.0
    count = 0
    for members in groups:
        xs = [math.log(per_device(m)) for m in members]
        ys = [math.log(m["needed"]) for m in members]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        sxy += sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
        sxx += sum((x - mx) ** 2 for x in xs)
        count += len(members)
    if count < MIN_SLOPE_RUNS or sxx == 0:
        return 0.0
    return min(1.0, max(0.0, sxy / sxx))


def fit(entries: Iterable[Mapping[str, Any]], fitted_on: str) -> list[dict[str, Any]]:
    """The efficiency table: one row per (device, family) with at least MIN_RUNS scores, per
    family (device "*") and for all (family "*"), sorted; each with its family's β and b_ref, and
    the family rows with the stacks' spread. An FP8 run's needed efficiency is a fraction of its
    FP8 roofline, a 16-bit run's of its 16-bit one: both are a stack's share of what its
    hardware allowed, fitted together."""
    entries = list(entries)
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for entry in entries:
        groups[(entry["device"], entry["model_family"])].append(entry)
        groups[(ANY, entry["model_family"])].append(entry)
        groups[(ANY, ANY)].append(entry)
    scales: dict[str, tuple[float, float]] = {ANY: (0.0, 1.0)}
    for (device, family), members in groups.items():
        if device == ANY and family != ANY:
            fitted = [
                m for (d, f), m in groups.items() if f == family and d != ANY and len(m) >= MIN_RUNS
            ]
            reference = median(per_device(m) for m in members)
            scales[family] = (_slope(fitted), float(f"{reference:.6g}"))
    rows = [
        _row((device, family), members, scales[family], fitted_on)
        for (device, family), members in sorted(groups.items())
        if len(members) >= MIN_RUNS or device == ANY
    ]
    spreads = stack_spreads(groups)
    for row in rows:
        if row["device"] == ANY and row["family"] != ANY:
            # No device-balance term since the roofline prices the memory-bound work at each
            # device's bandwidth: the term would count it twice.
            row["alpha"] = round(_balance_slope(rows, row["family"]), 6)
            row["balance_range"] = _balance_range(rows, row["family"])
        if row["device"] == ANY:
            row["spread"] = spreads.get(row["family"], spreads.get(ANY))
    return rows


def stack_spreads(groups: Mapping[tuple[str, str], list[Mapping[str, Any]]]) -> dict[str, Any]:
    """The software stacks' spread on one device: each run's needed efficiency over its (device,
    family) group's median (groups of at least MIN_RUNS), pooled per family (and over every
    family, "*"): the 10th, 50th and 90th percentiles and the count. Submitters differ on the
    same device (tuning, versions, kernels): the spread says by how much."""
    ratios: dict[str, list[float]] = defaultdict(list)
    for (device, family), members in groups.items():
        if device == ANY or family == ANY or len(members) < MIN_RUNS:
            continue
        middle = median(m["needed"] for m in members)
        for m in members:
            ratios[family].append(m["needed"] / middle)
            ratios[ANY].append(m["needed"] / middle)
    return {
        family: {
            "q10": round(quantile(values, 0.1), 6),
            "q50": round(quantile(values, 0.5), 6),
            "q90": round(quantile(values, 0.9), 6),
            "runs": len(values),
        }
        for family, values in ratios.items()
    }


# The software stacks a plan may assume: "median" (the default: the fitted median of MLPerf's
# stacks on the device) or "decile" (the 10th percentile of the stacks' spread on one device: a
# slower stack than most submitters ran).
STACKS = ("median", "decile")
SLOWER_QUANTILE = "q10"


def efficiency_at(
    row: Mapping[str, Any],
    per_device_batch: float | None,
    precision: str = "",
    stack: str = "median",
) -> float:
    """A row's efficiency at b samples per device per step (its value when b is unknown), times
    the spread's 10th percentile for the decile stack. (`precision` is accepted for the callers'
    symmetry: an FP8 row is already in units of the FP8 roofline.)"""
    value = row["value"]
    if stack == "decile":
        value *= (row.get("spread") or {}).get(SLOWER_QUANTILE, 1.0)
    if not per_device_batch or not row.get("beta"):
        return value
    return value * (per_device_batch / row["batch_ref"]) ** row["beta"]


def lookup(
    table: Sequence[Mapping[str, Any]],
    device: str | None,
    family: str,
    balance: float | None = None,
    siblings: Sequence[str] = (),
) -> dict[str, Any]:
    """The efficiency for (device, family): the most specific row of the table, and its basis.
    A device without fitted runs of that family takes a fitted sibling's row (the same vendor
    and 16-bit peak: the same compute, another memory), else the family's; either brought to
    the device's machine `balance` (bytes per FLOP) by the device term, (B / B_row)^α."""
    rows = {(r["device"], r["family"]): r for r in table}
    found = _most_specific(rows, device or "", family, siblings)
    term = rows.get((ANY, found["family"]), {})
    found["spread"] = term.get("spread")
    alpha = term.get("alpha") or 0.0
    if found["device"] == (device or "") or not alpha or not balance or not found["balance"]:
        return found
    low, high = term.get("balance_range") or (balance, balance)
    factor = (min(max(balance, low), high) / found["balance"]) ** alpha
    return {
        **found,
        "value": round(found["value"] * factor, 6),
        "basis": f"{found['basis']} × device balance",
        "balance_factor": round(factor, 6),
    }


def _most_specific(
    rows: Mapping[tuple[str, str], Mapping[str, Any]],
    device: str,
    family: str,
    siblings: Sequence[str],
) -> dict[str, Any]:
    parent = PARENT_FAMILY.get(family)
    steps = [((device, family), "device × family")]
    steps += [((s, family), f"sibling {s} × family") for s in siblings]
    steps += [((ANY, family), "family only")]
    if parent:  # a family with no fitted runs of its own takes its base network's
        steps += [((device, parent), f"device × {parent} ({family}'s base network)")]
        steps += [
            ((s, parent), f"sibling {s} × {parent} ({family}'s base network)") for s in siblings
        ]
        steps += [((ANY, parent), f"{parent} only ({family}'s base network)")]
    for key, basis in (*steps, ((ANY, ANY), "all runs")):
        if key in rows:
            return {"balance": None, **rows[key], "basis": basis}
    return {
        "device": ANY,
        "family": ANY,
        "value": 1.0,
        "runs": 0,
        "balance": None,
        "basis": "no fit (peak)",
    }


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
            way = "faster (optimistic)" if bias > 1 else "slower (pessimistic)"
            found.append(
                {
                    "where": f"{kind}: {where}",
                    "bias": round(bias, 6),
                    "n": len(ratios),
                    "says": f"at {kind} {where}, the held-out predictions are {way} than "
                    f"measured: median predicted / measured {bias:.2f} over {len(ratios)} scores",
                }
            )
    return found
