"""The node a device usually comes in, so that `device=` alone describes a cluster: how many
devices share the fast link inside the node, and the link between nodes per device. Pure.

Every value says where it comes from; a value recalled rather than read on a stored page is
labelled so (the page shows the label beside the input). The user's explicit inputs always win.
"""

from __future__ import annotations

from dataclasses import dataclass

from .presets import (
    A100_NODE,
    H800_LINK,
    H800_NODE,
    OPTICAL_ICI,
    TPU_V4_CUBE,
    TPU_V4_ICI,
    TPU_V5P_CUBE,
    TPU_V5P_ICI,
)

HGX_H100 = (
    "8 GPUs per HGX H100 8-GPU board, every pair joined by NVSwitch (NVIDIA's HGX H100 "
    "introduction, read at https://www.dynasys.com.hk/blog/introducing-nvidia-hgx-h100-an-"
    "accelerated-server-platform-for-ai-and-high-performance-computing/, a secondary copy)"
)
DGX_H100_ADAPTERS = (
    "one 400 Gb/s ConnectX-7 adapter per GPU = 50 GB/s (DGX H100: eight ConnectX-7 ports, one "
    "per GPU in the user guide's port table, read at "
    "https://www.easymanua.ls/nvidia/dgx-h100/manual?p=19, a secondary copy)"
)
RECALLED = "assumed (recalled, not read on a stored page)"


@dataclass(frozen=True)
class Node:
    per_node: int
    per_node_source: str
    inter_gbs: float  # GB/s per device between nodes
    inter_source: str
    # the link inside the node where the device catalogue states none (TPU v4's ICI)
    intra_gbs: float | None = None
    intra_source: str = ""


A100_LINK = f"one 200 Gb/s HDR InfiniBand adapter per GPU = 25 GB/s (DGX A100); {RECALLED}"
NODES: dict[str, Node] = {
    "a100-sxm4-40gb": Node(8, A100_NODE, 25.0, A100_LINK),
    "a100-sxm4-80gb": Node(8, A100_NODE, 25.0, A100_LINK),
    "h100-sxm": Node(8, HGX_H100, 50.0, DGX_H100_ADAPTERS),
    "h200-sxm": Node(
        8,
        f"8 GPUs per HGX H200 board, as HGX H100; {RECALLED}",
        50.0,
        f"one 400 Gb/s adapter per GPU = 50 GB/s, as DGX H100; {RECALLED}",
    ),
    "b200": Node(
        8,
        f"8 GPUs per HGX B200 board; {RECALLED}",
        50.0,
        f"one 400 Gb/s ConnectX-7 adapter per GPU = 50 GB/s (DGX B200); {RECALLED}",
    ),
    "b300": Node(
        8,
        f"8 GPUs per HGX B300 board; {RECALLED}",
        100.0,
        f"one 800 Gb/s ConnectX-8 adapter per GPU = 100 GB/s; {RECALLED}",
    ),
    "mi300x": Node(
        8,
        f"8 OAM GPUs per MI300X platform, joined by Infinity Fabric; {RECALLED}",
        50.0,
        f"one 400 Gb/s adapter per GPU = 50 GB/s; {RECALLED}",
    ),
    "mi325x": Node(
        8,
        f"8 OAM GPUs per MI325X platform; {RECALLED}",
        50.0,
        f"one 400 Gb/s adapter per GPU = 50 GB/s; {RECALLED}",
    ),
    "h800-sxm": Node(8, H800_NODE, 50.0, H800_LINK),
    # A TPU's "node" is a 4x4x4 cube of its 3-D torus, and the link between nodes the optical ICI
    # between cubes, at the chip's ICI rate (presets.py says why).
    "tpu-v4": Node(
        64,
        TPU_V4_CUBE,
        TPU_V4_ICI.bandwidth_gbs,
        TPU_V4_ICI.source + OPTICAL_ICI,
        TPU_V4_ICI.bandwidth_gbs,
        TPU_V4_ICI.source,
    ),
    "tpu-v5p": Node(
        64,
        TPU_V5P_CUBE,
        TPU_V5P_ICI.intra_bandwidth_gbs or 0.0,
        TPU_V5P_ICI.source("intra_bandwidth_gbs") + OPTICAL_ICI,
    ),
    "mi355x": Node(
        8,
        f"8 OAM GPUs per MI355X platform; {RECALLED}",
        50.0,
        f"one 400 Gb/s adapter per GPU = 50 GB/s; {RECALLED}",
    ),
}


def node_values(slug: str, query: dict) -> tuple[dict[str, float | int], dict[str, str]]:
    """The node's devices per node and link between nodes for a device, each unless the query
    gives it: (values, their sources). Nothing for a device without a known node."""
    node = NODES.get(slug)
    if node is None:
        return {}, {}
    values: dict[str, float | int] = {}
    sources: dict[str, str] = {}
    if query.get("devices_per_node") in (None, ""):
        values["devices_per_node"] = node.per_node
        sources["devices_per_node"] = node.per_node_source
    if query.get("bandwidth_gbs") in (None, ""):
        values["bandwidth_gbs"] = node.inter_gbs
        sources["bandwidth_gbs"] = node.inter_source
    if node.intra_gbs is not None and query.get("intra_bandwidth_gbs") in (None, ""):
        values["intra_bandwidth_gbs"] = node.intra_gbs
        sources["intra_bandwidth_gbs"] = node.intra_source
    return values, sources
