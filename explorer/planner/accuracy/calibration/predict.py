"""One MLPerf score beside the planner: the measured throughput (samples trained to the target
over the score's time), the planner's throughput at the device's peak (efficiency 1) and, with
an efficiency from the calibration, its prediction. Pure: plain mappings in, dicts out (the
formulas are passed by the caller)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import replace
from statistics import median
from typing import Any

from ... import plan as planning
from ...machine import BOUNDS, Inputs, PlannerInputError
from .benchmarks import BENCHMARKS, Benchmark
from .machine import (
    SystemMachine,
    device_balances,
    machine_from_system,
    recorded_evaluations,
    with_recorded_precision,
)

THROUGHPUT_FORMULA = (
    "median over the score's successful runs of the samples trained to the target (the last "
    "evaluation's progress × samples per unit) / the score's time before RCP scaling "
    "(olympic_minutes, else minutes; run_start to run_stop, evaluations included); for the "
    "GPT-3 and Llama benchmarks, where every successful run's log marks its evaluations, the "
    "median over those runs of the samples / the run's training time (run_start to run_stop "
    "less the evaluations, eval_start to eval_stop: the planner predicts training steps)"
)
WHOLE_TIME = "the score's whole time, evaluations included"
TRAINING_TIME = "training time: each run's evaluations, read in its log, taken out"


def _samples(run: Mapping[str, Any], benchmark: Benchmark) -> float | None:
    if run.get("at_target") and run.get("at_target_unit") in benchmark.units:
        return run["at_target"] * benchmark.units[run["at_target_unit"]]
    return None


def training_throughput(
    system: Mapping[str, Any], good: Sequence[Mapping[str, Any]], benchmark: Benchmark, least: float
) -> float | None:
    """The median over the successful runs of samples / training time, where every one of them
    has its evaluation time recorded; else None."""
    evaluations = recorded_evaluations()
    rates = []
    for run in good:
        key = (system.get("round"), system.get("system_id"), benchmark.slug, run.get("index"))
        samples, spent = _samples(run, benchmark), evaluations.get(key)
        if samples is None or spent is None or run.get("start") is None or not run.get("stop"):
            return None
        training = run["stop"] - run["start"] - spent
        if samples < least or training <= 0:
            return None
        rates.append(samples / training)
    return median(rates) if rates else None


def measured_throughput(
    score: Mapping[str, Any],
    runs: Sequence[Mapping[str, Any]],
    benchmark: Benchmark,
    system: Mapping[str, Any] | None = None,
) -> tuple[float, int, str] | str:
    """(samples/s, global batch, which time) of a score, or why it has none."""
    minutes = score.get("olympic_minutes") or score.get("minutes")
    if not minutes:
        return "no valid score"
    good = [r for r in runs if r["status"] == "success"]
    least = max(benchmark.least_samples, r_batch(runs))
    samples = [s for s in (_samples(r, benchmark) for r in good) if s and s >= least]
    if not samples:
        return "no successful run logs its progress at the target in a known unit"
    batches = [r["global_batch"] for r in good if r.get("global_batch")]
    if not batches:
        return "no run logs its global batch"
    batch = int(median(batches))
    if benchmark.training_time and system is not None:
        training = training_throughput(system, good, benchmark, least)
        if training:
            return training, batch, TRAINING_TIME
    return median(samples) / (minutes * 60), batch, WHOLE_TIME


def r_batch(runs: Sequence[Mapping[str, Any]]) -> int:
    """The smallest global batch the runs log (a run trains at least one step)."""
    return min((r["global_batch"] for r in runs if r.get("global_batch")), default=0)


def _why_none(strategies: Sequence[Mapping[str, Any]]) -> str:
    """Why no strategy runs, in words shared by every score it concerns (no sizes)."""
    reasons = " ".join(s.get("reason") or "" for s in strategies)
    why = "no layout fits in the planner's memory model"
    if "batch does not split" in reasons:
        why += ", or the global batch does not split into dp × micro-batch"
    return why


def _usable(document: Mapping[str, Any], benchmark: Benchmark) -> Mapping[str, Any] | str:
    strategies = document["strategies"]
    if benchmark.strategy:
        strategies = [s for s in strategies if s["slug"].startswith(benchmark.strategy)]
    fitting = [s for s in strategies if s["applicable"] and s["fits"] and s["step_time"]]
    if not fitting:
        return _why_none(strategies)
    return min(fitting, key=lambda s: s["step_time"])


@functools.lru_cache(maxsize=4096)
def _step(inputs: Inputs, formulas_key: int) -> tuple[float, str, dict, float | None] | str:
    """(step time, strategy slug, layout, model FLOPs per step) of the planner for `inputs`, or
    why not (cached: many scores share a machine and batch)."""
    formulas = _FORMULAS[formulas_key]
    benchmark = next(b for b in BENCHMARKS.values() if b.network == inputs.network)
    try:
        document = planning.plan(inputs, formulas, with_sweep=False)
    except PlannerInputError as error:
        return f"the planner refuses the inputs: {error}"
    strategy = _usable(document, benchmark)
    if isinstance(strategy, str):
        return strategy
    layout = strategy.get("layout") or {"dp": inputs.P, "tp": 1, "pp": 1}
    # A layer table counts no recomputation: its training FLOPs are the model's.
    network = document["network"]
    model_flops = network.get("model_flops_per_step") or network.get("flops_per_step")
    return strategy["step_time"], strategy["slug"], dict(layout), model_flops


_FORMULAS: dict[int, Any] = {}


def planner_step(inputs: Inputs, formulas: Any) -> tuple[float, str, dict, float | None] | str:
    _FORMULAS[id(formulas)] = formulas
    return _step(inputs, id(formulas))


def inputs_for(machine: SystemMachine, benchmark: Benchmark, batch: int) -> Inputs | str:
    """The planner inputs of a benchmark on a system's machine at its global batch."""
    if batch > BOUNDS["batch"].high:
        return f"global batch {batch} beyond the planner's bound ({BOUNDS['batch'].high:g})"
    values = {**machine.values, **benchmark.inputs}
    if benchmark.strategy == "data":  # a transformer pinned data parallel
        values["dp"] = machine.accelerators
        # One micro-batch of the device's samples per step (NO_ACCUMULATION), not micro-batches
        # of one sequence: only the last micro-batch's backward pass would hide the exchange.
        if batch % machine.accelerators == 0:
            values["micro_batch_size"] = batch // machine.accelerators
    if batch < machine.accelerators and benchmark.strategy:
        return f"global batch {batch} smaller than the {machine.accelerators} accelerators"
    return Inputs(network=benchmark.network, batch=batch, **values)


