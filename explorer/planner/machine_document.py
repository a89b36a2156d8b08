"""The machine as a plan's document shows it: the preset, the values the plan used, and where
each figure comes from (the preset's sources, the catalogue device's, the choices'). Pure."""

from __future__ import annotations

from typing import Any

from explorer.workloads.devices import devices

from .machine import FLASH_ATTENTION, FP8_RECIPE, Inputs
from .nodes import node_values
from .presets import PRESETS, YOURS, preset_sources


def device_sources(inputs: Inputs) -> dict[str, str]:
    """The sources of the figures a machine takes from its catalogue device (`device=` over a
    preset's own): each figure whose value is the device's. An explicit value is the user's."""
    device = devices().get(inputs.device)
    own = inputs.device == PRESETS[inputs.machine].device and inputs.precision != "fp8"
    if device is None or own:  # the preset's own figures, cited by the preset
        return {}
    figures = {
        "flops": (device.flops(inputs.precision), f"flops.{inputs.precision}"),
        "memory_gb": (device.memory_gb, "memory_gb"),
        "intra_bandwidth_gbs": (device.intra_bandwidth_gbs, "intra_bandwidth_gbs"),
    }
    found = {
        name: device.source(figure) if getattr(inputs, name) == value else YOURS
        for name, (value, figure) in figures.items()
        if name != "intra_bandwidth_gbs" or inputs.devices_per_node > 1
    }
    if inputs.machine == "example":
        node, sources = node_values(inputs.device, {})
        found |= {n: s for n, s in sources.items() if getattr(inputs, n) == node[n]}
    return found


def _choice_sources(inputs: Inputs) -> dict[str, str]:
    """Where fp8's bytes per value and FlashAttention's activations come from (the other
    choices' are in the docstring of Inputs.sizes and on the page)."""
    sources = {"precision": FP8_RECIPE} if inputs.precision == "fp8" else {}
    if inputs.attention == "flash":
        sources["attention"] = (
            "FlashAttention-style kernels keep no s x s attention matrix for the backward pass "
            f"and recompute it there (Dao et al. 2022, {FLASH_ATTENTION}): activations and "
            "FLOPs of Korthikanti et al.'s selective recomputation"
        )
    return sources


def machine_document(inputs: Inputs) -> dict[str, Any]:
    """The machine as a plan's document shows it: the preset with its sources and every value
    the plan used, in SI units."""
    preset = PRESETS[inputs.machine]
    return {
        "preset": preset.slug,
        "name": preset.name,
        "device": inputs.device or None,
        "device_name": devices()[inputs.device].name if inputs.device else None,
        "sources": preset_sources(preset) | device_sources(inputs) | _choice_sources(inputs),
        "P": inputs.P,
        "flops": inputs.flops,
        "memory_bytes": inputs.memory,
        "L": inputs.latency,
        "G": inputs.G,
        "gamma": inputs.gamma,
        "bytes_per_value": inputs.sizes.as_dict(),
        "efficiency": inputs.efficiency,
        "achieved_flops": inputs.achieved_flops,
        "devices_per_node": inputs.devices_per_node,
        "intra_L": inputs.intra_latency,
        "intra_G": inputs.intra_G,
    }
