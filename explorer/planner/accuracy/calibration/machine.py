"""A planner machine from an MLPerf system: its device from the device catalogue (the system's
`device_slug`), nodes x accelerators per node, the intra-node link from the device catalogue and
the link between nodes read from the system's host-interconnect text where it states one, else
an assumption per device generation, labelled as such in every prediction's `assumed` text.

Pure: a system is a mapping of the fixture's columns (fixtures/mlperf.json.gz, `systems`)."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from catalogue import devices as catalogue
from explorer.workloads.devices import devices

# Latencies: no MLPerf system description states one; the a100-cluster preset's example values.
INTER_LATENCY_US = 5.0
INTRA_LATENCY_US = 1.0
# The link between nodes per accelerator where the system's text states no rate: one network
# adapter per accelerator at the rate its generation's reference nodes carry (recalled, not read).
ASSUMED_GBS = (
    ("v100", 12.5, "one 100 Gb/s EDR InfiniBand adapter per GPU (DGX-1/DGX-2 generation)"),
    ("a100", 25.0, "one 200 Gb/s HDR InfiniBand adapter per GPU (DGX A100 generation)"),
    ("h100", 50.0, "one 400 Gb/s NDR InfiniBand adapter per GPU (DGX H100 generation)"),
    ("h200", 50.0, "one 400 Gb/s NDR InfiniBand adapter per GPU (DGX H100 generation)"),
    ("b300", 100.0, "one 800 Gb/s ConnectX-8 adapter per GPU (B300 generation)"),
    ("gb300", 100.0, "one 800 Gb/s ConnectX-8 adapter per GPU (GB300 generation)"),
    ("b200", 50.0, "one 400 Gb/s ConnectX-7 adapter per GPU (DGX B200 generation)"),
    ("gb200", 50.0, "one 400 Gb/s ConnectX-7 adapter per GPU (GB200 generation)"),
    ("mi3", 50.0, "one 400 Gb/s adapter per GPU (MI300 generation)"),
    ("tpu", 50.0, "400 Gb/s per chip between hosts (no TPU rate recorded)"),
    ("", 25.0, "one 200 Gb/s adapter per accelerator (no rate recorded for the generation)"),
)
# A link inside the node where the device catalogue states none (PCIe cards).
ASSUMED_INTRA_GBS = 32.0
ASSUMED_INTRA = "PCIe 4.0 x16, 32 GB/s per direction (the device catalogue states no link)"
RECALLED = "assumed (recalled, not read on a stored page)"
# Rates by InfiniBand generation, for a text naming the generation without a rate.
IB_RATES = {"XDR": 800.0, "NDR": 400.0, "HDR": 200.0, "EDR": 100.0, "FDR": 56.0}
NOT_COMPUTE = re.compile(r"management|storage|\bns\b|idrac|1gb|gigabit", re.IGNORECASE)
COUNT = re.compile(r"^\s*(\d+)\s*x\s*", re.IGNORECASE)
RATE = re.compile(r"(\d+(?:\.\d+)?)\s*G(?:b/s|b/sec|bps|b\b|bit)", re.IGNORECASE)


@dataclass(frozen=True)
class SystemMachine:
    """The planner inputs of a system's machine, and what was assumed to build it."""

    device: str
    precision: str
    accelerators: int
    per_node: int
    values: dict[str, Any]  # machine.Inputs keyword arguments
    assumed: list[str] = field(default_factory=list)
    inter_node: str = ""  # how the link between nodes was found ("stated: ..." or "assumed: ...")


def _parts(text: str) -> list[str]:
    """The compute parts of a host-interconnect text: split at , ; + and labels, without the
    management and storage adapters."""
    parts = re.split(r"[,;+]|\band\b", text)
    return [re.sub(r"^\s*compute\s*:\s*", "", p, flags=re.IGNORECASE) for p in parts]


