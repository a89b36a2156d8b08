"""The release the repository ships (releases/1.0.0, cut from the fixtures) and CITATION.cff."""

import csv
import hashlib
import io
import json
import sqlite3
import zipfile
from pathlib import Path

import frictionless
import yaml
from django.conf import settings

from catalogue.release import shelf

ROOT = Path(settings.BASE_DIR)
SHIPPED = ROOT / "releases" / "1.0.0"


def test_it_ships_a_release_whose_checksums_match_its_files():
    listed = dict(
        reversed(line.split("  ")) for line in (SHIPPED / "SHA256SUMS").read_text().splitlines()
    )
    names = sorted(path.name for path in SHIPPED.iterdir() if path.name != "SHA256SUMS")
    assert sorted(listed) == names
    for name, digest in listed.items():
        assert hashlib.sha256((SHIPPED / name).read_bytes()).hexdigest() == digest, name
    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    for entry in manifest["files"]:
        assert (entry["sha256"], entry["bytes"]) == (
            listed[entry["name"]],
            (SHIPPED / entry["name"]).stat().st_size,
        )
    # Small enough to ship in the repository (issue 45: under about 15 MB in all).
    assert sum(path.stat().st_size for path in SHIPPED.iterdir()) < 15_000_000


def test_it_ships_a_sqlite_file_whose_keys_hold_and_counts_match_the_manifest():
    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    connection = sqlite3.connect(
        f"file:{SHIPPED / 'survey-explorer-1.0.0.sqlite'}?mode=ro", uri=True
    )
    assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    for table, count in manifest["counts"].items():
        assert connection.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0] == count
    assert dict(connection.execute('SELECT key, value FROM "release"')) == {
        "version": "1.0.0",
        "date": manifest["date"],
        "license": "CC-BY-4.0",
    }


def test_it_ships_a_data_package_whose_schemas_name_its_csv_columns():
    with zipfile.ZipFile(SHIPPED / "survey-explorer-1.0.0-datapackage.zip") as archive:
        package = json.loads(archive.read("datapackage.json"))
        names = {resource["name"] for resource in package["resources"]}
        assert package["licenses"][0]["name"] == "CC-BY-4.0"
        for resource in package["resources"]:
            text = archive.read(resource["path"]).decode("utf-8")
            header = next(csv.reader(io.StringIO(text)))
            schema = resource["schema"]
            assert header == [field["name"] for field in schema["fields"]], resource["name"]
            assert set(schema["primaryKey"]) <= set(header)
            for key in schema.get("foreignKeys", []):
                assert key["reference"]["resource"] in names | {""}
        assert {info.date_time for info in archive.infolist()} == {(2026, 12, 7, 0, 0, 0)}


def test_it_ships_a_data_package_that_frictionless_validates(tmp_path):
    """frictionless-py (requirements-dev.txt) checks it against the Data Package specification:
    descriptor, table schemas, types, primary and foreign keys."""
    with zipfile.ZipFile(SHIPPED / "survey-explorer-1.0.0-datapackage.zip") as archive:
        archive.extractall(tmp_path)
    report = frictionless.validate(str(tmp_path / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])


def test_it_cites_the_software_and_the_latest_release_in_citation_cff():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    latest = shelf.latest(ROOT / "releases")
    [data] = [reference for reference in citation["references"] if reference["type"] == "data"]
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software"
    assert (data["version"], str(data["date-released"])) == (latest["version"], latest["date"])
    assert data["license"] == latest["license"]["name"]
