"""A transformer result's prediction: the planner's step for the paper's model (a preset, or the
planner's custom transformer with the paper's sizes: paper_inputs.TRANSFORMER_RUNS), its layout
pinned, its batch, precision and recomputation, on the paper's devices. Compared as step times
(ratio = predicted / measured, below 1: the planner is optimistic), the measured step formed
from the paper's figure with the FLOP count that figure uses:

- FLOP/s per device: measured step = the count per step / (P x FLOP/s per device), the count
  being Megatron-LM 2021's with the recomputed forward pass where the paper counts so;
- model FLOPs utilisation: measured step = model FLOPs per step / (P x utilisation x peak);
- device-hours: predicted = P x step x steps (tokens / tokens per step), against the paper's;
- a total FLOP count: the planner's model FLOPs over the tokens against the paper's (a count,
  not a time: no efficiency applies).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from explorer.planner import public as planning
from explorer.planner.public import PRESETS, Inputs, PlannerInputError
from explorer.workloads.devices import LINKS, Device, device_named, matching
from explorer.workloads.transformers.shapes import PRESETS as MODELS

from .offload import gpu_memory, offload_time
from .paper_inputs import TransformerRun
from .predict_cnn import cannot, precision

A100_MACHINE = "a100-cluster"


def _figures(result: dict) -> dict[str, float]:
    return {f["name"]: f["value"] for f in result["figures"]}


def _machine(run: TransformerRun, device: Device, config: dict) -> dict[str, Any] | str:
    """The machine values: the planner's A100 preset for A100 80GB runs, else the device's
    catalogue figures with the interconnect's link between nodes."""
    preset = PRESETS[A100_MACHINE]
    if device.slug == preset.device:
        return {**preset.values, "machine": preset.slug, "device": device.slug}
    link = matching(LINKS, config["interconnect"]) if (config["devices"] or 1) > 1 else None
    flops = device.flops(precision(config))
    if flops is None or device.memory_gb is None:
        return f"the device catalogue states no {precision(config)} peak or memory of {device.name}"
    values = {"flops": flops, "memory_gb": device.memory_gb, "device": device.slug}
    if link is not None:
        values |= {"latency_us": link.latency_us, "bandwidth_gbs": link.bandwidth_gbs}
    # A TPU pod's chips share one torus: its link is the link inside a "node" as well.
    intra = device.intra_bandwidth_gbs or (link.bandwidth_gbs if link is not None else None)
    if run.devices_per_node and intra:
        values |= {
            "devices_per_node": run.devices_per_node.value,
            "intra_bandwidth_gbs": intra,
            "intra_latency_us": 1.0,
        }
    return values


def _layout(run: TransformerRun, config: dict) -> dict[str, int]:
    layout = {k: v for k, v in (config.get("layout") or {}).items() if k in ("tp", "pp", "dp")}
    layout |= {name: given.value for name, given in run.layout.items()}
    return layout