def stated_inter_node(text: str) -> float | None:
    """Gbit/s between a node and the others, as the system's text states it: the sum over its
    compute adapters of count x rate (Gb/s; an InfiniBand generation's rate where only the
    generation is named), None when it states no rate in Gbit/s."""
    total = 0.0
    for part in _parts(text or ""):
        if NOT_COMPUTE.search(part):
            continue
        count_match = COUNT.match(part)
        count = int(count_match.group(1)) if count_match else 1
        rate_match = RATE.search(part)
        if rate_match:
            rate = float(rate_match.group(1))
        else:
            rate = next((r for name, r in IB_RATES.items() if re.search(rf"\b{name}\b", part)), 0)
        total += count * rate
    return total or None


def assumed_inter_node(device: str) -> tuple[float, str]:
    """GB/s per accelerator between nodes for a device generation, and what it assumes."""
    return next((gbs, why) for prefix, gbs, why in ASSUMED_GBS if device.startswith(prefix))


def _inter_node(system: Mapping[str, Any], per_node: int) -> tuple[float, str]:
    stated = stated_inter_node(system.get("host_interconnect") or "")
    if stated:
        gbs = stated / 8 / per_node
        text = system["host_interconnect"]
        return gbs, (
            f"stated: {stated:g} Gb/s per node read in the system's host interconnect "
            f"({text[:120]!r}) / {per_node} accelerators = {gbs:.4g} GB/s per accelerator"
        )
    gbs, why = assumed_inter_node(system["device_slug"])
    return gbs, f"assumed: {gbs:g} GB/s per accelerator, {why}; {RECALLED}"


def precision_of(device: Any) -> str:
    """The 16-bit precision a system of the device trains in: bf16 where it has a bf16 peak."""
    return "bf16-mixed" if device.flops("bf16-mixed") else "fp16-mixed"


@functools.cache
def device_balances() -> dict[str, float]:
    """Each catalogue device's machine balance (bytes per FLOP at its 16-bit peak), where the
    catalogue states both figures: the fit's device term reads it."""
    found = {}
    for slug, device in devices().items():
        balance = device.balance(precision_of(device)) if device.in_catalogue else None
        if balance:
            found[slug] = float(f"{balance:.6g}")
    return found


def catalogue_vendor(slug: str) -> str:
    row = catalogue.devices().get(slug)
    return row.vendor if row is not None else ""


@functools.cache
def device_siblings() -> dict[str, list[str]]:
    """Each catalogue device's siblings: the devices of the same vendor with the same 16-bit
    peaks (the same compute, another memory or form), nearest in machine balance first."""
    table = {s: d for s, d in devices().items() if d.in_catalogue}
    balances = device_balances()

    def compute(device: Any) -> tuple:
        return (
            catalogue_vendor(device.slug),
            device.flops("bf16-mixed"),
            device.flops("fp16-mixed"),
        )

    found = {}
    for slug, device in table.items():
        same = [
            other
            for other, twin in table.items()
            if other != slug
            and device.flops(precision_of(device))
            and compute(twin) == compute(device)
        ]
        here = balances.get(slug)
        found[slug] = sorted(
            same,
            key=lambda o: (abs(math.log(balances[o] / here)) if here and o in balances else 9e9, o),
        )
    return {slug: same for slug, same in sorted(found.items()) if same}


PRECISION_FIXTURE = Path(__file__).resolve().parents[4] / "fixtures" / "mlperf_precision.json"


@functools.cache
def recorded_precisions() -> dict[tuple[str, str, str], dict[str, Any]]:
    """(round, system_id, benchmark) -> the precision of the linear layers read in the
    submission's files, with its evidence (fixtures/mlperf_precision.json; empty if absent)."""
    if not PRECISION_FIXTURE.exists():
        return {}
    runs = json.loads(PRECISION_FIXTURE.read_text(encoding="utf-8"))["runs"]
    return {(r["round"], r["system_id"], r["benchmark"]): r for r in runs}


EVALUATIONS_FIXTURE = PRECISION_FIXTURE.with_name("mlperf_evaluations.json")


