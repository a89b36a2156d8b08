"""What changed between two releases, read from their SQLite files: works added, removed and
changed field by field (their author lists included), citation edges, measured results and MLPerf
scores by their natural keys, and every table's row count. Pure: sqlite3 only.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

# Each compared table's rows by natural key (ids differ between two loads of the same data).
KEYED_SQL = {
    "works": """
        SELECT w.*, (SELECT group_concat(name, '; ') FROM (
            SELECT a.name FROM authorship s JOIN author a ON a.id = s.author_id
            WHERE s.work_id = w.id ORDER BY s.position)) AS authors
        FROM work w""",
    "citations": """
        SELECT g.key || ' -> ' || d.key || ' (' || c.provenance || ')' AS natural_key,
               c.evidence_source, c.evidence_excerpt
        FROM citation c JOIN work g ON g.id = c.citing_id JOIN work d ON d.id = c.cited_id""",
    "results": """
        SELECT r.*, w.key AS work FROM result r LEFT JOIN work w ON w.id = r.work_id""",
    "mlperf_scores": """
        SELECT r.version || ' ' || y.submitter || ' ' || y.system_id || ' ' || b.slug
                   AS natural_key, s.*
        FROM mlperf_score s JOIN mlperf_system y ON y.id = s.system_id
        JOIN mlperf_round r ON r.id = y.round_id
        JOIN mlperf_benchmark b ON b.id = s.benchmark_id""",
}
NATURAL_KEYS = {
    "works": "key",
    "citations": "natural_key",
    "results": "slug",
    "mlperf_scores": "natural_key",
}
# Columns that are row ids: they differ between loads without any fact changing.
ID_COLUMNS = frozenset({"id", "work_id", "system_id", "benchmark_id", "round_id"})


def keyed_rows(connection: sqlite3.Connection, kind: str) -> dict[str, dict]:
    cursor = connection.execute(KEYED_SQL[kind])
    names = [column[0] for column in cursor.description]
    rows = {}
    for values in cursor:
        row = dict(zip(names, values, strict=True))
        rows[str(row[NATURAL_KEYS[kind]])] = {
            name: value for name, value in row.items() if name not in ID_COLUMNS
        }
    return rows


def compared(before: dict[str, dict], after: dict[str, dict]) -> dict:
    changed = []
    for key in sorted(before.keys() & after.keys()):
        fields = {
            name: {"before": before[key].get(name), "after": value}
            for name, value in sorted(after[key].items())
            if before[key].get(name) != value
        }
        if fields:
            changed.append({"key": key, "fields": fields})
    return {
        "added": sorted(after.keys() - before.keys()),
        "removed": sorted(before.keys() - after.keys()),
        "changed": changed,
    }


def table_counts(connection: sqlite3.Connection) -> dict[str, int]:
    names = [
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'release' "
            "ORDER BY name"
        )
    ]
    return {
        name: connection.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] for name in names
    }


def read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def changelog(previous: Path | None, current: Path, previous_version: str | None) -> dict:
    """The changes from the release at `previous` (None: this is the first) to `current`."""
    after = read_only(current)
    try:
        counts_after = table_counts(after)
        if previous is None:
            counts = {name: {"before": 0, "after": n} for name, n in counts_after.items()}
            return {"previous": None, "first_release": True, "counts": counts}
        before = read_only(previous)
        try:
            counts_before = table_counts(before)
            document = {
                kind: compared(keyed_rows(before, kind), keyed_rows(after, kind))
                for kind in KEYED_SQL
            }
        finally:
            before.close()
    finally:
        after.close()
    names = sorted(counts_before.keys() | counts_after.keys())
    counts = {
        name: {"before": counts_before.get(name, 0), "after": counts_after.get(name, 0)}
        for name in names
    }
    return {"previous": previous_version, "first_release": False, "counts": counts, **document}
