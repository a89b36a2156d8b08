"""/data/, its JSON twin, the downloads, the X-Data-Version header, /api/ and the footer."""

import hashlib
import html
import json
from datetime import date

from catalogue.release.cut import cut
from catalogue.release.shelf import data_version
from tests.helpers import make_work

DAY = date(2026, 12, 7)


def cut_small(releases_dir) -> dict:
    make_work("smith2017deep", title="Deep Things")
    return cut(releases_dir, [], DAY)


def files_of(releases_dir, manifest) -> list[dict]:
    base = "http://testserver/data/1.0.0/"
    return [
        {
            "name": entry["name"],
            "kind": entry["kind"],
            "description": entry["description"],
            "bytes": (releases_dir / "1.0.0" / entry["name"]).stat().st_size,
            "sha256": hashlib.sha256(
                (releases_dir / "1.0.0" / entry["name"]).read_bytes()
            ).hexdigest(),
            "url": base + entry["name"],
        }
        for entry in manifest["files"]
    ]


def test_it_lists_the_releases_in_the_json_twin(client, db, releases_dir):
    manifest = cut_small(releases_dir)
    answer = client.get("/api/data/")
    assert answer["X-Data-Version"] == "1.0.0"
    document = answer.json()
    release = document["releases"][0]
    assert [entry["name"] for entry in release["files"]] == [
        "survey-explorer-1.0.0.sqlite",
        "survey-explorer-1.0.0-datapackage.zip",
        "survey-explorer-1.0.0.bib",
        "changelog.json",
    ]
    counts = manifest["counts"]
    assert {name: counts[name] for name in ("work", "author", "citation", "demo", "device")} == {
        "work": 1,
        "author": 1,
        "citation": 0,
        "demo": 0,
        "device": 34,  # the H800 added (issue 46)
    }
    licence = {
        "name": "CC-BY-4.0",
        "title": "Creative Commons Attribution 4.0",
        "path": "https://creativecommons.org/licenses/by/4.0/",
    }
    page = "http://testserver/data/#release-1.0.0"
    expected = {
        "data_version": "1.0.0",
        "latest": "1.0.0",
        "releases": [
            {
                "version": "1.0.0",
                "date": "2026-12-07",
                "previous": None,
                "license": licence,
                "counts": counts,
                "files": files_of(releases_dir, manifest),
                "manifest_url": "http://testserver/data/1.0.0/manifest.json",
                "checksums_url": "http://testserver/data/1.0.0/SHA256SUMS",
                "changelog": {
                    "previous": None,
                    "first_release": True,
                    "counts": {
                        name: {"before": 0, "after": count}
                        for name, count in sorted(manifest["counts"].items())
                    },
                },
                "citation": {
                    "bibtex": "@misc{survey_explorer_data_1_0_0,\n"
                    "  author = {{Survey Explorer contributors}},\n"
                    "  title = {Survey Explorer data: the catalogue of Demystifying Parallel "
                    "and Distributed Deep Learning, with the works after it},\n"
                    "  version = {1.0.0},\n"
                    "  year = {2026},\n"
                    "  month = {12},\n"
                    f"  url = {{{page}}},\n"
                    "  note = {Data release 1.0.0, 2026-12-07; licence CC-BY-4.0}\n"
                    "}\n",
                    "csl_json": {
                        "id": "survey_explorer_data_1_0_0",
                        "type": "dataset",
                        "author": [{"literal": "Survey Explorer contributors"}],
                        "title": "Survey Explorer data: the catalogue of Demystifying Parallel "
                        "and Distributed Deep Learning, with the works after it",
                        "version": "1.0.0",
                        "issued": {"date-parts": [[2026, 12, 7]]},
                        "URL": page,
                        "note": "licence CC-BY-4.0",
                    },
                },
            }
        ],
    }
    assert document == expected


