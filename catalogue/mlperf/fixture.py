"""The MLPerf fixture's shape, shared by its builder (fixtures/build/mlperf.py) and its loader
(catalogue/mlperf/load.py). Pure.

A gzip'd JSON document: `rounds` (one object per round: version, repository, commit, available,
note, rules_url), and `systems`, `runs`, `scores` as a column list plus rows (lists), so that the
20,000 runs do not repeat their keys. A run's and a score's `system` is the row number of its
system. Written with sorted keys, sorted rows and gzip's mtime 0: the same inputs give the same
bytes.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

FORMAT = 1
ROUND_ORDER = (
    "v0.5",
    "v0.6",
    "v0.7",
    "v1.0",
    "v1.1",
    "v2.0",
    "v2.1",
    "v3.0",
    "v3.1",
    "v4.0",
    "v4.1",
    "v5.0",
    "v5.1",
)
COLUMNS = {
    "systems": (
        "round",
        "submitter",
        "system_id",
        "name",
        "division",
        "availability",
        "nodes",
        "accelerators_per_node",
        "accelerators",
        "accelerator",
        "device_slug",
        "host_processor",
        "host_interconnect",
        "accelerator_interconnect",
        "framework",
        "path",
    ),
    "runs": (
        "system",
        "benchmark",
        "index",
        "status",
        "start",
        "stop",
        "minutes",
        "global_batch",
        "at_target",
        "at_target_unit",
        "throughput",
        "note",
        "path",
    ),
    "scores": (
        "system",
        "benchmark",
        "minutes",
        "olympic_minutes",
        "scaling_factor",
        "runs_successful",
        "runs_required",
        "rule",
        "rule_text",
        "rule_url",
        "rcp",
        "rcp_note",
        "note",
    ),
}


def records(fixture: dict, name: str) -> list[dict]:
    """The rows of one table as dicts keyed by the fixture's own column list."""
    columns = fixture[name]["columns"]
    return [dict(zip(columns, row, strict=True)) for row in fixture[name]["rows"]]


def dumps(fixture: dict) -> bytes:
    text = json.dumps(fixture, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(text.encode())
    return buffer.getvalue()


def read(path: Path) -> tuple[dict, bytes]:
    """The fixture and its raw bytes (whose hash says whether it changed)."""
    raw = path.read_bytes()
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    fixture = json.loads(data)
    if fixture.get("format") != FORMAT:
        raise ValueError(f"{path}: fixture format {fixture.get('format')!r}, expected {FORMAT}")
    for name, columns in COLUMNS.items():
        # The loader names these columns in its INSERT statements: only the known ones pass.
        if fixture.get(name, {}).get("columns") != list(columns):
            raise ValueError(f"{path}: {name} columns are not {', '.join(columns)}")
    return fixture, raw
