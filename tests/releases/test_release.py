"""manage.py release: the files, their checksums, determinism, privacy, immutability and the
changelog after one curator's edit."""

import csv
import hashlib
import io
import json
import sqlite3
import zipfile
from datetime import date
from pathlib import Path

import frictionless
import pytest
from django.core.management import CommandError, call_command

from catalogue.models import Work
from catalogue.release.cut import ReleaseError, cut
from explorer.demos import DEMOS
from explorer.demos.base import schema
from explorer.demos.models import DemoRun
from tests.helpers import make_work

DAY = date(2026, 12, 7)
DATABASE_TABLES = [
    "assignment",
    "author",
    "authorship",
    "category",
    "citation",
    "cost_model",
    "cost_model_work",
    "mlperf_benchmark",
    "mlperf_benchmark_category",
    "mlperf_benchmark_technique",
    "mlperf_round",
    "mlperf_run",
    "mlperf_score",
    "mlperf_system",
    "person",
    "result",
    "result_technique",
    "technique",
    "technique_work",
    "work",
]
RELEASE_TABLES = sorted([*DATABASE_TABLES, "demo", "device", "device_value", "release", "source"])


def cut_here(root: Path, version: str | None = None) -> dict:
    return cut(root, [schema(demo) for demo in DEMOS.values()], DAY, version)


def sqlite_of(root: Path, version: str) -> sqlite3.Connection:
    return sqlite3.connect(root / version / f"survey-explorer-{version}.sqlite")


def package_csv(root: Path, version: str, table: str) -> list[dict]:
    path = root / version / f"survey-explorer-{version}-datapackage.zip"
    with zipfile.ZipFile(path) as archive:
        text = archive.read(f"data/{table}.csv").decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def test_it_gives_the_api_works_count_in_the_sqlite_file_and_the_package(
    client, survey, releases_dir
):
    cut_here(releases_dir)
    api_count = client.get("/api/works/?era=all").json()["count"]
    connection = sqlite_of(releases_dir, "1.0.0")
    names = [
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
    ]
    assert names == RELEASE_TABLES
    assert connection.execute("SELECT COUNT(*) FROM work").fetchone()[0] == api_count == 376
    assert len(package_csv(releases_dir, "1.0.0", "work")) == api_count
    edges = client.get("/api/citations/").json()["count"]
    assert connection.execute("SELECT COUNT(*) FROM citation").fetchone()[0] == edges
    keys = {row[0] for row in connection.execute("SELECT key FROM work")}
    assert keys == set(Work.objects.values_list("key", flat=True))


def test_it_cuts_a_data_package_that_frictionless_validates(survey, releases_dir, tmp_path):
    """The package cut from the current fixtures (not only the shipped 1.0.0) meets the Data
    Package specification: descriptor, table schemas, types, primary and foreign keys."""
    cut_here(releases_dir)
    with zipfile.ZipFile(releases_dir / "1.0.0" / "survey-explorer-1.0.0-datapackage.zip") as zf:
        zf.extractall(tmp_path / "package")
    report = frictionless.validate(str(tmp_path / "package" / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])


def test_it_writes_checksums_that_match_the_files(survey, releases_dir):
    manifest = cut_here(releases_dir)
    folder = releases_dir / "1.0.0"
    sums = (folder / "SHA256SUMS").read_text().splitlines()
    listed = dict(reversed(line.split("  ")) for line in sums)
    assert sorted(listed) == sorted(
        path.name for path in folder.iterdir() if path.name != "SHA256SUMS"
    )
    for name, digest in listed.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
    for entry in manifest["files"]:
        assert entry["sha256"] == listed[entry["name"]]
        assert entry["bytes"] == (folder / entry["name"]).stat().st_size


def test_it_gives_the_same_bytes_for_the_same_catalogue(survey, tmp_path):
    cut_here(tmp_path / "one", "1.0.0")
    cut_here(tmp_path / "two", "1.0.0")
    first = sorted((tmp_path / "one" / "1.0.0").iterdir())
    second = sorted((tmp_path / "two" / "1.0.0").iterdir())
    assert [path.name for path in first] == [path.name for path in second]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def everything_released(folder: Path) -> bytes:
    """Every byte of a release, the zip's entries unpacked and the SQLite file dumped as text."""
    found = b""
    for path in sorted(folder.iterdir()):
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                found += b"".join(archive.read(name) for name in archive.namelist())
        elif path.suffix == ".sqlite":
            found += "\n".join(sqlite3.connect(path).iterdump()).encode("utf-8")
        else:
            found += path.read_bytes()
    return found