def _smaller_divisor(size: int) -> int:
    """The largest divisor of `size` below it (1 for a prime)."""
    return next(d for d in range(size // 2, 0, -1) if size % d == 0)


def strategy_family(layout: Mapping[str, Any]) -> str:
    """The strategy family of a layout: data parallel when neither tensor nor pipeline split."""
    return "data" if layout.get("tp", 1) == 1 and layout.get("pp", 1) == 1 else "3d"


def at_peak(
    system: Mapping[str, Any],
    score: Mapping[str, Any],
    runs: Sequence[Mapping[str, Any]],
    formulas: Any,
) -> dict[str, Any] | str:
    """A score's measured throughput beside the planner's at peak, or why it is not predicted."""
    benchmark = BENCHMARKS[score["benchmark"]]
    if benchmark.not_expressible:
        return benchmark.not_expressible
    machine = machine_from_system(system)
    if isinstance(machine, str):
        return machine
    if benchmark.family != "cnn":
        machine = with_recorded_precision(machine, system, score["benchmark"])
        if isinstance(machine, str):
            return machine
    measured = measured_throughput(score, runs, benchmark, system)
    if isinstance(measured, str):
        return measured
    throughput, batch, measured_time = measured
    inputs = inputs_for(machine, benchmark, batch)
    if isinstance(inputs, str):
        return inputs
    step = planner_step(inputs, formulas)
    while isinstance(step, str) and inputs.micro_batch_size > 1:
        # The device's samples do not fit as one micro-batch: accumulate over two or more.
        inputs = replace(inputs, micro_batch_size=_smaller_divisor(inputs.micro_batch_size))
        step = planner_step(inputs, formulas)
    if isinstance(step, str):
        return step
    seconds, slug, layout, model_flops = step
    predicted = batch / seconds
    # The fraction of the peak the run reached, counted in the model's FLOPs (no recomputation,
    # the planner's count for the benchmark's network): at most 1 by physics, unlike
    # peak_fraction (measured over the planner at peak, whose communication may be exposed
    # where the run hid it).
    mfu = (
        throughput * model_flops / batch / (machine.accelerators * machine.values["flops"])
        if model_flops and benchmark.flops_known
        else None
    )
    return {
        "benchmark": benchmark.slug,
        "accelerators": machine.accelerators,
        "devices_per_node": machine.per_node,
        "device": machine.device,
        "network": benchmark.network,
        "family": strategy_family(layout),
        "model_family": benchmark.family,
        "strategy": slug,
        "layout": {k: layout[k] for k in ("dp", "tp", "pp") if k in layout},
        "layout_basis": benchmark.layout,
        "global_batch": batch,
        "precision": machine.precision,
        "measured_throughput": throughput,
        "measured_time": measured_time,
        "throughput_unit": "samples/s",
        "predicted_at_peak": predicted,
        "peak_fraction": throughput / predicted,
        "mfu": mfu,
        "measured_minutes": score.get("minutes"),
        "step_time_at_peak": seconds,
        "assumed": "; ".join(machine.assumed),
        "balance": device_balances().get(machine.device),
        "_inputs": inputs,
    }


NEEDED_ROUNDS = 4


def throughput_at(entry: Mapping[str, Any], efficiency: float, formulas: Any) -> float:
    """The planner's samples/s for an entry's inputs at `efficiency` (within its bounds)."""
    inputs = replace(entry["_inputs"], efficiency=min(1.0, max(0.01, efficiency)))
    step = planner_step(inputs, formulas)
    seconds = step[0] if not isinstance(step, str) else entry["step_time_at_peak"] / efficiency
    return entry["global_batch"] / seconds


def needed_efficiency(entry: Mapping[str, Any], formulas: Any) -> float:
    """The efficiency at which the planner's throughput is the measured one: the fixed point of
    e <- e × measured / planner(e) from e = peak_fraction (NEEDED_ROUNDS rounds; compute at
    peak × e, communication unchanged, so the planner is not proportional to e where its
    communication is exposed). Above the peak (measured faster than the planner at peak): the
    peak fraction itself, which the planner cannot take (efficiency at most 1)."""
    efficiency = entry["peak_fraction"]
    if efficiency >= 1:
        return efficiency
    for _ in range(NEEDED_ROUNDS):
        efficiency *= entry["measured_throughput"] / throughput_at(entry, efficiency, formulas)
        if efficiency >= 1 or efficiency <= 0.01:
            break
    return efficiency


def with_efficiency(entry: dict[str, Any], efficiency: float, formulas: Any) -> dict[str, Any]:
    """The planner's prediction at `efficiency` (compute at peak × efficiency, communication
    unchanged): throughput, ratio predicted / measured and time to train. An efficiency above 1
    (the fitted runs beat the planner at peak: it counts more work than they did, BERT's
    sequences padded to 512 tokens) scales the planner's throughput at peak by it."""
    predicted = throughput_at(entry, efficiency, formulas) * max(1.0, efficiency)
    ratio = predicted / entry["measured_throughput"]
    minutes = entry["measured_minutes"]
    return {
        "efficiency": max(0.01, efficiency),
        "predicted_throughput": predicted,
        "ratio": ratio,
        "predicted_minutes": minutes / ratio if minutes else None,
    }
