"""The device catalogue's document, shared by /devices/ and /api/devices/: every device with each
value, its unit, the figure as its page prints it, the page and the page's kind; filtered by
?vendor= and ?kind=, sorted by ?ordering= (a column, "-" first for descending; unknown values
last either way). Pure: no database, the catalogue is read once per process."""

from __future__ import annotations

from typing import Any

from django import forms

from catalogue.devices import (
    KINDS,
    PRECISIONS,
    SOURCE_KINDS,
    Device,
    devices,
)
from explorer.templatetags.explorer_tags import si
from explorer.web.forms import QueryForm, WordChoiceField
from explorer.web.links import link


def _unit(precision: str) -> str:
    return "OP/s" if precision == "int8" else "FLOP/s"  # integer operations are not FLOPs


# Column -> (the catalogue's field, label, unit); a precision's column is its name.
COLUMNS: dict[str, tuple[str, str, str]] = {
    "memory": ("memory_bytes", "memory", "B"),
    "memory_bandwidth": ("memory_bandwidth", "memory bandwidth", "B/s"),
    "link_bandwidth": ("link_bandwidth", "link (one way)", "B/s"),
    **{p: (f"peak_flops.{p}", f"{p} peak", _unit(p)) for p in PRECISIONS},
}
SORT_KEYS = ("name", "vendor", *COLUMNS)
CONVENTIONS = (
    "Peaks are dense FLOP/s per device (NVIDIA's 'with sparsity' figures halved; TPU figures "
    "per chip; int8 in operations per second); memory in bytes (a page's GB taken as 10^9 "
    "bytes, GiB and MiB as 2^30 and 2^20); bandwidths in bytes per second; the link is the "
    "intra-node interconnect (NVLink, Infinity Fabric, ICI, the Gaudis' RoCE ports) in one "
    "direction per device (a bidirectional figure halved). Each value keeps the figure as its "
    "page prints it, the page, the page's kind, and any divisor with its reason; a value no "
    "page states is null ('unknown')."
)


def _choices(values) -> list[tuple[str, str]]:
    return [("", "")] + [(v, v) for v in values]


class DevicesForm(QueryForm):
    vendor = forms.ChoiceField(required=False, choices=(), help_text="a vendor, e.g. NVIDIA")
    kind = forms.ChoiceField(required=False, choices=_choices(KINDS))
    ordering = WordChoiceField(  # a refusal lists the allowed values
        required=False,
        choices=_choices([*SORT_KEYS, *(f"-{k}" for k in SORT_KEYS)]),
        help_text="a column (name, vendor, memory, a bandwidth or a precision); '-' first for "
        "descending; unknown values last",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["vendor"].choices = _choices(vendors())


def vendors() -> list[str]:
    return sorted({device.vendor for device in devices().values()})


def shown(value: float, unit: str, read: str) -> str:
    """A value as the table shows it: three significant digits with an SI prefix ("989 TFLOP/s"),
    but in GiB for a memory its page gives in GiB or MiB (Google's "95 GiB" is not "102 GB")."""
    if unit == "B" and read.rstrip().lower().endswith(("gib", "mib")):
        return f"{value / 2**30:.3g} GiB"
    return f"{si(value)}{unit}"


def value_entry(device: Device, field: str, unit: str) -> dict[str, Any] | None:
    reading = device.readings.get(field)
    if reading is None:
        return None
    value = reading.value if field != "memory_bytes" else device.memory_bytes
    return {
        "value": value,
        "unit": unit,
        "shown": shown(value, unit, reading.read),
        "read": reading.read,
        "url": reading.url,
        "source_kind": reading.kind,
        "divisor": reading.divisor,
        "why": reading.why,
    }


def device_row(device: Device) -> dict[str, Any]:
    return {
        "slug": device.slug,
        "name": device.name,
        "vendor": device.vendor,
        "kind": device.kind,
        "aliases": list(device.aliases),
        "values": {
            column: value_entry(device, field, unit) for column, (field, _, unit) in COLUMNS.items()
        },
        "notes": list(device.notes),
    }


def ordered(rows: list[dict], ordering: str) -> list[dict]:
    if not ordering:
        return rows
    key, descending = ordering.lstrip("-"), ordering.startswith("-")
    if key in ("name", "vendor"):
        return sorted(rows, key=lambda row: row[key].lower(), reverse=descending)
    known = [row for row in rows if row["values"][key] is not None]
    unknown = [row for row in rows if row["values"][key] is None]
    known.sort(key=lambda row: row["values"][key]["value"], reverse=descending)
    return known + unknown  # unknown last, whichever the direction


def value_counts(rows: list[dict]) -> dict[str, int]:
    """How many of the rows' values each kind of page gave, and how many are unknown."""
    counts = dict.fromkeys([*SOURCE_KINDS, "unknown"], 0)
    for row in rows:
        for entry in row["values"].values():
            counts[entry["source_kind"] if entry else "unknown"] += 1
    return counts


def answer(query) -> dict[str, Any]:
    """The document for a query string (a QueryDict); ApiError (a 400 keyed by parameter) when
    it is bad."""
    data = DevicesForm(query).checked()
    rows = [
        device_row(device)
        for device in devices().values()
        if (not data["vendor"] or device.vendor == data["vendor"])
        and (not data["kind"] or device.kind == data["kind"])
    ]
    encoded = query.urlencode()
    return {
        "count": len(rows),
        "total": len(devices()),
        "conventions": CONVENTIONS,
        "source_kinds": SOURCE_KINDS,
        "value_counts": value_counts(rows),
        "columns": [
            {"name": column, "label": label, "unit": unit}
            for column, (_, label, unit) in COLUMNS.items()
        ],
        "devices": ordered(rows, data["ordering"]),
        "page_url": link("devices:devices", query=encoded),
        "api_url": link("devices:api-devices", query=encoded),
    }
