"""The planner's prediction for a measured result, through the planner's public function
(`plan.plan` on `machine.Inputs`), and the reason when the planner cannot express it.

The planner takes a machine (per-node throughput, memory, link latency and bandwidth, bytes per
value): the papers give the kind of device and interconnect, not these numbers. The values are
the planner's device and link table (explorer/planner/devices.py, the machine presets' too):
spec-sheet figures, most recalled (not read on a stored page), and the throughput is the peak:
every prediction says so. Pure but for the cost models the caller passes.
"""

from __future__ import annotations

import math
from statistics import median
from typing import Any

from explorer.planner import plan as planning
from explorer.planner.devices import (
    LINKS,
    RECALLED,
    Device,
    Link,
    device_named,
    devices,
    matching,
)
from explorer.planner.machine import BOUNDS, PRESETS, Inputs, PlannerInputError

# ImageNet-1k's training images (the standard split); LSVRC-2010 has about as many.
TRAINING_IMAGES = {"ImageNet-1k": 1_281_167, "ImageNet LSVRC-2010": 1_200_000}
STRATEGY = {"data": "data-ring", "single": "data-ring"}
# Transformer runs the planner holds as presets (the result's network as the paper names it ->
# the planner's preset), on the planner's A100 machine preset (its sources on /planner/).
TRANSFORMERS = {"gpt 1T": "megatron-1t", "gpt-3 175B": "gpt3-175b"}
TRANSFORMER_MACHINE = "a100-cluster"
ONE_DEVICE = Link("none", "none", 1.0, 1.0)  # one device: no link (its values unused)


def _cannot(reason: str) -> dict[str, Any]:
    return {"status": "not expressible", "reason": reason}


def _inputs(result: dict, networks: set[str]) -> tuple[Inputs, tuple[str, str]] | dict[str, Any]:
    """The planner's inputs for a result, or the reason it cannot take them."""
    config = result["config"]
    if config["network"] not in networks:
        return _cannot(f"the planner lacks the network ({config['network']})")
    if config["family"] not in STRATEGY:
        return _cannot(
            f"the planner's layouts cannot express this one ({config['strategy']}): its model "
            "parallelism splits whole layers between nodes"
        )
    if "TPU" in config["device_kind"]:
        return _cannot("the planner lacks the interconnect (a TPU pod's 2-D torus)")
    device = device_named(config["device_kind"])
    if device is None:
        return _cannot(f"the planner lacks the device ({config['device_kind']})")
    link = matching(LINKS, config["interconnect"]) if config["devices"] != 1 else ONE_DEVICE
    if link is None:
        return _cannot(f"the planner lacks the interconnect ({config['interconnect']})")
    if not config["global_batch"] or not config["devices"]:
        return _cannot("the paper's global batch or device count is not recorded")
    figures = {f["name"]: f["value"] for f in result["figures"]}
    if "time_to_train_s" not in figures or "epochs" not in figures:
        return _cannot("no measured time to train with its number of epochs to compare with")
    if config["dataset"] not in TRAINING_IMAGES:
        return _cannot(f"the dataset's size is not recorded ({config['dataset']})")
    batch = int(config["global_batch"])
    if batch > BOUNDS["batch"].high or config["devices"] > BOUNDS["P"].high:
        return _cannot(f"beyond the planner's bounds (batch {batch}, P {config['devices']})")
    fp16 = _precision(config) == "fp16-mixed"
    unknown = _unknown_figures(device, _peak_precision(device, config))
    if unknown:
        return _cannot(f"the device catalogue states no {unknown} of the {device.name}")
    flops = device.flops(_peak_precision(device, config))
    inputs = Inputs(
        network=config["network"],
        P=int(config["devices"]),
        batch=batch,
        flops=flops,
        memory_gb=device.memory_gb,
        latency_us=link.latency_us,
        bandwidth_gbs=link.bandwidth_gbs,
        gamma=2 if fp16 else 4,
    )
    return inputs, (device, link)


