"""One colour per parallelism level, for every figure that colours by level (the timeline on
/numbers/, the citation graph on /graph/): the same level looks the same everywhere; and one
colour per accelerator, for every chart that colours by device (the MLPerf charts)."""

from __future__ import annotations

import colorsys
import functools
import re

from catalogue.devices import devices

LEVEL_COLOURS = {"ops": "#2457a6", "net": "#2e8b57", "train": "#c0392b", "bg": "#8e8e8e"}
# For a top-level category a curator adds: colours no level above uses, in turn.
SPARE_COLOURS = ["#d9822b", "#8e44ad", "#16a085", "#b7950b"]
NO_LEVEL_COLOUR = "#c5ccd6"  # works without a category


def level_colours(codes: list[str]) -> dict[str, str]:
    """Level code -> colour, for the levels in taxonomy order."""
    spare = iter(SPARE_COLOURS * (1 + len(codes) // len(SPARE_COLOURS)))
    return {code: LEVEL_COLOURS.get(code) or next(spare) for code in codes}


# --- accelerators ---------------------------------------------------------------------------
# One hue range per vendor (NVIDIA yellow-green to teal, Google blue, AMD red, Intel violet); a
# generation is a step along its vendor's range, oldest first, darker and lighter in turn so
# that neighbours differ twice; the variants of one generation (SXM and PCIe, 40 and 80 GB) are
# shades of it. Computed from the whole device catalogue,
# never from one chart's devices: an H100 has the same colour on every chart and page.
# The ranges leave gaps between vendors: the newest NVIDIA part is not read as a Google one.
VENDOR_HUES = {"NVIDIA": (45, 160), "Google": (200, 245), "AMD": (345, 385), "Intel": (280, 320)}
OTHER_HUES = (20, 40)  # a vendor the table does not know: orange to amber
GENERATION_LIGHTNESS = (30, 50)  # percent, even and odd generations
VARIANT_STEPS = (0, 18, -12, 26, 9)  # percent added, in turn; a sixth variant repeats the first
SATURATION = 0.68
UNKNOWN_DEVICE_COLOUR = "#999999"  # a system whose accelerator the catalogue does not name


def generation(slug: str) -> str:
    """The product generation a device's slug names: "h100" for h100-sxm, h100-pcie and
    h100-nvl, and h800-sxm (the H100's die); "b200" for b200 and gb200 (one chip), "tpu-v5"
    for tpu-v5e and tpu-v5p."""
    plain = re.sub(r"^gb(?=\d)", "b", re.sub(r"^h800", "h100", slug))
    found = re.match(r"tpu-v\d|[a-z]+\d+", plain)
    return found.group(0) if found else slug


def accelerator_palette(devices: list[tuple[str, str]]) -> dict[str, str]:
    """Slug -> colour for (slug, vendor) pairs in catalogue order (oldest first per vendor):
    every device its own colour."""
    by_vendor: dict[str, dict[str, list[str]]] = {}
    for slug, vendor in devices:
        by_vendor.setdefault(vendor, {}).setdefault(generation(slug), []).append(slug)
    colours: dict[str, str] = {}
    for vendor, generations in by_vendor.items():
        low, high = VENDOR_HUES.get(vendor, OTHER_HUES)
        steps = max(1, len(generations) - 1)
        for index, variants in enumerate(generations.values()):
            hue = (low + (high - low) * index / steps) % 360
            base = GENERATION_LIGHTNESS[index % 2]
            for number, slug in enumerate(variants):
                lightness = base + VARIANT_STEPS[number % len(VARIANT_STEPS)]
                colours[slug] = _hex(hue, lightness / 100, SATURATION)
    return colours


@functools.cache
def accelerator_colours() -> dict[str, str]:
    """Every device of the catalogue (fixtures/devices.json) -> its colour; read once."""
    return accelerator_palette([(d.slug, d.vendor) for d in devices().values()])


def accelerator_colour(slug: str) -> str:
    return accelerator_colours().get(slug, UNKNOWN_DEVICE_COLOUR)


# The variants of a generation differ in shape as well as shade (a light and a dark green are
# close on a chart of a dozen NVIDIA parts): the first a circle, the second a square...
VARIANT_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross")


@functools.cache
def accelerator_symbols() -> dict[str, str]:
    """Every device of the catalogue -> its marker symbol: its place among its generation's."""
    seen: dict[str, int] = {}
    symbols = {}
    for slug in devices():
        number = seen.get(generation(slug), 0)
        seen[generation(slug)] = number + 1
        symbols[slug] = VARIANT_SYMBOLS[number % len(VARIANT_SYMBOLS)]
    return symbols


def accelerator_symbol(slug: str) -> str:
    return accelerator_symbols().get(slug, "circle")


def _hex(hue: float, lightness: float, saturation: float) -> str:
    red, green, blue = colorsys.hls_to_rgb(hue / 360, lightness, saturation)
    return "#" + "".join(f"{round(channel * 255):02x}" for channel in (red, green, blue))
