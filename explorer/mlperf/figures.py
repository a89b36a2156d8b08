"""Figures derived from MLPerf Training scores: pure (no ORM, no request), each figure labelled
"derived" with its formula, as the page shows it.

- samples per second per accelerator: the samples a run trained on to reach the target (its
  progress at the last evaluation, in samples) over its time, median over the successful runs,
  over the system's accelerators (or, where a log states its unit, the logged throughput);
- achieved FLOP/s per accelerator, and its fraction of the device's peak, for the benchmarks whose
  FLOPs per sample the planner counts (`FlopCount`: model FLOPs, without recomputation);
- scaling efficiency along a submitter's series of one system type (one round, one accelerator,
  one benchmark) at growing accelerator counts, against the series' smallest system.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import median
from typing import Any

# Throughput units that count samples (images, sequences); any other unit is not divided.
SAMPLE_UNITS = frozenset({"samples/s", "sample/s", "samples/sec", "images/s", "sequences/s"})
# The precisions a mixed-precision submission computes in: the peak is the higher of the two.
MIXED = ("bf16", "fp16")
PEAK_NOTE = (
    "against the device's dense fp16/bf16 peak (submissions on devices with fp8 may run parts in "
    "fp8, whose peak is twice as high)"
)


@dataclass(frozen=True)
class FlopCount:
    """The planner's training FLOPs for one sample of a benchmark's network."""

    network: str  # the planner's network key
    flops_per_sample: float
    label: str  # which count, e.g. "model FLOPs per 512-token sequence, no recomputation"


def derived(name: str, value: float | None, unit: str, formula: str) -> dict[str, Any]:
    return {"name": name, "value": value, "unit": unit, "status": "derived", "formula": formula}


@dataclass(frozen=True)
class Progress:
    """How many samples one unit of a benchmark's logged progress is, and where that comes from."""

    samples_per_unit: float
    how: str  # e.g. "epochs × ImageNet-1k's 1,281,167 training images"


@dataclass(frozen=True)
class Run:
    """What a successful run's log gives for its rate."""

    minutes: float | None
    at_target: float | None
    at_target_unit: str
    throughput: float | None
    throughput_unit: str


def samples_per_second(
    runs: Iterable[Run], progress: Mapping[str, Progress]
) -> tuple[float, str] | None:
    """A score's samples per second and its formula: the median over its successful runs of
    the samples trained to the target over the run's time (evaluations included, so a lower
    bound on the training rate), or, failing that, of a throughput logged in samples/s."""
    runs = list(runs)
    trained = [
        r.at_target * progress[r.at_target_unit].samples_per_unit / (r.minutes * 60)
        for r in runs
        if r.at_target and r.minutes and r.at_target_unit in progress
    ]
    if trained:
        how = progress[next(r.at_target_unit for r in runs if r.at_target_unit in progress)].how
        formula = (
            f"median over the successful runs of the samples trained to the target ({how}) / "
            "the run's time (run_start to run_stop, evaluations included)"
        )
        return median(trained), formula
    logged = [
        r.throughput
        for r in runs
        if r.throughput and r.throughput_unit.strip().lower() in SAMPLE_UNITS
    ]
    if logged:
        return median(logged), "median logged throughput of the successful runs (samples/s)"
    return None


def per_accelerator(
    rate: tuple[float, str] | None,
    accelerators: int | None,
    flops: FlopCount | None,
    peak: float | None,
) -> list[dict[str, Any]]:
    """The derived figures of one score from its samples/s and that rate's formula; a figure
    that cannot be derived is absent."""
    if not rate or not accelerators:
        return []
    each = rate[0] / accelerators
    figures = [
        derived("samples_per_s_per_accelerator", each, "samples/s", f"{rate[1]} / accelerators")
    ]
    if flops is None:
        return figures
    achieved = each * flops.flops_per_sample
    figures.append(
        derived(
            "flops_per_accelerator",
            achieved,
            "FLOP/s",
            f"samples/s per accelerator × {flops.flops_per_sample:.4g} FLOPs per sample "
            f"({flops.label}; the planner's count for {flops.network})",
        )
    )
    if peak:
        figures.append(
            derived(
                "fraction_of_peak",
                achieved / peak,
                "fraction",
                f"FLOP/s per accelerator / {peak:.4g} FLOP/s peak, {PEAK_NOTE}",
            )
        )
    return figures


def mixed_peak(peak_flops: Mapping[str, float | None] | None) -> float | None:
    """The device's dense peak for mixed-precision training (the higher of bf16 and fp16)."""
    values = [peak_flops.get(p) for p in MIXED] if peak_flops else []
    known = [v for v in values if v]
    return max(known) if known else None


def series_key(row: Mapping[str, Any]) -> tuple:
    """A submitter's system type in one round for one benchmark: what a series holds fixed."""
    return (row["round"], row["submitter"], row["device"], row["benchmark"], row["division"])


def scaling_efficiency(rows: Iterable[Mapping[str, Any]]) -> dict[Any, dict[str, Any]]:
    """Per score id, its scaling efficiency along its series: (t0 · n0) / (t · n), t the score in
    minutes and n the accelerators, 0 the series' smallest system (1 for it). Series of one
    system, or of an unknown device, have none."""
    series: dict[tuple, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["device"] and row["minutes"] and row["accelerators"]:
            series[series_key(row)].append(row)
    figures = {}
    for members in series.values():
        if len({m["accelerators"] for m in members}) < 2:
            continue
        members.sort(key=lambda m: (m["accelerators"], m["minutes"]))
        base = members[0]
        cost = base["minutes"] * base["accelerators"]
        formula = (
            f"(t0 · n0) / (t · n) against {base['system']} (n0 = {base['accelerators']}, "
            f"t0 = {base['minutes']:.4g} min): the submitter's smallest system of this type "
            "in this round"
        )
        for member in members:
            value = cost / (member["minutes"] * member["accelerators"])
            figures[member["id"]] = derived("scaling_efficiency", value, "fraction", formula)
    return figures