def _precision(config: dict) -> str:
    """The planner's precision of a result: mixed fp16 where the paper says so, else fp32."""
    return "fp16-mixed" if "fp16 mixed" in config["precision"] else "fp32"


def _peak_precision(device: Device, config: dict) -> str:
    """The precision whose peak a result runs at: its own, but mixed precision on a device
    without 16-bit units (no 16-bit peak in the catalogue, e.g. the P40) computes in fp32."""
    precision = _precision(config)
    return precision if device.flops(precision) is not None else "fp32"


def _unknown_figures(device: Device, precision: str) -> str:
    """The figures a prediction needs that no source states for the device ("" if none)."""
    missing = [f"peak FLOP/s at {precision}"] if device.flops(precision) is None else []
    missing += ["memory"] if device.memory_gb is None else []
    return " and no ".join(missing)


def predict(result: dict, formulas: Any, networks: set[str]) -> dict[str, Any]:
    """The planner's time to train for `result` beside the measured one (ratio predicted /
    measured), or why the planner cannot express it."""
    if result["config"]["network"] in TRANSFORMERS:
        return _predict_throughput(result, formulas)
    found = _inputs(result, networks)
    if isinstance(found, dict):
        return found
    inputs, (device, link) = found
    try:
        document = planning.plan(inputs, formulas, with_sweep=False)
    except PlannerInputError as error:
        return _cannot(f"the planner refuses the inputs: {error}")
    slug = STRATEGY[result["config"]["family"]]
    strategy = next(s for s in document["strategies"] if s["slug"] == slug)
    if strategy["step_time"] is None:
        return _cannot(f"the planner's {strategy['name']} does not apply: {strategy['reason']}")
    figures = {f["name"]: f["value"] for f in result["figures"]}
    images = TRAINING_IMAGES[result["config"]["dataset"]]
    steps = math.ceil(figures["epochs"] * images / inputs.batch)
    predicted = strategy["step_time"] * steps
    measured = figures["time_to_train_s"]
    return {
        "status": "predicted",
        "reason": "",
        "strategy": slug,
        "strategy_name": strategy["name"],
        "step_time_s": strategy["step_time"],
        "steps": steps,
        "predicted_time_to_train_s": predicted,
        "measured_time_to_train_s": measured,
        "ratio": predicted / measured,
        "fits": strategy["fits"],
        "quantity": "time to train",
        "inputs": _shown(inputs),
        "assumptions": (
            f"per-node throughput = the peak of one {device.name} "
            f"({_device_said(device, result['config'])}) "
            f"and the link's bandwidth and latency ({link.name}): {RECALLED}; "
            f"{steps} steps = epochs x {images} images / batch"
        ),
    }


def _device_said(device: Device, config: dict) -> str:
    """Where the device's peak comes from: the device catalogue's page, or recalled; and the
    fp32 peak of a mixed-precision run on a device without 16-bit units."""
    peak = _peak_precision(device, config)
    source = device.source(f"flops.{peak}") if device.in_catalogue else RECALLED
    if peak != _precision(config):
        source = f"{peak} peak: no {_precision(config)} peak stated, it computes in fp32; {source}"
    return f"the device catalogue, /devices/: {source}" if device.in_catalogue else source


def _shown(inputs: Inputs) -> dict[str, Any]:
    """The planner inputs a prediction states (the machine values it assumed)."""
    names = ("P", "batch", "flops", "memory_gb", "latency_us", "bandwidth_gbs", "gamma")
    return {name: getattr(inputs, name) for name in names}


def _measured_flops_per_device(result: dict) -> tuple[float, str] | None:
    """FLOP/s per device as the paper reports it: its aggregate over its devices where it gives
    one (read), else its per-device figure."""
    figures = {f["name"]: f for f in result["figures"]}
    devices = result["config"]["devices"]
    if "aggregate_flops" in figures and devices:
        figure = figures["aggregate_flops"]
        return figure[
            "value"
        ] / devices, f"aggregate_flops / {devices} devices ({figure['status']})"
    if "flops_per_device" in figures:
        figure = figures["flops_per_device"]
        return figure["value"], f"flops_per_device ({figure['status']})"
    return None


