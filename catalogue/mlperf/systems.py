"""A system's description as MLPerf submitters wrote it, brought to the catalogue's fields. Pure.

From v0.6 each submitter writes `<submitter>/systems/<system>.json` with the field names of the
MLPerf system description (`number_of_nodes`, `accelerators_per_node`, `accelerator_model_name`,
`host_networking`, `accelerator_interconnect`, `framework`, `status`, `division`...); v0.5 wrote
`results/<system>/entry.json` (`hardware`, `interconnect`, `nodes: [{num_nodes, accelerator,
num_accelerators, cpu}]`), and NVIDIA's v0.6 systems are logging lines (`org: {"value": ...}`,
`entry: {"value": "<the entry as a Python dict's text>"}`), read with regular expressions (nothing
is evaluated). Values are kept as written; counts are read when they are whole numbers.
"""

from __future__ import annotations

import json
import re

# Three v1.0 descriptions write the division "close"; the rules know only closed and open.
DIVISIONS = {"close": "closed"}
TRAILING_COMMA = re.compile(r",(\s*[}\]])")
LOGGED_LINE = re.compile(r"^(\w+): (\{.*\})\s*$", re.M)
QUOTED_PAIR = re.compile(r"'(\w+)': '([^']*)'")


def read_json(data: bytes) -> tuple[dict | None, str]:
    """The JSON object, or None and why. Trailing commas, which several submitters wrote, are
    tolerated."""
    text = data.decode("utf-8-sig", "replace")
    for attempt in (text, TRAILING_COMMA.sub(r"\1", text)):
        try:
            value = json.loads(attempt)
        except ValueError as error:
            why = f"not JSON: {error}"
            continue
        return (value, "") if isinstance(value, dict) else (None, "not a JSON object")
    return None, why


def count(value) -> int | None:
    """A whole positive number written as a number or a string ("8", "8.0"), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip().replace(",", "")
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() and 0 < number < 10**7 else None


def division(value) -> str:
    written = text(value, 20).lower()
    return DIVISIONS.get(written, written)


def text(value, limit: int = 300) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    return " ".join(str(value).split())[:limit]


def system_fields(description: dict) -> dict:
    """The catalogue's fields from a `systems/<id>.json` (v0.6 on)."""
    d = {key.strip().lower(): value for key, value in description.items()}
    nodes = count(d.get("number_of_nodes"))
    per_node = count(d.get("accelerators_per_node"))
    return {
        "name": text(d.get("system_name")),
        "division": division(d.get("division")),
        "availability": text(d.get("status"), 60),
        "nodes": nodes,
        "accelerators_per_node": per_node,
        "accelerators": nodes * per_node if nodes and per_node else None,
        "accelerator": text(d.get("accelerator_model_name"), 200),
        "host_processor": text(d.get("host_processor_model_name"), 200),
        "host_interconnect": text(d.get("host_networking")),
        "accelerator_interconnect": text(d.get("accelerator_interconnect")),
        "framework": text(d.get("framework") or d.get("framework_name"), 200),
    }


def entry_fields(entry: dict) -> dict:
    """The catalogue's fields from a v0.5 `entry.json`; nodes of several kinds are summed."""
    kinds = [node for node in entry.get("nodes") or [] if isinstance(node, dict)]
    nodes = [count(node.get("num_nodes")) for node in kinds]
    per_node = [count(node.get("num_accelerators")) for node in kinds]
    known = kinds and all(nodes) and all(per_node)
    same = len(set(per_node)) == 1
    accelerators = {text(node.get("accelerator"), 200) for node in kinds} - {""}
    return {
        "name": text(entry.get("hardware")),
        "division": division(entry.get("division")),
        "availability": text(entry.get("status"), 60),
        "nodes": sum(nodes) if known else None,
        "accelerators_per_node": per_node[0] if known and same else None,
        "accelerators": sum(n * p for n, p in zip(nodes, per_node, strict=True)) if known else None,
        "accelerator": " + ".join(sorted(accelerators)),
        "host_processor": " + ".join(sorted({text(node.get("cpu"), 200) for node in kinds})),
        "host_interconnect": text(entry.get("interconnect")),
        "accelerator_interconnect": "",
        "framework": text(entry.get("framework"), 200),
    }


def describe(data: bytes, version: str) -> tuple[dict | None, str]:
    """The catalogue's fields from a system description file, or None and why."""
    description, why = read_json(data)
    if description is not None:
        reader = entry_fields if version == "v0.5" else system_fields
        return reader(description), ""
    entry = logged_entry(data)
    return (entry_fields(entry), "") if entry else (None, why)


def logged_entry(data: bytes) -> dict | None:
    """A v0.5-shaped entry from a description written as MLPerf logging lines."""
    values = {}
    for key, payload in LOGGED_LINE.findall(data.decode("utf-8", "replace")):
        try:
            values[key] = json.loads(payload).get("value")
        except (ValueError, AttributeError):
            continue
    if not isinstance(values.get("entry"), str):
        return None
    pairs = dict(QUOTED_PAIR.findall(values["entry"]))
    node = {k: pairs.get(k) for k in ("num_nodes", "num_accelerators", "accelerator", "cpu")}
    return {
        "division": values.get("division"),
        "status": values.get("status"),
        "hardware": values.get("platform") or pairs.get("hardware"),
        "framework": pairs.get("framework"),
        "interconnect": pairs.get("interconnect"),
        "nodes": [node],
    }