def inputs_for(result: dict, run: TransformerRun) -> Inputs | str:
    """The planner's inputs for the result (at the peak), or why it cannot take them."""
    config = result["config"]
    named = run.device.value if run.device else config["device_kind"]
    device = device_named(named)
    if device is None:
        return f"the planner lacks the device ({named})"
    machine = _machine(run, device, config)
    if isinstance(machine, str):
        return machine
    defaults = MODELS[run.network].defaults if run.network in MODELS else {}
    values: dict[str, Any] = {
        **{k: v for k, v in defaults.items() if k in ("batch", "micro_batch_size", "tokens")},
        **machine,
        "network": run.network,
        "precision": precision(config) if precision(config) != "fp32" else "fp16-mixed",
        "optimizer": "adam",
        "recompute": run.recompute,
        **{name: given.value for name, given in run.shape.items()},
        **_layout(run, config),
    }
    devices = config["devices"] or (run.P.value if run.P else None)
    batch = run.batch.value if run.batch else config["global_batch"]
    if devices:
        values["P"] = int(devices)
    if batch and (run.batch or config["batch_unit"] == "sequences"):  # run.batch: sequences
        values["batch"] = int(batch)
    if run.micro_batch_size:
        values["micro_batch_size"] = run.micro_batch_size.value
    if run.phases:  # the first phase's shape (each phase is planned on its own)
        first = run.phases[0]
        per_device = max(1, first.batch // int(devices or 1))
        values |= {"seq_len": first.seq_len, "batch": first.batch, "micro_batch_size": per_device}
    try:
        return Inputs(**values)
    except (TypeError, ValueError) as error:
        return f"the planner refuses the inputs: {error}"


def _planned(inputs: Inputs, formulas: Any, efficiency: float) -> tuple[dict, dict] | str:
    try:
        document = planning.plan(replace(inputs, efficiency=efficiency), formulas, False)
    except PlannerInputError as error:
        return f"the planner refuses the inputs: {error}"
    usable = [s for s in document["strategies"] if s["applicable"]]
    if not usable:
        return "the planner cannot run the paper's layout: " + document["strategies"][0]["reason"]
    return usable[0], document["network"]


def predict(
    result: dict, formulas: Any, run: TransformerRun, efficiency_for: Callable[[float], dict]
) -> dict:
    """The prediction at the peak and at the calibrated efficiency for the run's samples
    (sequences) per device per step: ratio_at_peak and ratio."""
    inputs = inputs_for(result, run)
    if isinstance(inputs, str):
        return cannot(inputs)
    calibrated = efficiency_for(inputs.batch / inputs.P)
    efficiency = calibrated["value"]
    at_peak = _planned(inputs, formulas, 1.0)
    chosen = _planned(inputs, formulas, efficiency)
    if isinstance(at_peak, str) or isinstance(chosen, str):
        return cannot(at_peak if isinstance(at_peak, str) else str(chosen))
    strategy, network = chosen
    peak_strategy, fits = at_peak[0], strategy["fits"]
    host = None
    if run.offload:  # the host's share of the step (offload.py): at any GPU efficiency
        per_host = run.devices_per_node.value if run.devices_per_node else 1
        host = offload_time(network["parameters"], strategy["layout"], per_host)
        strategy = strategy | {"step_time": strategy["step_time"] + host["seconds"]}
        peak_strategy = peak_strategy | {"step_time": peak_strategy["step_time"] + host["seconds"]}
        fits = gpu_memory(strategy) <= inputs.memory_gb * 1e9
    compared = _compared(
        result,
        run,
        replace(inputs, efficiency=efficiency),
        network,
        (peak_strategy, strategy),
        formulas,
    )
    if isinstance(compared, str):
        return cannot(compared)
    layout = {k: strategy["layout"].get(k) for k in ("dp", "tp", "pp")}
    return {
        "status": "predicted",
        "reason": "",
        "strategy": strategy["slug"],
        "strategy_name": strategy["name"],
        "step_time_s": strategy["step_time"],
        "step_time_at_peak_s": peak_strategy["step_time"],
        "steps": None,
        "fits": fits,
        "device": inputs.device,
        "efficiency": calibrated,
        "inputs": _shown(inputs) | {"layout": layout},
        **compared,
        "assumptions": _assumptions(run, inputs, layout)
        + (f"; ZeRO-Offload's host term added to the step: {host['formula']}" if host else ""),
    }


def _phases(run: TransformerRun, inputs: Inputs, measured: float, formulas: Any) -> dict | str:
    """A time to train in phases: each phase's steps x the planner's step for its sequence
    length and batch, at the peak and at the efficiency."""
    totals = {}
    for efficiency in (1.0, inputs.efficiency):
        total = 0.0
        for phase in run.phases:
            per_device = max(1, phase.batch // inputs.P)
            changed = replace(
                inputs, seq_len=phase.seq_len, batch=phase.batch, micro_batch_size=per_device
            )
            found = _planned(changed, formulas, efficiency)
            if isinstance(found, str):
                return found
            total += found[0]["step_time"] * phase.steps
        totals[efficiency] = total
    chosen = totals[inputs.efficiency]
    phases = "; ".join(
        f"{p.steps:.0f} steps of {p.batch} sequences of {p.seq_len} tokens" for p in run.phases
    )
    phases += " (" + "; ".join(dict.fromkeys(p.source for p in run.phases)) + ")"
    return {
        "quantity": "time to train",
        "predicted_time_to_train_s": chosen,
        "predicted_time_to_train_at_peak_s": totals[1.0],
        "measured_time_to_train_s": measured,
        "ratio": chosen / measured,
        "ratio_at_peak": totals[1.0] / measured,
        "compared": f"times to train, in phases: {phases}",
        "headline": f"time to train {chosen:.4g} s predicted, {measured:.4g} s measured",
    }


def _compared(
    result: dict,
    run: TransformerRun,
    inputs: Inputs,
    network: dict,
    steps: tuple[dict, dict],
    formulas: Any,
) -> dict | str:
    """The measured and predicted figures, and the ratios at the efficiency and at the peak."""
    peak, chosen = steps
    figures, P = _figures(result), inputs.P
    if run.count == "phases":
        return _phases(run, inputs, figures["time_to_train_s"], formulas)
    if run.count == "total":
        total = network["model_flops_per_step"] / network["tokens_per_step"]
        tokens = inputs.tokens or 0.0
        predicted = total * tokens
        ratio = predicted / figures["total_flops"]
        return {
            "quantity": "training FLOPs (a count)",
            "predicted_total_flops": predicted,
            "measured_total_flops": figures["total_flops"],
            "ratio": ratio,
            "ratio_at_peak": ratio,
            "headline": f"{predicted:.3g} FLOPs predicted, {figures['total_flops']:.3g} measured",
            "compared": (
                f"FLOP counts: the planner's model FLOPs (without recomputation) over {tokens:.3g} "
                "tokens against the paper's total (no time: the efficiency does not apply)"
            ),
        }
    if run.count == "time":
        steps_needed = (inputs.tokens or 0.0) / network["tokens_per_step"]
        hours = P * steps_needed / 3600
        measured = figures["device_hours"]
        return {
            "quantity": "device-hours",
            "predicted_device_hours": chosen["step_time"] * hours,
            "measured_device_hours": measured,
            "ratio": chosen["step_time"] * hours / measured,
            "ratio_at_peak": peak["step_time"] * hours / measured,
            "compared": f"device-hours: P x step time x {steps_needed:.0f} steps",
            "headline": f"{chosen['step_time'] * hours:.4g} device-hours predicted, "
            f"{measured:.4g} measured",
        }
    measured_step = _measured_step(result, run, inputs, network)
    if isinstance(measured_step, str):
        return measured_step
    step, how = measured_step
    return {
        "quantity": "step time",
        "measured_step_time_s": step,
        "ratio": chosen["step_time"] / step,
        "ratio_at_peak": peak["step_time"] / step,
        "compared": how,
        "headline": f"step {chosen['step_time']:.4g} s predicted, {step:.4g} s measured",
    }


def _measured_step(
    result: dict, run: TransformerRun, inputs: Inputs, network: dict
) -> tuple[float, str] | str:
    figures, P = _figures(result), inputs.P
    if run.count == "model":
        utilisation = run.utilisation.value if run.utilisation else figures.get("utilisation")
        if utilisation is None:
            return "no model FLOPs utilisation recorded"
        count = network["model_flops_per_step"]
        step = count / (P * utilisation * inputs.flops)
        return step, (
            f"step times: measured = model FLOPs per step ({count:.4g}) / (P x utilisation "
            f"{utilisation} x peak {inputs.flops:.4g} FLOP/s); {run.count_source}"
        )
    per_device, said = _per_device(result, P)
    if per_device is None:
        return "no FLOP/s per device recorded to compare with"
    count = network["megatron_flops_per_step"]
    return count / (P * per_device), (
        f"step times: measured = FLOPs per step as the paper counts them ({count:.4g}) / "
        f"(P x {per_device:.4g} FLOP/s per device, {said}); {run.count_source}"
    )


def _per_device(result: dict, P: int) -> tuple[float | None, str]:
    figures = {f["name"]: f for f in result["figures"]}
    if "aggregate_flops" in figures:
        figure = figures["aggregate_flops"]
        return figure["value"] / P, f"aggregate_flops / {P} devices ({figure['status']})"
    if "flops_per_device" in figures:
        figure = figures["flops_per_device"]
        return figure["value"], f"flops_per_device ({figure['status']})"
    return None, ""


def _assumptions(run: TransformerRun, inputs: Inputs, layout: dict) -> str:
    model = (
        f"the planner's preset {run.network}"
        if run.network != "transformer"
        else "the planner's custom transformer with the paper's sizes: "
        + ", ".join(f"{name} {g.value} ({g.source})" for name, g in run.shape.items())
    )
    given = [f"{name} {g.value}: {g.source}" for name, g in run.layout.items()]
    for name in ("device", "utilisation", "batch", "micro_batch_size", "devices_per_node", "P"):
        value = getattr(run, name)
        if value is not None:
            given.append(f"{name} {value.value}: {value.source}")
    machine = (
        f"the planner's {A100_MACHINE} machine preset (its sources on /planner/)"
        if inputs.machine == A100_MACHINE
        else f"the device catalogue's {inputs.device} (/devices/), links from the planner's table"
    )
    pinned = "the paper's layout pinned" if run.count != "time" else "the planner's best layout"
    parts = [
        model,
        machine,
        f"{pinned} (dp {layout['dp']}, tp {layout['tp']}, pp {layout['pp']})",
        f"{inputs.precision}, Adam, recomputation {inputs.recompute}",
    ]
    return "; ".join(parts + given)


def _shown(inputs: Inputs) -> dict[str, Any]:
    names = ("P", "batch", "flops", "memory_gb", "latency_us", "bandwidth_gbs", "devices_per_node")
    return {name: getattr(inputs, name) for name in names}