def _predict_throughput(result: dict, formulas: Any) -> dict[str, Any]:
    """A transformer run measured by its FLOP/s per device: the planner's step for the paper's
    layout (pinned), precision and full recomputation, at the device's peak (efficiency 1).
    The ratio is predicted / measured step time (= measured / predicted FLOP/s per device,
    both counted with recomputation), so that below 1 means the planner is optimistic, as for
    times to train."""
    config = result["config"]
    measured = _measured_flops_per_device(result)
    if measured is None or not config["devices"] or not config["global_batch"]:
        return _cannot("no FLOP/s per device, devices or global batch recorded to compare with")
    preset = PRESETS[TRANSFORMER_MACHINE]
    device = devices()[preset.device]
    if device_named(config["device_kind"]) is not device:
        return _cannot(
            f"the planner's transformer machine is an {device.name} cluster; this run used "
            f"{config['device_kind']}"
        )
    layout = config["layout"]
    try:
        inputs = Inputs(
            **{
                **preset.values,
                "network": TRANSFORMERS[config["network"]],
                "machine": preset.slug,
                "P": int(config["devices"]),
                "batch": int(config["global_batch"]),
                "tp": layout["tp"],
                "pp": layout["pp"],
                "dp": layout["dp"],
                "precision": "bf16-mixed" if "bf16" in config["precision"] else "fp16-mixed",
                "optimizer": "adam",
                "recompute": "full",
            }
        )
        document = planning.plan(inputs, formulas, with_sweep=False)
    except PlannerInputError as error:
        return _cannot(f"the planner refuses the inputs: {error}")
    usable = [s for s in document["strategies"] if s["applicable"]]
    if not usable:
        return _cannot(
            "the planner cannot run the paper's layout: " + document["strategies"][0]["reason"]
        )
    strategy = usable[0]
    predicted_flops = strategy["achieved_flops_per_device"]
    measured_flops, measured_from = measured
    return {
        "status": "predicted",
        "reason": "",
        "strategy": strategy["slug"],
        "strategy_name": strategy["name"],
        "step_time_s": strategy["step_time"],
        "steps": None,
        "predicted_time_to_train_s": None,
        "measured_time_to_train_s": None,
        "ratio": measured_flops / predicted_flops,
        "fits": strategy["fits"],
        "quantity": "FLOP/s per device",
        "predicted_flops_per_device": predicted_flops,
        "measured_flops_per_device": measured_flops,
        "inputs": _shown(inputs) | {"layout": {"dp": inputs.dp, "tp": inputs.tp, "pp": inputs.pp}},
        "assumptions": (
            f"the planner's {preset.slug} machine preset (its sources on /planner/), at the "
            "device's peak; the paper's layout pinned, its precision, Adam, full activation "
            "recomputation (counted in both figures), micro-batches of 1 sequence (the planner's "
            f"default); measured: {measured_from}"
        ),
    }


def summary(rows: list[dict]) -> list[dict[str, Any]]:
    """Per strategy family: how many results, how many predicted, the median and worst ratio
    (worst: farthest from 1 either way, as a factor)."""
    families: dict[str, list[dict]] = {}
    for row in rows:
        families.setdefault(row["config"]["family"], []).append(row)
    out = []
    for family, members in sorted(families.items()):
        ratios = [r["prediction"]["ratio"] for r in members if r["prediction"].get("ratio")]
        worst = max(ratios, key=lambda x: max(x, 1 / x)) if ratios else None
        out.append(
            {
                "family": family,
                "results": len(members),
                "predicted": len(ratios),
                "median_ratio": median(ratios) if ratios else None,
                "worst_ratio": worst,
            }
        )
    return out
