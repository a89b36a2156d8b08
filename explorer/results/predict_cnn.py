"""A CNN result's prediction: the planner's step for the paper's machine (devices from the device
catalogue, links from the planner's table), its batch and precision, then either the time to
train (epochs x images / batch steps) or the throughput (batch / step time), whichever the
paper measured. Both compared as times: ratio = predicted / measured time (for a throughput,
measured / predicted samples per second), so that below 1 the planner is optimistic.

Pure but for the cost models the caller passes; the efficiency is the caller's (peak or
calibrated), applied through the planner's own `efficiency` input.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from explorer.planner import public as planning
from explorer.planner.public import BOUNDS, Inputs, PlannerInputError
from explorer.workloads.datasets import TRAINING_IMAGES
from explorer.workloads.devices import LINKS, RECALLED, Device, Link, device_named, matching

from .paper_inputs import CNN_GIVEN, Given

# ImageNet-1k's training images (the standard split); LSVRC-2010 has about as many.
FAMILIES = ("data", "single")
ONE_DEVICE = Link("none", "none", 1.0, 1.0)  # one device: no link (its values unused)
# A TPU pod's allreduce runs on a 2-D torus (Ying et al.'s): the planner's nearest is
# Rabenseifner's (reduce-scatter and allgather by recursive halving, log P latency steps).
TPU_STRATEGY = "data-rabenseifner"
GPU_STRATEGY = "data-ring"


def cannot(reason: str) -> dict[str, Any]:
    return {"status": "not expressible", "reason": reason}


def precision(config: dict) -> str:
    """The planner's precision of a result: bf16 (TPUs' bfloat16) or fp16 mixed where the paper
    says so, else fp32."""
    text = config["precision"].lower()
    if "bfloat16" in text or "bf16" in text:
        return "bf16-mixed"
    return "fp16-mixed" if "fp16 mixed" in text else "fp32"


def peak_precision(device: Device, config: dict) -> str:
    """The precision whose peak a result runs at: its own, but mixed precision on a device
    without 16-bit units (no 16-bit peak in the catalogue, e.g. the P40) computes in fp32."""
    chosen = precision(config)
    return chosen if device.flops(chosen) is not None else "fp32"


def _given(result: dict) -> dict[str, Given]:
    return CNN_GIVEN.get(result["id"], {})


def measured(result: dict) -> tuple[str, float] | None:
    """What the paper measured that the planner can predict: a time to train with its epochs,
    else a throughput."""
    figures = {f["name"]: f["value"] for f in result["figures"]}
    given = _given(result)
    if "time_to_train_s" in figures and ("epochs" in figures or "epochs" in given):
        return "time to train", figures["time_to_train_s"]
    if "samples_per_s" in figures:
        return "throughput", figures["samples_per_s"]
    if "speedup" in figures and "baseline_devices" in given:
        return "speedup", figures["speedup"]
    return None


def prepare(result: dict, networks: set[str]) -> tuple[Inputs, dict] | dict[str, Any]:
    """The planner's inputs for a CNN result and what the prediction states, or the reason it
    cannot take them."""
    config, given = result["config"], _given(result)
    if config["network"] not in networks:
        return cannot(f"the planner lacks the network ({config['network']})")
    if config["family"] not in FAMILIES:
        return cannot(f"no planner layout for this strategy ({config['strategy']})")
    device = device_named(config["device_kind"])
    if device is None:
        return cannot(f"the planner lacks the device ({config['device_kind']})")
    link = matching(LINKS, config["interconnect"]) if config["devices"] != 1 else ONE_DEVICE
    if link is None:
        return cannot(f"the planner lacks the interconnect ({config['interconnect']})")
    batch = config["global_batch"] or (given["batch"].value if "batch" in given else None)
    if not batch or not config["devices"]:
        return cannot("the paper's global batch or device count is not recorded")
    what = measured(result)
    if what is None:
        return cannot("no measured time to train with its epochs, nor a throughput")
    if what[0] == "time to train" and config["dataset"] not in TRAINING_IMAGES:
        return cannot(f"the dataset's size is not recorded ({config['dataset']})")
    if batch > BOUNDS["batch"].high or config["devices"] > BOUNDS["P"].high:
        return cannot(f"beyond the planner's bounds (batch {batch}, P {config['devices']})")
    peak = peak_precision(device, config)
    if device.flops(peak) is None:
        return cannot(f"the device catalogue states no peak FLOP/s at {peak} of the {device.name}")
    if device.memory_gb is None and config["devices"] != 1:
        return cannot(f"the device catalogue states no memory of the {device.name}")
    inputs = Inputs(
        network=config["network"],
        P=int(config["devices"]),
        batch=int(batch),
        flops=device.flops(peak),
        # One device's time does not depend on its memory: unknown, the bound (fits unchecked).
        memory_gb=device.memory_gb or BOUNDS["memory_gb"].high,
        latency_us=link.latency_us,
        bandwidth_gbs=link.bandwidth_gbs,
        gamma=2 if precision(config) != "fp32" else 4,
    )
    strategy = TPU_STRATEGY if link.slug.startswith("tpu-") else GPU_STRATEGY
    if "strategy" in given:  # the paper's own exchange, where the planner has it
        strategy = given["strategy"].value
    return inputs, {"device": device, "link": link, "strategy": strategy, "measured": what}


def step(inputs: Inputs, formulas: Any, slug: str, efficiency: float) -> dict | str:
    """The planner's strategy `slug` at `efficiency` (its dict), or the reason it does not
    apply."""
    try:
        document = planning.plan(replace(inputs, efficiency=efficiency), formulas, False)
    except PlannerInputError as error:
        return f"the planner refuses the inputs: {error}"
    strategy = next(s for s in document["strategies"] if s["slug"] == slug)
    if strategy["step_time"] is None:
        return f"the planner's {strategy['name']} does not apply: {strategy['reason']}"
    return strategy


def predict(
    result: dict, formulas: Any, networks: set[str], efficiency_for: Callable[[float], dict]
) -> dict:
    """The CNN prediction at the peak and at the calibrated efficiency for its samples per
    device (`efficiency_for`): ratio_at_peak and ratio."""
    found = prepare(result, networks)
    if isinstance(found, dict):
        return found
    inputs, meta = found
    calibrated = efficiency_for(inputs.batch / inputs.P)
    efficiency = calibrated["value"]
    at_peak = step(inputs, formulas, meta["strategy"], 1.0)
    at_efficiency = step(inputs, formulas, meta["strategy"], efficiency)
    if isinstance(at_peak, str) or isinstance(at_efficiency, str):
        return cannot(at_peak if isinstance(at_peak, str) else str(at_efficiency))
    quantity, value = meta["measured"]
    out = {
        "status": "predicted",
        "reason": "",
        "strategy": meta["strategy"],
        "strategy_name": at_efficiency["name"],
        "step_time_s": at_efficiency["step_time"],
        "step_time_at_peak_s": at_peak["step_time"],
        "fits": at_efficiency["fits"] if inputs.memory_gb != BOUNDS["memory_gb"].high else None,
        "quantity": quantity,
        "inputs": shown(inputs),
        "device": meta["device"].slug,
        "efficiency": calibrated,
    }
    if quantity == "time to train":
        out |= _time_to_train(result, inputs, at_peak, at_efficiency, value)
    elif quantity == "speedup":
        baseline = _baseline(result, inputs, formulas, meta["strategy"], efficiency)
        if isinstance(baseline, str):
            return cannot(baseline)
        out |= _speedup(inputs, baseline, (at_peak, at_efficiency), value)
    else:
        out |= _throughput(inputs, at_peak, at_efficiency, value)
    out["assumptions"] = _assumptions(result, inputs, meta, out)
    return out


def _time_to_train(result: dict, inputs: Inputs, peak: dict, chosen: dict, value: float) -> dict:
    figures = {f["name"]: f["value"] for f in result["figures"]}
    epochs = figures.get("epochs") or _given(result)["epochs"].value
    images = TRAINING_IMAGES[result["config"]["dataset"]]
    steps = math.ceil(epochs * images / inputs.batch)
    return {
        "steps": steps,
        "predicted_time_to_train_s": chosen["step_time"] * steps,
        "predicted_time_to_train_at_peak_s": peak["step_time"] * steps,
        "measured_time_to_train_s": value,
        "ratio": chosen["step_time"] * steps / value,
        "ratio_at_peak": peak["step_time"] * steps / value,
        "compared": f"times to train: {steps} steps = {epochs} epochs x {images} images / batch",
        "headline": f"time to train {chosen['step_time'] * steps:.4g} s predicted, {value:.4g} s "
        "measured",
    }


def _baseline(
    result: dict, inputs: Inputs, formulas: Any, slug: str, efficiency: float
) -> tuple[Inputs, dict, dict] | str:
    """The speedup's baseline run: the paper's fewer devices at the same batch per device, on
    their own link; its step at the peak and at the efficiency."""
    given = _given(result)
    devices = int(given["baseline_devices"].value)
    named = given["baseline_interconnect"].value if devices > 1 else ""
    link = matching(LINKS, named) if devices > 1 else ONE_DEVICE
    if link is None:
        return f"the planner lacks the baseline's link ({named})"
    base = replace(
        inputs,
        P=devices,
        batch=inputs.batch // inputs.P * devices,
        latency_us=link.latency_us,
        bandwidth_gbs=link.bandwidth_gbs,
    )
    at_peak, at_efficiency = step(base, formulas, slug, 1.0), step(base, formulas, slug, efficiency)
    if isinstance(at_peak, str) or isinstance(at_efficiency, str):
        return at_peak if isinstance(at_peak, str) else str(at_efficiency)
    return base, at_peak, at_efficiency


def _speedup(inputs: Inputs, baseline: tuple, steps: tuple[dict, dict], value: float) -> dict:
    """The same epochs on both runs: the speedup is the baseline's time per sample over the
    run's (step / batch each); ratio = measured / predicted speedup (the run's predicted time
    over its measured one, the baseline's taken as measured)."""
    base, base_peak, base_chosen = baseline
    peak, chosen = steps

    def speedup(base_step: dict, run_step: dict) -> float:
        return (base_step["step_time"] / base.batch) / (run_step["step_time"] / inputs.batch)

    predicted, at_peak = speedup(base_chosen, chosen), speedup(base_peak, peak)
    return {
        "steps": None,
        "predicted_speedup": predicted,
        "predicted_speedup_at_peak": at_peak,
        "measured_speedup": value,
        "ratio": value / predicted,
        "ratio_at_peak": value / at_peak,
        "compared": (
            f"speedups over {base.P} devices at the same batch per device ({base.batch} on "
            f"{base.P}, {inputs.batch} on {inputs.P}) and the same epochs (assumed: neither run's "
            "epochs are recorded): (baseline step / "
            "its batch) / (step / batch); ratio = measured / predicted speedup"
        ),
        "headline": f"speedup {predicted:.3g}x predicted, {value:.3g}x measured",
    }


