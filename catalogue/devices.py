"""The device catalogue: accelerators with their peak dense FLOP/s per precision, memory, memory
bandwidth and intra-node link bandwidth, each value with the page it was read on.

Pure (no ORM, no request): `devices()` reads fixtures/devices.json once per process and
`device_for(name)` finds the device an accelerator name denotes, as MLPerf Training system
descriptions write them ("NVIDIA H100-SXM5-80GB", "Tesla V100-SXM2-32GB", "TPU-v4",
"Intel(R) Gaudi(R) 2 AI Accelerator", "AMD Instinct MI300X 192GB HBM3", ...).

The fixture keeps, for every value, the figure as the page writes it (`read`, e.g. "3.35TB/s"),
the page (`url`), whether that page is the vendor's or a secondary one, and a divisor with its
reason where the stored value is not the figure itself (a sparse figure halved, a bidirectional
link figure halved): the value is computed from the figure here, so that a test can hold one to
the other. A value no page states is absent: null here, "unknown" on the page.

Units and conventions:
- memory_bytes: bytes, the vendor's "GB" taken as 10**9 bytes and "GiB" as 2**30 bytes.
- memory_bandwidth: bytes per second (the vendor's peak).
- link_bandwidth: bytes per second per device inside a node (NVLink, Infinity Fabric, ICI, the
  Gaudis' on-chip RoCE ports), in ONE direction: what one device can send while it receives as
  much. Vendors mostly print the bidirectional total (NVIDIA's "900GB/s" for H100 NVLink is
  450 GB/s each way); such a figure is stored halved, with the divisor's reason beside it.
- peak_flops: precision -> FLOP/s, DENSE (NVIDIA prints its Tensor Core figures "with
  sparsity", twice the dense one: those are halved), the highest the vendor gives for the
  precision (the Tensor Core figure where there is one). A precision the vendor gives no figure
  for is None.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "devices.json"
PRECISIONS = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8")
SCALARS = ("memory_bytes", "memory_bandwidth", "link_bandwidth")
# Every field a value can be read for: the scalars and one per precision ("peak_flops.bf16").
FIELDS = (*SCALARS, *(f"peak_flops.{p}" for p in PRECISIONS))
KINDS = ("gpu", "tpu", "accelerator")

# A figure as pages print it: a number (commas as thousands separators) and a unit.
FIGURE = re.compile(r"^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*([A-Za-z/]+)\s*$")
# Units by their lower-case spelling; a lower-case "b" before "ps" means bits ("Gbps"), an
# upper-case one bytes ("GBps", as Google's TPU pages write it): see _unit.
UNITS = {
    # memory (bytes)
    "mib": 2**20,
    "gib": 2**30,
    "gb": 1e9,
    "tb": 1e12,
    # bandwidth (bytes per second)
    "gb/s": 1e9,
    "gb/sec": 1e9,
    "gbps": 1e9,
    "gibps": 2**30,
    "tb/s": 1e12,
    "tbps": 1e12,
    # throughput (FLOP/s; for int8, operations per second)
    "tflops": 1e12,
    "tflop/s": 1e12,
    "teraflops": 1e12,
    "tops": 1e12,
    "teraops": 1e12,
    "pflops": 1e15,
    "petaflops": 1e15,
}
BITS = re.compile(r"^([KMGT])b(?:ps|it/s)$")  # "Gbps", "Gbit/s": bits per second
BIT_PREFIXES = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
VENDOR, MLPERF, SECONDARY = "vendor", "mlperf", "secondary"
SOURCE_KINDS = {
    VENDOR: "vendor's page (datasheet, documentation)",
    MLPERF: "MLPerf system description (the submitter's)",
    SECONDARY: "secondary page",
}


class FixtureError(ValueError):
    """fixtures/devices.json does not hold what this module expects (named in the message)."""


@dataclass(frozen=True)
class Reading:
    """One value as read: the figure as the page prints it, the page, the page's kind and the
    divisor (with its reason) from the figure to the stored value."""

    read: str
    url: str
    kind: str = VENDOR  # a key of SOURCE_KINDS
    divisor: float = 1.0
    why: str = ""

    @property
    def value(self) -> float:
        return parse_figure(self.read) / self.divisor


@dataclass(frozen=True)
class Device:
    """An accelerator. Sizes in bytes, rates in bytes/s, peak_flops dense FLOP/s per precision
    (see the module's docstring for the conventions); None where no page states the value.
    `sources` maps each field with a value ("memory_bytes", "peak_flops.bf16", ...) to the URL
    it was read on; `readings` holds the figure, the page's kind and any divisor."""

    slug: str
    name: str
    vendor: str
    kind: str  # one of KINDS
    memory_bytes: int | None
    memory_bandwidth: float | None
    link_bandwidth: float | None
    peak_flops: Mapping[str, float | None]
    aliases: tuple[str, ...]
    sources: Mapping[str, str]
    readings: Mapping[str, Reading]
    notes: tuple[str, ...] = ()

    def source_kind(self, field: str) -> str | None:
        """The kind of page (a key of SOURCE_KINDS) a field was read on; None if unknown."""
        reading = self.readings.get(field)
        return reading.kind if reading else None

    def as_dict(self) -> dict:
        return {
            "slug": self.slug,
            "name": self.name,
            "vendor": self.vendor,
            "kind": self.kind,
            "memory_bytes": self.memory_bytes,
            "memory_bandwidth": self.memory_bandwidth,
            "link_bandwidth": self.link_bandwidth,
            "peak_flops": dict(self.peak_flops),
            "aliases": list(self.aliases),
            "sources": dict(self.sources),
            "notes": list(self.notes),
        }


def _unit(unit: str) -> float | None:
    bits = BITS.match(unit)
    if bits:
        return BIT_PREFIXES[bits.group(1)] / 8
    return UNITS.get(unit.lower())


def parse_figure(text: str) -> float:
    """A figure as a page prints it ("1,979 teraFLOPS", "3.35TB/s", "95 GiB") in base units:
    bytes, bytes per second, FLOP/s (operations per second for integers)."""
    match = FIGURE.match(text)
    factor = _unit(match.group(2)) if match else None
    if factor is None:
        raise FixtureError(f"cannot read the figure {text!r} (number and unit, e.g. '80GB')")
    # Twelve significant digits: "3.35" x 1e12 is 3350000000000.0002 in binary floating point.
    return float(f"{float(match.group(1).replace(',', '')) * factor:.12g}")


def _reading(slug: str, field: str, raw: dict) -> Reading:
    unknown = set(raw) - {"read", "url", "kind", "divisor", "why"}
    if unknown or not raw.get("url", "").startswith(("https://", "http://")):
        raise FixtureError(f"{slug}.{field}: needs read and an http(s) url (extra: {unknown})")
    if raw.get("kind", VENDOR) not in SOURCE_KINDS:
        raise FixtureError(f"{slug}.{field}: kind must be one of {sorted(SOURCE_KINDS)}")
    if raw.get("divisor", 1) != 1 and not raw.get("why"):
        raise FixtureError(f"{slug}.{field}: a divisor needs its reason (why)")
    return Reading(
        read=raw["read"],
        url=raw["url"],
        kind=raw.get("kind", VENDOR),
        divisor=float(raw.get("divisor", 1)),
        why=raw.get("why", ""),
    )


def _device(raw: dict) -> Device:
    slug = raw["slug"]
    values = raw.get("values", {})
    if set(values) - set(FIELDS):
        raise FixtureError(f"{slug}: unknown fields {sorted(set(values) - set(FIELDS))}")
    if raw["kind"] not in KINDS:
        raise FixtureError(f"{slug}: kind must be one of {KINDS}")
    readings = {f: _reading(slug, f, v) for f, v in values.items() if v is not None}
    value = {f: r.value for f, r in readings.items()}
    memory = value.get("memory_bytes")
    return Device(
        slug=slug,
        name=raw["name"],
        vendor=raw["vendor"],
        kind=raw["kind"],
        memory_bytes=round(memory) if memory is not None else None,
        memory_bandwidth=value.get("memory_bandwidth"),
        link_bandwidth=value.get("link_bandwidth"),
        peak_flops=MappingProxyType({p: value.get(f"peak_flops.{p}") for p in PRECISIONS}),
        aliases=tuple(raw.get("aliases", ())),
        sources=MappingProxyType({f: r.url for f, r in readings.items()}),
        readings=MappingProxyType(readings),
        notes=tuple(raw.get("notes", ())),
    )


def load(path: Path = FIXTURE) -> dict[str, Device]:
    """The devices of a fixture file, by slug, in the file's order."""
    table: dict[str, Device] = {}
    for raw in json.loads(path.read_text(encoding="utf-8"))["devices"]:
        device = _device(raw)
        if device.slug in table:
            raise FixtureError(f"{device.slug}: listed twice")
        table[device.slug] = device
    return table


@functools.cache
def devices() -> dict[str, Device]:
    """Every device of fixtures/devices.json by slug, read once per process (do not mutate)."""
    return load()


# --- names ----------------------------------------------------------------------------------
# Words that name the maker, the product line or the memory technology, not the device.
NOISE = frozenset(
    """nvidia tesla amd instinct intel r habana google cloud tensor core gpu gpus ai
    accelerator accelerators blackwell ultra hopper ampere volta hbm hbm2 hbm2e hbm3 hbm3e dlc
    cts chip chips module oam""".split()
)
FORMS = {"sxm": "sxm", "pcie": "pcie", "pci": "pcie", "nvl": "nvl"}
# The generation of an SXM socket says nothing the model does not ("A100-SXM-80GB" and
# "A100-SXM4-80GB" are one GPU), but for SXM3: the DGX-2's V100, apart from the SXM2 one.
KEPT_FORMS = frozenset({"sxm3"})
MEMORY = re.compile(r"^(\d+)g(?:b)?$")
POWER = re.compile(r"^\d+w$")


def _tokens(text: str) -> list[str]:
    text = re.sub(r"\((?:r|tm)\)", " ", text.lower())  # Intel(R), Gaudi(R)
    # Split letters from a version ("TPUv4", "Gaudi2") only where the word is a known prefix.
    text = re.sub(r"\b(tpu|gaudi)[-_ ]?(?=v?\d|trillium)", r"\1 ", text)
    return [t for t in re.split(r"[^a-z0-9]+", text) if t]


def name_key(text: str) -> tuple[str, str | None, int | None]:
    """(model, form factor, memory GB) of an accelerator name: "NVIDIA H100-SXM5-80GB" ->
    ("h100", "sxm", 80); "TPU v5p" -> ("tpuv5p", None, None). Maker, product-line and memory
    technology words, power figures ("(400W)") and a trailing "-H" (DGX-2H) are dropped."""
    model, form, memory = [], None, None
    for token in _tokens(text):
        bare = token.rstrip("0123456789")
        if token in NOISE or POWER.match(token):
            continue
        if bare in FORMS:  # sxm, sxm2, sxm5, pcie, nvl ("H100 NVL ... (PCIe)" is the NVL)
            form = form if form == "nvl" else token if token in KEPT_FORMS else FORMS[bare]
        elif MEMORY.match(token):
            memory = int(MEMORY.match(token).group(1))
        elif token == "gb" and model and model[-1].isdigit():  # "80 GB"
            memory = int(model.pop())
        else:
            model.append(token)
    if len(model) > 1 and model[-1] == "h":  # "Tesla V100-SXM3-32GB-H": the DGX-2H's V100
        model.pop()
    return "".join(model), form, memory


def _keys(device: Device, alias: str) -> set[tuple[str, str | None, int | None]]:
    """An alias's key, and, for an alias without a memory size, the key with the device's
    memory in GB and in GiB (names write either: "H200-SXM5-141GB", "TPU v5p 95GB")."""
    model, form, memory = name_key(alias)
    keys = {(model, form, memory)}
    if memory is None and device.memory_bytes:
        keys |= {(model, form, round(device.memory_bytes / unit)) for unit in (1e9, 2**30)}
    return keys


@functools.cache
def _alias_table() -> dict[tuple, str]:
    table: dict[tuple, str] = {}
    for device in devices().values():
        for alias in (device.name, *device.aliases):
            for key in _keys(device, alias):
                if table.setdefault(key, device.slug) != device.slug:
                    raise FixtureError(f"alias {alias!r} names {table[key]} and {device.slug}")
    return table


def _readings(name: str) -> list[str]:
    """The name, then the name without its parenthesised remarks, then each remark alone:
    MLPerf puts the model in parentheses ("NVIDIA Blackwell GPU (GB200)"), papers put remarks
    there ("NVIDIA A100 80GB (560 DGX A100)")."""
    remarks = re.findall(r"\(([^()]*)\)", name)
    return [name, re.sub(r"\([^()]*\)", " ", name), *remarks]


def device_for(accelerator_name: str) -> Device | None:
    """The device an accelerator name denotes, or None when no device's alias has its model,
    form factor and memory size. No guess across a stated form or size: "A100-PCIe-80GB" is not
    the SXM A100, "H100-SXM5-96GB" not the 80 GB H100. A name without a form factor or size
    means what the device's aliases say (e.g. "NVIDIA H100 80GB HBM3" the SXM H100, as MLPerf's
    DGX H100 submissions write it)."""
    if not accelerator_name or len(accelerator_name) > 200:
        return None
    table = _alias_table()
    for reading in _readings(accelerator_name):
        slug = table.get(name_key(reading))
        if slug:
            return devices()[slug]
    return None
