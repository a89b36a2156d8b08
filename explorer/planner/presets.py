"""The machine presets: each a named set of inputs (a device count, its devices' peak, memory
and links) with the page every value comes from; the values an example gives are said so.
Split from machine.py (the inputs, bounds and validation), which re-exports these names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.workloads.devices import Device, devices


@dataclass(frozen=True)
class MachinePreset:
    slug: str
    name: str
    values: dict[str, Any]
    sources: dict[str, str]  # input name -> where the value comes from ("example value" else)
    device: str = ""  # its devices' entry in devices.devices() ("": example values)


def _on(device: Device, precision: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A preset's peak, memory and intra-node link from the device table, with their sources."""
    values = {
        "flops": device.flops(precision),
        "memory_gb": device.memory_gb,
        "intra_bandwidth_gbs": device.intra_bandwidth_gbs,
    }
    sources = {"flops": device.source(f"flops.{precision}")}
    sources |= {name: device.source(name) for name in ("memory_gb", "intra_bandwidth_gbs")}
    return values, sources


P100_VALUES, P100_SOURCES = _on(devices()["p100-sxm2"], "fp32")
A100_VALUES, A100_SOURCES = _on(devices()["a100-sxm4-80gb"], "bf16-mixed")


EXAMPLE = "example value"
YOURS = "your value"
ALEXNET_HARDWARE = (
    "AlexNet [136] trained on two GTX 580 3GB GPUs (the paper's §3.2 and §5; transcribed at "
    "http://users.ics.aalto.fi/perellm1/thesis/summaries_html/node64.html)"
)

GOYAL_HARDWARE = (
    "Goyal et al. [83] trained ResNet-50 on 256 Tesla P100 GPUs (transcribed at "
    "https://developer.nvidia.com/facebook-trains-imagenet-1-hour)"
)
BIG_BASIN = (
    "Goyal et al.'s Big Basin servers: eight Tesla P100 GPUs interconnected using NVLink, NCCL for "
    "the reduction inside a server (https://developer.nvidia.com/blog/facebook-trains-imagenet-in-"
    "1-hour/)"
)
GOYAL_ETHERNET = (
    "50 Gbit/s Ethernet between servers, as issue 25 states Goyal et al.'s network; UNCONFIRMED: "
    "not found on a stored page (the paper's text was not available)"
)
UNKNOWN_INTRA_LATENCY = "unknown (no source found): the latency between nodes is used"

A100_NODE = (
    "8 NVIDIA 80GB A100 GPUs per node: the Megatron-LM README on NVIDIA's Selene ('Each cluster "
    "node has 8 NVIDIA 80GB A100 GPUs', from January 2022 to July 2024: "
    "https://github.com/NVIDIA/Megatron-LM/blob/145d2eb947a614fdf81e73efd0cf417c1bc5ac94/"
    "README.md)"
)
LLAMA2_LINKS = (
    "200 Gbps end-points between nodes = 25 GB/s: the Llama 2 paper (Touvron et al. 2023, "
    "§2.2.1, https://arxiv.org/abs/2307.09288; its text read at http://proyectodescartes.org/"
    "iCartesiLibri/materiales_didacticos/IA2024/docs/llama2/6.html). Taken per device (one "
    "adapter per GPU): unconfirmed"
)
A100_INTRA_LATENCY = "example value: no source found for the NVLink latency"

# What a device figure is, for the message naming one the catalogue does not state.
DEVICE_FIGURES = {
    "flops": "its peak FLOP/s at {precision}",
    "memory_gb": "its memory",
    "intra_bandwidth_gbs": "its link to the other devices of a node",
}

PRESETS: dict[str, MachinePreset] = {
    preset.slug: preset
    for preset in (
        MachinePreset(
            "example",
            "Example cluster (every value an example, not from a work)",
            {
                "P": 16,
                "flops": 10e12,
                "memory_gb": 16.0,
                "latency_us": 5.0,
                "bandwidth_gbs": 10.0,
                "gamma": 4,
            },
            {},
        ),
        MachinePreset(
            "alexnet-2012",
            "AlexNet's two GPUs (P and memory from the paper; the rest example values)",
            {
                "P": 2,
                "flops": 1.5e12,
                "memory_gb": 3.0,
                "latency_us": 10.0,
                "bandwidth_gbs": 4.0,
                "gamma": 4,
            },
            {"P": ALEXNET_HARDWARE, "memory_gb": ALEXNET_HARDWARE},
        ),
        MachinePreset(
            "goyal-2017",
            "Goyal et al.'s 256 P100 GPUs, 8 per server on NVLink, Ethernet between servers",
            {
                "P": 256,
                "flops": P100_VALUES["flops"],
                "memory_gb": P100_VALUES["memory_gb"],
                "latency_us": 5.0,
                "bandwidth_gbs": 6.25,
                "gamma": 4,
                "devices_per_node": 8,
                "intra_latency_us": None,
                "intra_bandwidth_gbs": P100_VALUES["intra_bandwidth_gbs"],  # its NVLink
            },
            {
                "P": GOYAL_HARDWARE,
                "flops": P100_SOURCES["flops"],
                "memory_gb": P100_SOURCES["memory_gb"],
                "bandwidth_gbs": GOYAL_ETHERNET,
                "devices_per_node": BIG_BASIN,
                "intra_latency_us": UNKNOWN_INTRA_LATENCY,
                "intra_bandwidth_gbs": P100_SOURCES["intra_bandwidth_gbs"],
            },
            "p100-sxm2",
        ),
        MachinePreset(
            "a100-cluster",
            "A100 80GB cluster, 8 GPUs per node (peak, memory and links from sources; the "
            "latencies example values)",
            {
                "P": 1024,
                "flops": A100_VALUES["flops"],
                "memory_gb": A100_VALUES["memory_gb"],
                "latency_us": 5.0,
                "bandwidth_gbs": 25.0,
                "gamma": 4,
                "devices_per_node": 8,
                "intra_latency_us": 1.0,
                "intra_bandwidth_gbs": A100_VALUES["intra_bandwidth_gbs"],
            },
            {
                "flops": A100_SOURCES["flops"],
                "memory_gb": A100_SOURCES["memory_gb"],
                "devices_per_node": A100_NODE,
                "bandwidth_gbs": LLAMA2_LINKS,
                "intra_latency_us": A100_INTRA_LATENCY,
                "intra_bandwidth_gbs": A100_SOURCES["intra_bandwidth_gbs"],
            },
            "a100-sxm4-80gb",
        ),
    )
}


def preset_sources(preset: MachinePreset) -> dict[str, str]:
    return {name: preset.sources.get(name, EXAMPLE) for name in preset.values}
