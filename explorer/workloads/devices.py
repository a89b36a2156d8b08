"""The devices and links the planner knows, with where each figure comes from: one table for the
machine presets (machine.py), a machine built from a device (`device=`) and the results'
predictions (explorer/results/predictions.py).

The accelerators are the device catalogue's (catalogue/devices.py, fixtures/devices.json, shown
on /devices/): a catalogue row becomes a planner `Device` here, each figure with the figure as
its page prints it and the page. A value the catalogue does not state is None ("unknown"). The
few processors of the survey's results that the catalogue does not hold (a GTX 580 and two
CPUs) stay here, recalled and said so. The links between nodes are not the catalogue's (it
holds devices, not networks): recalled spec-sheet values.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from catalogue import devices as catalogue

RECALLED = "spec-sheet value, recalled (not read on a stored page)"
# The planner's precisions -> the catalogue's peak (the mixed precisions run on the 16-bit units).
PEAK_FIELD = {"fp32": "fp32", "fp16-mixed": "fp16", "bf16-mixed": "bf16", "fp8": "fp8"}
# The planner's figure -> the catalogue's field.
FIGURES = {
    "memory_gb": "memory_bytes",
    "intra_bandwidth_gbs": "link_bandwidth",
    "memory_bandwidth_gbs": "memory_bandwidth",
}


@dataclass(frozen=True)
class Device:
    """A kind of device: its peak FLOP/s per precision (the planner's PRECISIONS), its memory and
    its link to the other devices of a node (one direction), each with its source; None where
    no source states it."""

    slug: str
    name: str
    peak: dict[str, float | None]  # precision -> FLOP/s
    memory_gb: float | None
    intra_bandwidth_gbs: float | None = None
    sources: dict[str, str] = field(default_factory=dict)  # "flops.<precision>", ... -> source
    memory_bandwidth_gbs: float | None = None  # the vendor's peak memory bandwidth
    in_catalogue: bool = True

    def flops(self, precision: str) -> float | None:
        """The peak at this precision; None where no source gives it."""
        return self.peak.get(precision)

    def source(self, figure: str) -> str:
        """Where a figure ("flops.bf16-mixed", "memory_gb", "intra_bandwidth_gbs") was read."""
        return self.sources.get(figure, RECALLED)

    def balance(self, precision: str) -> float | None:
        """Bytes of memory bandwidth per FLOP of peak at `precision` (the roofline's machine
        balance); None where either figure is unknown."""
        peak = self.flops(precision)
        if not peak or not self.memory_bandwidth_gbs:
            return None
        return self.memory_bandwidth_gbs * 1e9 / peak


@dataclass(frozen=True)
class Link:
    """An interconnect: bandwidth per node and latency, with their source."""

    slug: str
    name: str  # the words a result's interconnect contains (the first match wins)
    bandwidth_gbs: float
    latency_us: float
    source: str = RECALLED


def _said(reading: catalogue.Reading) -> str:
    """A catalogue value's source as the planner shows it: the figure, the page and its kind."""
    halved = f", divided by {reading.divisor:g}: {reading.why}" if reading.divisor != 1 else ""
    kind = catalogue.SOURCE_KINDS[reading.kind]
    return f"'{reading.read}' ({kind}{halved}): {reading.url}"


def from_catalogue(row: catalogue.Device) -> Device:
    """A catalogue row as the planner's device: peaks per planner precision, memory in GB and
    the intra-node link in GB/s, each with its reading."""
    sources = {
        f"flops.{precision}": _said(row.readings[f"peak_flops.{peak}"])
        for precision, peak in PEAK_FIELD.items()
        if f"peak_flops.{peak}" in row.readings
    }
    readings = row.readings
    sources |= {figure: _said(readings[key]) for figure, key in FIGURES.items() if key in readings}
    return Device(
        slug=row.slug,
        name=row.name,
        peak={precision: row.peak_flops.get(peak) for precision, peak in PEAK_FIELD.items()},
        memory_gb=row.memory_bytes / 1e9 if row.memory_bytes is not None else None,
        intra_bandwidth_gbs=row.link_bandwidth / 1e9 if row.link_bandwidth is not None else None,
        sources=sources,
        memory_bandwidth_gbs=(
            row.memory_bandwidth / 1e9 if row.memory_bandwidth is not None else None
        ),
    )


def _recalled(slug: str, name: str, fp32: float, memory: float) -> Device:
    """A processor of the survey's results that the catalogue lacks: fp32 peak (no 16-bit
    units) and memory recalled from spec sheets."""
    peak = {"fp32": fp32, "fp16-mixed": fp32, "bf16-mixed": fp32, "fp8": None}
    return Device(slug, name, peak, memory, in_catalogue=False)


OUTSIDE_CATALOGUE = (
    _recalled("gtx-580", "NVIDIA GTX 580", 1.58e12, 3.0),
    _recalled("xeon-phi-7250", "Intel Xeon Phi 7250", 6.1e12, 16.0),
    _recalled("xeon-platinum-8160", "Intel Xeon Platinum 8160", 3.2e12, 192.0),
)


@functools.cache
def devices() -> dict[str, Device]:
    """Every device the planner knows by slug: the catalogue's, then the recalled ones."""
    table = {slug: from_catalogue(row) for slug, row in catalogue.devices().items()}
    return table | {device.slug: device for device in OUTSIDE_CATALOGUE}


def catalogue_devices() -> dict[str, Device]:
    """The devices a machine can be built of (`device=`): the catalogue's."""
    return {slug: device for slug, device in devices().items() if device.in_catalogue}


def device_named(text: str) -> Device | None:
    """The device a result's device kind names: the catalogue's reading of the name
    (catalogue.device_for), else a recalled device whose short name the text contains."""
    row = catalogue.device_for(text)
    if row is not None:
        return devices()[row.slug]
    short = (device for device in OUTSIDE_CATALOGUE if device.name.split(" ", 1)[1] in text)
    return next(short, None)


# A TPU pod's chips exchange over Google's inter-chip interconnect (a 2-D torus for v3, a 3-D
# mesh or torus for v4): Google states the pod's all-reduce bandwidth, not a link's; per chip it
# is that figure over the pod's chips. Its latency no page states: an example value.
TPU_V3_PAGE = "https://cloud.google.com/tpu/docs/v3"
TPU_V4_PAGE = "https://docs.cloud.google.com/tpu/docs/v4"
TPU_LATENCY = "latency: example value 1 µs (no page states the ICI latency)"


def _tpu_pod(slug: str, name: str, pod: str, chips: int, page: str) -> Link:
    per_chip = float(pod.split()[0]) * (1e12 if "TB" in pod else 1e15) / chips / 1e9
    source = (
        f"derived from Google's page ({page}): 'All-reduce bandwidth per Pod' {pod} / {chips} "
        f"chips = {per_chip:.0f} GB/s per chip, taken as each chip's link; {TPU_LATENCY}"
    )
    return Link(slug, name, per_chip, 1.0, source)


LINKS: dict[str, Link] = {
    link.slug: link
    for link in (
        _tpu_pod("tpu-v3-pod", "TPU v3 pod", "340 TB/s", 1024, TPU_V3_PAGE),
        _tpu_pod("tpu-v4-pod", "TPU v4 pod", "1.1 PB/s", 4096, TPU_V4_PAGE),
        Link(
            "cray-gemini",
            "Cray Gemini",
            8.3,
            1.4,
            "'Point-to-point ≤ 8.3 GB/s' (Cray XK7, http://www.euroben.nl/reports/web13/xk7.php); "
            "latency 0.7-1.4 µs, the upper end taken (http://www.euroben.nl/reports/web13/xe6.php)"
            " (secondary pages)",
        ),
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
    """The first entry whose name the text contains (a result's interconnect)."""
    return next((entry for entry in table.values() if entry.name in text), None)