def test_it_serves_every_file_of_a_release_with_its_checksum(client, db, releases_dir):
    manifest = cut_small(releases_dir)
    page = client.get("/data/").content.decode()
    for entry in manifest["files"]:
        assert entry["sha256"] in page
        assert f'href="http://testserver/data/1.0.0/{entry["name"]}"' in page
        response = client.get(f"/data/1.0.0/{entry['name']}")
        assert response.status_code == 200
        body = b"".join(response.streaming_content)
        assert hashlib.sha256(body).hexdigest() == entry["sha256"]
    sums = b"".join(client.get("/data/1.0.0/SHA256SUMS").streaming_content).decode()
    assert f"{manifest['files'][0]['sha256']}  survey-explorer-1.0.0.sqlite" in sums
    text = html.unescape(page)
    assert "@misc{survey_explorer_data_1_0_0," in text and '"type": "dataset"' in text


def test_it_serves_no_other_file(client, db, releases_dir):
    cut_small(releases_dir)
    (releases_dir / "1.0.0" / ".." / "private.txt").write_text("no")
    for path in (
        "/data/1.0.0/private.txt",
        "/data/1.0.0/..%2Fprivate.txt",
        "/data/2.0.0/manifest.json",
        "/data/..%2F1.0.0/manifest.json",
    ):
        assert client.get(path).status_code == 404, path
    assert client.get("/data/?page=2").status_code == 400
    assert client.get("/api/data/?page=2").json()["errors"] == {
        "page": ["unknown parameter 'page' (allowed: none)"]
    }


def test_it_names_the_data_version_on_every_api_answer(client, db, releases_dir):
    assert client.get("/api/works/")["X-Data-Version"] == "unreleased"
    cut_small(releases_dir)
    # Not yet compared with this catalogue generation: said so, never assumed.
    assert client.get("/api/works/")["X-Data-Version"] == "1.0.0+unchecked"
    assert client.get("/api/data/").json()["data_version"] == "1.0.0"
    for path in ("/api/works/", "/api/works/smith2017deep/", "/api/nothing/", "/api/"):
        assert client.get(path)["X-Data-Version"] == "1.0.0", path
    work = make_work("jones2021new", title="New")
    assert client.get("/api/works/")["X-Data-Version"] == "1.0.0+unchecked"
    assert client.get("/api/")["X-Data-Version"] == "1.0.0+edits"
    work.delete()
    assert client.get("/api/data/").json()["data_version"] == "1.0.0"
    assert "X-Data-Version" not in client.get("/works/")


def test_it_reads_no_query_for_the_header(db, releases_dir, django_assert_num_queries):
    cut_small(releases_dir)
    with django_assert_num_queries(0):
        data_version()


def test_it_links_the_current_release_at_the_api_root(client, db, releases_dir):
    cut_small(releases_dir)
    root = client.get("/api/").json()
    base = "http://testserver/data/1.0.0/"
    assert root["data_version"] == "1.0.0"
    assert root["release"] == {
        "version": "1.0.0",
        "date": "2026-12-07",
        "page": "http://testserver/data/",
        "files": {
            "sqlite": base + "survey-explorer-1.0.0.sqlite",
            "zip": base + "survey-explorer-1.0.0-datapackage.zip",
            "bib": base + "survey-explorer-1.0.0.bib",
            "changelog": base + "changelog.json",
        },
        "manifest": base + "manifest.json",
        "checksums": base + "SHA256SUMS",
    }


def test_it_shows_the_data_version_in_the_footer(client, db, releases_dir):
    cut_small(releases_dir)
    client.get("/api/data/")
    page = client.get("/devices/").content.decode()
    assert 'Data version <a href="/data/">1.0.0</a>.' in page


def test_it_says_when_no_release_was_cut(client, db, releases_dir):
    assert client.get("/api/data/").json() == {
        "data_version": "unreleased",
        "latest": None,
        "releases": [],
    }
    assert "No release has been cut yet" in client.get("/data/").content.decode()
    assert json.loads(client.get("/api/").content)["release"] is None


def test_it_compares_the_catalogue_once_per_generation_in_constant_queries(
    client, survey, releases_dir, django_assert_num_queries
):
    cut(releases_dir, [], DAY)
    # One query per released table (20) and the catalogue's version, whatever the row counts.
    with django_assert_num_queries(21):
        assert client.get("/api/data/").json()["data_version"] == "1.0.0"
    with django_assert_num_queries(1):
        assert client.get("/data/").status_code == 200
    with django_assert_num_queries(1):
        client.get("/api/data/")
