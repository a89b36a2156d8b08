"""The devices and links the planner knows, with where each figure comes from: one table for the
machine presets (machine.py) and the results' predictions (explorer/results/predictions.py).

A device gives its peak FLOP/s per precision and its memory; a link its bandwidth and latency.
Every figure carries its source (a URL, or a status saying it was recalled). Shaped to be fed
from a device catalogue later (catalogue/devices.py): a row there becomes a `Device` here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RECALLED = "spec-sheet value, recalled (not read on a stored page)"

P100_NVLINK = (
    "Tesla P100 with NVLink (SXM2): 10.6 TFLOPS single precision, 16 GB of HBM2, NVLink between "
    "GPUs 80 GB/s per direction at its theoretical peak (https://www.microway.com/hpc-tech-tips/"
    "nvidia-tesla-p100-nvlink-16gb-gpu-accelerator-pascal-gp100-sxm2-close/)"
)
A100_PEAK = (
    "312 teraFLOP/s, the A100's dense BF16 and FP16 Tensor Core peak (624 with sparsity): "
    "https://glennklockwood.com/garden/processors/A100, from NVIDIA's A100 datasheet "
    "(https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf, not stored here)"
)
A100_NODE = (
    "8 NVIDIA 80GB A100 GPUs per node: the Megatron-LM README on NVIDIA's Selene ('Each cluster "
    "node has 8 NVIDIA 80GB A100 GPUs', from January 2022 to July 2024: "
    "https://github.com/NVIDIA/Megatron-LM/blob/145d2eb947a614fdf81e73efd0cf417c1bc5ac94/"
    "README.md)"
)


@dataclass(frozen=True)
class Device:
    """A kind of device: its peak FLOP/s per precision (the planner's PRECISIONS; the mixed
    precisions run on the 16-bit units) and its memory, each with its source."""

    slug: str
    name: str  # the words a result's device kind contains (the first match wins)
    peak: dict[str, float]  # precision -> FLOP/s
    memory_gb: float
    sources: dict[str, str] = field(default_factory=dict)  # "peak" / "memory_gb" -> source

    def flops(self, precision: str) -> float | None:
        """The peak at this precision; None where no source gives it."""
        return self.peak.get(precision)

    def source(self, figure: str) -> str:
        return self.sources.get(figure, RECALLED)


@dataclass(frozen=True)
class Link:
    """An interconnect: bandwidth per node and latency, with their source."""

    slug: str
    name: str  # the words a result's interconnect contains (the first match wins)
    bandwidth_gbs: float
    latency_us: float
    source: str = RECALLED


def _device(slug: str, name: str, fp32: float, fp16: float, memory: float) -> Device:
    """A device of the results' table: peaks and memory recalled from spec sheets."""
    return Device(slug, name, {"fp32": fp32, "fp16-mixed": fp16, "bf16-mixed": fp16}, memory)


DEVICES: dict[str, Device] = {
    device.slug: device
    for device in (
        Device(
            "p100",
            "Tesla P100",
            {"fp32": 10.6e12, "fp16-mixed": 21.2e12, "bf16-mixed": 21.2e12},
            16.0,
            {"peak": P100_NVLINK, "memory_gb": P100_NVLINK},  # the fp32 peak; fp16 recalled
        ),
        _device("v100", "Tesla V100", 15.7e12, 125e12, 16.0),
        _device("p40", "Tesla P40", 12e12, 12e12, 24.0),
        _device("m40", "M40", 7e12, 7e12, 12.0),
        _device("gtx-580", "GTX 580", 1.58e12, 1.58e12, 3.0),
        _device("xeon-phi-7250", "Xeon Phi 7250", 6.1e12, 6.1e12, 16.0),
        _device("xeon-platinum-8160", "Xeon Platinum 8160", 3.2e12, 3.2e12, 192.0),
        # Its fp32 peak is not recorded (no source stored): the 16-bit Tensor Core peak only.
        Device(
            "a100-80gb",
            "A100",
            {"fp16-mixed": 312e12, "bf16-mixed": 312e12},
            80.0,
            {"peak": A100_PEAK, "memory_gb": A100_NODE},
        ),
    )
}

LINKS: dict[str, Link] = {
    link.slug: link
    for link in (
        Link("ethernet-50g", "50 Gbit/s Ethernet", 6.25, 10.0),
        Link("infiniband-fdr", "InfiniBand FDR", 6.8, 2.0),
        Link("infiniband-edr", "InfiniBand EDR", 12.5, 1.5),
        Link("infiniband-100g", "100 Gbit/s InfiniBand", 12.5, 1.5),
        Link("omni-path", "Omni-Path", 12.5, 1.5),
        Link("infiniband", "InfiniBand", 12.5, 1.5),
        Link("nvlink-server", "NVLink within one server", 20.0, 1.0),
        Link("pcie-machine", "PCIe within one machine", 8.0, 5.0),
    )
}


def matching(table: dict[str, Any], text: str) -> Any | None:
    """The first entry whose name the text contains (a result's device kind or interconnect)."""
    return next((entry for entry in table.values() if entry.name in text), None)