@functools.cache
def recorded_evaluations() -> dict[tuple[str, str, str, int], float | None]:
    """(round, system_id, benchmark, run index) -> the seconds the run spent evaluating, read in
    its log (fixtures/mlperf_evaluations.json; None where its log does not pair them)."""
    if not EVALUATIONS_FIXTURE.exists():
        return {}
    runs = json.loads(EVALUATIONS_FIXTURE.read_text(encoding="utf-8"))["runs"]
    return {
        (r["round"], r["system_id"], r["benchmark"], r["index"]): r["eval_seconds"] for r in runs
    }


def with_recorded_precision(
    machine: SystemMachine, system: Mapping[str, Any], benchmark: str
) -> SystemMachine | str:
    """The machine at the precision its submission trained in: FP8 runs at the device's FP8
    peak (Transformer Engine's recipe: the linear layers in FP8); a 16-bit or unknown one at its
    16-bit peak (said so in `assumed`); FP4 is not priced (the planner has no FP4)."""
    found = recorded_precisions().get((system.get("round"), system.get("system_id"), benchmark))
    precision = (found or {}).get("precision", "unknown")
    if precision in ("fp4", "int8"):
        return f"trained in {precision.upper()} (read in its submission): the planner prices none"
    device = devices()[machine.device]
    if precision == "unknown" and device.flops("fp8"):
        # On a device with FP8 the run may have used it (its config's switches disagree, or it
        # shipped none): pricing it at the 16-bit peak would make it look twice as efficient.
        return "its submission does not say its precision, and the device has FP8"
    if precision != "fp8":
        why = (
            "read in its submission"
            if precision != "unknown"
            else "its submission does not say; the device has no FP8, so 16-bit"
        )
        return replace(machine, assumed=[*machine.assumed, f"precision {precision} ({why})"])
    if not device.flops("fp8"):
        return "trained in FP8, but the device catalogue states no FP8 peak for the device"
    evidence = found["evidence"] or {}
    where = f"{evidence.get('path', '')}: {evidence.get('line', '')!r}"
    values = machine.values | {"flops": device.flops("fp8"), "precision": "fp8"}
    assumed = [*machine.assumed, f"FP8 linear layers, read in the submission ({where[:160]})"]
    return replace(machine, precision="fp8", values=values, assumed=assumed)


def machine_from_system(system: Mapping[str, Any]) -> SystemMachine | str:
    """The machine of an MLPerf system, or the reason none can be built."""
    slug = system.get("device_slug") or ""
    device = devices().get(slug)
    if device is None:
        return f"the device catalogue does not know the accelerator ({system.get('accelerator')})"
    accelerators = system.get("accelerators") or (
        (system.get("nodes") or 0) * (system.get("accelerators_per_node") or 0)
    )
    if not accelerators:
        return "the system states no accelerator count"
    per_node = min(system.get("accelerators_per_node") or accelerators, accelerators)
    precision = precision_of(device)
    if not device.flops(precision) or device.memory_gb is None:
        return f"the device catalogue states no 16-bit peak or no memory of the {device.name}"
    assumed = [f"latencies {INTER_LATENCY_US:g} µs between nodes, {INTRA_LATENCY_US:g} µs inside"]
    intra = device.intra_bandwidth_gbs
    if intra is None:
        intra = ASSUMED_INTRA_GBS
        assumed.append(f"link inside a node: {ASSUMED_INTRA}; {RECALLED}")
    inter, inter_text = _inter_node(system, per_node)
    if accelerators > per_node:
        assumed.append(f"link between nodes {inter_text}")
    values = {
        "P": int(accelerators),
        "flops": device.flops(precision),
        "memory_gb": device.memory_gb,
        "latency_us": INTER_LATENCY_US,
        "bandwidth_gbs": inter,
        "devices_per_node": int(per_node),
        "intra_latency_us": INTRA_LATENCY_US,
        "intra_bandwidth_gbs": intra,
        "precision": precision,
        "device": slug,
    }
    return SystemMachine(
        slug, precision, int(accelerators), int(per_node), values, assumed, inter_text
    )