def test_it_never_releases_accounts_sessions_or_demo_runs(client, django_user_model, releases_dir):
    make_work("public2020work", title="A Public Work")
    django_user_model.objects.create_user(
        "secretcurator", email="secret-mail@example.org", password="a-long-test-password"
    )
    client.login(username="secretcurator", password="a-long-test-password")
    DemoRun.objects.create(
        slug="pipeline",
        version=1,
        params_digest="privatedigest",
        params={"secretparam": 1},
        client="203.0.113.77",
    )
    cut_here(releases_dir)
    released = everything_released(releases_dir / "1.0.0")
    assert b"public2020work" in released
    for private in (
        b"secretcurator",
        b"secret-mail",
        b"privatedigest",
        b"secretparam",
        b"203.0.113.77",
        b"pbkdf2",
        b"md5$",
        b"session",
    ):
        assert private not in released, private


def test_it_refuses_to_change_a_release_once_cut(db, releases_dir):
    make_work()
    cut_here(releases_dir)
    before = (releases_dir / "1.0.0" / "SHA256SUMS").read_bytes()
    with pytest.raises(ReleaseError, match="exists"):
        cut_here(releases_dir, "1.0.0")
    with pytest.raises(ReleaseError, match="not after the latest"):
        cut_here(releases_dir, "0.9.0")
    with pytest.raises(ReleaseError, match="MAJOR.MINOR.PATCH"):
        cut_here(releases_dir, "../1.2")
    with pytest.raises(CommandError, match="exists"):
        call_command("release", "1.0.0", "--date", "2026-12-08")
    assert (releases_dir / "1.0.0" / "SHA256SUMS").read_bytes() == before


def test_it_names_exactly_a_curators_edit_in_the_next_changelog(survey, releases_dir):
    cut_here(releases_dir)
    work = Work.objects.get(key="dean2012large")
    old_title = work.title
    work.title = "Large Scale Distributed Deep Networks (edited)"
    work.save()
    call_command("release", "--date", "2026-12-08", stdout=io.StringIO())
    log = json.loads((releases_dir / "1.1.0" / "changelog.json").read_text())
    counts = log.pop("counts")
    assert all(count["before"] == count["after"] for count in counts.values())
    nothing = {"added": [], "removed": [], "changed": []}
    assert log == {
        "previous": "1.0.0",
        "first_release": False,
        "works": {
            "added": [],
            "removed": [],
            "changed": [
                {
                    "key": "dean2012large",
                    "fields": {
                        "title": {
                            "before": old_title,
                            "after": "Large Scale Distributed Deep Networks (edited)",
                        }
                    },
                }
            ],
        },
        "citations": nothing,
        "results": nothing,
        "mlperf_scores": nothing,
    }
    manifest = json.loads((releases_dir / "1.1.0" / "manifest.json").read_text())
    assert (manifest["version"], manifest["date"], manifest["previous"]) == (
        "1.1.0",
        "2026-12-08",
        "1.0.0",
    )


def test_it_names_added_and_removed_edges_and_scores(mlperf, releases_dir):
    from catalogue.models import Citation, MlperfScore

    cut_here(releases_dir)
    edge = Citation.objects.order_by("pk").first()
    edge_key = f"{edge.citing.key} -> {edge.cited.key} ({edge.provenance})"
    edge.delete()
    score = MlperfScore.objects.select_related("system__round", "benchmark").order_by("pk")[0]
    score.minutes = 1.5
    score.save()
    log = cut_here(releases_dir) and json.loads(
        (releases_dir / "1.1.0" / "changelog.json").read_text()
    )
    assert log["citations"] == {"added": [], "removed": [edge_key], "changed": []}
    system = score.system
    score_key = (
        f"{system.round.version} {system.submitter} {system.system_id} {score.benchmark.slug}"
    )
    [change] = log["mlperf_scores"]["changed"]
    assert change["key"] == score_key and change["fields"]["minutes"]["after"] == 1.5
    assert log["works"] == {"added": [], "removed": [], "changed": []}


def test_it_releases_every_catalogue_table_but_the_private_and_derived_ones():
    from django.apps import apps

    from catalogue.release.tables import NOT_RELEASED, released_models

    tables = {model._meta.db_table for _, model in released_models()}
    catalogue = {
        model._meta.db_table
        for model in apps.get_app_config("catalogue").get_models(include_auto_created=True)
    }
    assert NOT_RELEASED <= catalogue  # no stale name
    assert tables == catalogue - NOT_RELEASED
    assert sorted(name for name, _ in released_models()) == DATABASE_TABLES
