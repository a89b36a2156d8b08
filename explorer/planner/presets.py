"""The machine presets: each a named set of inputs (a device count, its devices' peak, memory
and links) with the page every value comes from; the values an example gives are said so.
Split from machine.py (the inputs, bounds and validation), which re-exports these names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.workloads.devices import LINKS, Device, devices


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

RECALLED = "assumed (recalled, not read on a stored page)"
EXAMPLE_LATENCIES = "example value: no source found for the latency"
# Cluster presets (issue 46 item 4): a device of the catalogue, its usual node and the link
# between nodes per device, the cluster's size; every value with its page or marked recalled.
DGX_A100_LINK = (
    "one 200 Gb/s HDR InfiniBand adapter per GPU = 25 GB/s: DGX A100 pairs each GPU with its "
    "own adapter, '2x 200Gbps HDR IB adapters for two GPUs' (NVIDIA's Hot Chips 32 talk on the "
    "DGX A100 SuperPOD as reported at https://www.servethehome.com/nvidia-dgx-a100-superpod-"
    "detailed-look/, a secondary page)"
)
DGX_A100_SUPERPOD_SIZE = (
    "140 DGX A100 systems = 1,120 GPUs, the DGX SuperPOD reference architecture of November 2020 "
    "(RA-09950-001, transcribed at https://vdocuments.net/nvidia-dgx-superpod-scalable-"
    f"infrastructure-for-ai-nvidia-ngca-optimized-software.html); the count {RECALLED}"
)
DGX_H100_RA = (
    "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/"
    "latest/dgx-superpod-components.html"
)
DGX_H100_NODE = f"8 GPUs per DGX H100 system, 'an eight GPU configuration' ({DGX_H100_RA})"
DGX_H100_LINK = (
    "400 Gb/s NDR InfiniBand with ConnectX-7 per GPU = 50 GB/s ('400 Gbps InfiniBand/Ethernet "
    f"with NVIDIA ConnectX-7', {DGX_H100_RA}; one adapter per GPU: the DGX H100 user guide's "
    "port table, read at https://www.easymanua.ls/nvidia/dgx-h100/manual?p=19, a secondary copy)"
)
DGX_H100_SUPERPOD_SIZE = (
    "4 scalable units of 32 DGX H100 systems = 128 nodes, 1,024 GPUs, the reference "
    "architecture's focus (RA-11333-001, transcribed at https://cidian.kuaisou.com/dgx-superpod-"
    "reference-architecture-dgx-h100: 'focused on 4 SU units with 128 DGX nodes')"
)
INSIGHTS_V3 = "https://arxiv.org/html/2505.09343v1"
H800_CLUSTER_SIZE = (
    f"2,048 H800 GPUs, DeepSeek-V3's cluster ('trained on 2,048 NVIDIA H800 GPUs', {INSIGHTS_V3})"
)
H800_NODE = (
    "8 GPUs per node on NVLink and NVSwitch, InfiniBand between nodes (DeepSeek-V3's cluster, as "
    "https://aiflection.com/blog/deepseek-v3-blog-6-hardware-level-optimizations-engineering-ai-"
    "for-peak-efficiency reports it, a secondary page)"
)
H800_LINK = (
    "one 400 Gb/s InfiniBand adapter per GPU = 50 GB/s (DeepSeek's H800 nodes: eight 400G "
    f"ConnectX-7 adapters, {INSIGHTS_V3}); {RECALLED}"
)
# A TPU pod has no NVLink island: every chip of a slice joins the same inter-chip interconnect
# (ICI), a 3-D torus. The planner's two levels map onto it as the hardware is built: a "node"
# is a 4x4x4 cube of 64 chips (one rack, electrical ICI), and the link between nodes the
# optical ICI links that join the cubes through optical circuit switches (circuits, no packet
# hops: the same ICI rate per chip). So both levels take the chip's ICI figure, and tensor
# parallelism may span a cube. Beyond one slice the data-center network is much slower (v5p:
# 50 Gb/s per chip): not modelled, give bandwidth_gbs for a multislice job.
TPU_V5P_PAGE = "https://docs.cloud.google.com/tpu/docs/v5p-training"
TPU_V5P_CUBE = (
    f"64 chips per 4x4x4 cube, 'All 4x4x4 and larger slices (one cube) have full 3D torus' "
    f"({TPU_V5P_PAGE}, the topology table: 4x4x4 = 64 chips, 1 cube)"
)
TPU_V5P_SLICE = f"6,144 chips, the largest v5p slice (16x16x24, 96 cubes: {TPU_V5P_PAGE})"
TPU_V4_CUBE = (
    "64 chips per 4x4x4 cube in one rack, cubes joined by optical circuit switches (the TPU v4 "
    "paper, Jouppi et al. 2023, https://arxiv.org/abs/2304.01433, as summarised at "
    "https://glennklockwood.com/garden/processors/TPUv4, a secondary page)"
)
TPU_V4_POD = (
    "4,096 chips in a TPU v4 pod: 64 cubes (https://arxiv.org/abs/2304.01433, as summarised at "
    "https://glennklockwood.com/garden/processors/TPUv4, a secondary page)"
)
OPTICAL_ICI = " (between cubes: the optical ICI links, the same rate)"


def _cluster(
    slug: str,
    name: str,
    device: str,
    size: tuple[int, str],
    node: tuple[int, str],
    link: tuple[float, str],
    intra: tuple[float, str] | None = None,
) -> MachinePreset:
    """A cluster of a catalogue device: (value, source) for its size, devices per node, the link
    between nodes per device and (where the catalogue lacks it) the link inside a node."""
    values, sources = _on(devices()[device], "bf16-mixed")
    if intra is not None:
        values["intra_bandwidth_gbs"], sources["intra_bandwidth_gbs"] = intra
    values |= {"P": size[0], "devices_per_node": node[0], "bandwidth_gbs": link[0]}
    values |= {"latency_us": 5.0, "intra_latency_us": 1.0, "gamma": 4}
    sources |= {"P": size[1], "devices_per_node": node[1], "bandwidth_gbs": link[1]}
    sources |= {"latency_us": EXAMPLE_LATENCIES, "intra_latency_us": EXAMPLE_LATENCIES}
    return MachinePreset(slug, name, values, sources, device)


TPU_V4_ICI = LINKS["tpu-v4-pod"]
TPU_V5P_ICI = devices()["tpu-v5p"]
CLUSTERS = (
    _cluster(
        "dgx-a100-superpod",
        "DGX A100 SuperPOD: 1,120 A100 80GB, 8 per node on NVLink, HDR InfiniBand",
        "a100-sxm4-80gb",
        (1120, DGX_A100_SUPERPOD_SIZE),
        (8, A100_NODE),
        (25.0, DGX_A100_LINK),
    ),
    _cluster(
        "dgx-h100-superpod",
        "DGX H100 SuperPOD: 1,024 H100 SXM, 8 per node on NVLink, NDR InfiniBand",
        "h100-sxm",
        (1024, DGX_H100_SUPERPOD_SIZE),
        (8, DGX_H100_NODE),
        (50.0, DGX_H100_LINK),
    ),
    _cluster(
        "h800-cluster",
        "H800 cluster: 2,048 H800 (NVLink cut to 400 GB/s), 8 per node, InfiniBand",
        "h800-sxm",
        (2048, H800_CLUSTER_SIZE),
        (8, H800_NODE),
        (50.0, H800_LINK),
    ),
    _cluster(
        "tpu-v4-pod",
        "TPU v4 pod: 4,096 chips, 4x4x4 cubes on one 3-D torus (ICI)",
        "tpu-v4",
        (4096, TPU_V4_POD),
        (64, TPU_V4_CUBE),
        (TPU_V4_ICI.bandwidth_gbs, TPU_V4_ICI.source + OPTICAL_ICI),
        (TPU_V4_ICI.bandwidth_gbs, TPU_V4_ICI.source),
    ),
    _cluster(
        "tpu-v5p-slice",
        "TPU v5p: its largest slice, 6,144 chips, 4x4x4 cubes on one 3-D torus (ICI)",
        "tpu-v5p",
        (6144, TPU_V5P_SLICE),
        (64, TPU_V5P_CUBE),
        (
            TPU_V5P_ICI.intra_bandwidth_gbs or 0.0,
            TPU_V5P_ICI.source("intra_bandwidth_gbs") + OPTICAL_ICI,
        ),
    ),
)

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
        *CLUSTERS,
    )
}


def preset_sources(preset: MachinePreset) -> dict[str, str]:
    return {name: preset.sources.get(name, EXAMPLE) for name in preset.values}