def _throughput(inputs: Inputs, peak: dict, chosen: dict, value: float) -> dict:
    predicted = inputs.batch / chosen["step_time"]
    return {
        "steps": None,
        "predicted_samples_per_s": predicted,
        "predicted_samples_per_s_at_peak": inputs.batch / peak["step_time"],
        "measured_samples_per_s": value,
        "ratio": value / predicted,
        "ratio_at_peak": value * peak["step_time"] / inputs.batch,
        "compared": "step times: measured = batch / measured images per second",
        "headline": f"{predicted:.4g} samples/s predicted, {value:.4g} measured",
    }


def _assumptions(result: dict, inputs: Inputs, meta: dict, out: dict) -> str:
    device, link, config = meta["device"], meta["link"], result["config"]
    peak = peak_precision(device, config)
    source = device.source(f"flops.{peak}") if device.in_catalogue else RECALLED
    if peak != precision(config):
        source = f"{peak} peak: no {precision(config)} peak stated, it computes in fp32; {source}"
    where = "the device catalogue, /devices/: " if device.in_catalogue else ""
    given = "; ".join(f"{name} {g.value}: {g.source}" for name, g in _given(result).items())
    parts = [
        f"per-node throughput = the peak of one {device.name} ({where}{source})",
        f"the link's bandwidth and latency ({link.name}): {link.source}"
        if config["devices"] != 1
        else "one device: no exchange",
        f"layout: {inputs.P} data-parallel replicas ({out['strategy']})",
    ]
    if out["fits"] is None:
        parts.append("memory not stated by the catalogue: whether it fits is not checked")
    return "; ".join(parts + ([given] if given else []))


def shown(inputs: Inputs) -> dict[str, Any]:
    """The planner inputs a prediction states (the machine values it assumed)."""
    names = ("P", "batch", "flops", "memory_gb", "latency_us", "bandwidth_gbs", "gamma")
    return {name: getattr(inputs, name) for name in names}
