"""A release's files, written so that the same tables give the same bytes: rows in the tables'
order, JSON with sorted keys, zip entries with the release date as their time and fixed
permissions, no timestamp but the release date. Pure: no ORM, no request.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sqlite3
import zipfile
from datetime import date
from pathlib import Path

from catalogue.release.tables import Table

SQLITE_TYPES = {"integer": "INTEGER", "number": "REAL", "boolean": "INTEGER", "string": "TEXT"}
SITE_NAME = "survey-explorer"
# The licence of the compiled data (the facts are the sources'; each row names its source).
LICENSE = {
    "name": "CC-BY-4.0",
    "title": "Creative Commons Attribution 4.0",
    "path": "https://creativecommons.org/licenses/by/4.0/",
}
SURVEY_SOURCE = {
    "title": "Ben-Nun & Hoefler, Demystifying Parallel and Distributed Deep Learning (2018)",
    "path": "https://arxiv.org/abs/1802.09941",
}


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def create_sql(table: Table) -> str:
    lines = [f"{quoted(c.name)} {SQLITE_TYPES[c.type]}" for c in table.columns]
    lines.append(f"PRIMARY KEY ({', '.join(quoted(name) for name in table.primary_key)})")
    lines += [
        f"FOREIGN KEY ({quoted(key.column)}) REFERENCES {quoted(key.table)} ({quoted(key.target)})"
        for key in table.foreign_keys
    ]
    return f"CREATE TABLE {quoted(table.name)} (\n  " + ",\n  ".join(lines) + "\n)"


def write_sqlite(path: Path, tables: list[Table], about: dict[str, str]) -> None:
    """One table per release table, plus `release` (key, value): the version, date, licence.
    Written once, in one transaction, with a fixed page size: the file's bytes depend only on
    the rows (and on the SQLite library's version, which its header records)."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA page_size = 4096")
        connection.execute("PRAGMA journal_mode = OFF")
        connection.execute("BEGIN")
        connection.execute('CREATE TABLE "release" (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
        connection.executemany('INSERT INTO "release" VALUES (?, ?)', sorted(about.items()))
        for table in tables:
            connection.execute(create_sql(table))
            marks = ", ".join("?" * len(table.columns))
            connection.executemany(f"INSERT INTO {quoted(table.name)} VALUES ({marks})", table.rows)
        connection.execute("COMMIT")
    finally:
        connection.close()


def csv_text(table: Table) -> str:
    """The table as CSV: booleans as true/false, a null as an empty field."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.column_names)
    booleans = [column.type == "boolean" for column in table.columns]
    for row in table.rows:
        writer.writerow(
            [
                "" if value is None else ("true" if value else "false") if boolean else value
                for value, boolean in zip(row, booleans, strict=True)
            ]
        )
    return out.getvalue()


def table_schema(table: Table) -> dict:
    schema: dict = {
        "fields": [
            {"name": c.name, "type": c.type, "description": c.description}
            | ({"constraints": {"required": True}} if c.name in table.primary_key else {})
            for c in table.columns
        ],
        "primaryKey": list(table.primary_key),
        "missingValues": [""],
    }
    if table.foreign_keys:
        schema["foreignKeys"] = [
            {
                "fields": key.column,
                # A key into its own table names the resource "" (the specification's rule).
                "reference": {
                    "resource": "" if key.table == table.name else key.table,
                    "fields": key.target,
                },
            }
            for key in table.foreign_keys
        ]
    return schema


def datapackage(tables: list[Table], version: str, released: date) -> dict:
    return {
        "profile": "tabular-data-package",
        "name": SITE_NAME,
        "title": "Survey Explorer: the catalogue of Demystifying Parallel and Distributed Deep "
        "Learning, with the works after it",
        "version": version,
        "created": f"{released.isoformat()}T00:00:00Z",
        "licenses": [LICENSE],
        "sources": [SURVEY_SOURCE],
        "resources": [
            {
                "name": table.name,
                "path": f"data/{table.name}.csv",
                "profile": "tabular-data-resource",
                "title": table.name,
                "description": table.description,
                "format": "csv",
                "mediatype": "text/csv",
                "encoding": "utf-8",
                "licenses": [LICENSE],
                "schema": table_schema(table),
            }
            for table in tables
        ],
    }


def write_package(path: Path, tables: list[Table], version: str, released: date) -> None:
    """datapackage.json and one CSV per table in a zip; every entry dated the release date."""
    stamp = (released.year, released.month, released.day, 0, 0, 0)
    entries = {"datapackage.json": canonical_text(datapackage(tables, version, released))}
    entries |= {f"data/{table.name}.csv": csv_text(table) for table in tables}
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in entries.items():
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"), compresslevel=9)


def canonical_text(document: object) -> str:
    return json.dumps(document, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256sums(folder: Path, names: list[str]) -> str:
    """The `sha256sum` format: `<hex>  <name>` per file, sorted by name."""
    return "".join(f"{sha256_of(folder / name)}  {name}\n" for name in sorted(names))
