"""The releases as one document, for the page and its JSON twin: each release's date, counts,
files (with their checksums and download URLs), changelog and citations. Reads the releases'
manifests (catalogue/release/shelf.py: files read once) and compares the live catalogue with the
latest release once per catalogue generation."""

from __future__ import annotations

import json

from django.http import HttpRequest

from catalogue.release import shelf
from explorer.web.links import link

# What a release's counts show first: what a reader counts the catalogue by.
HEADLINE_COUNTS = ("work", "citation", "assignment", "result", "mlperf_run", "mlperf_score")


def changelog_of(version: str) -> dict:
    path = shelf.file_path(version, "changelog.json")
    return json.loads(path.read_text(encoding="utf-8")) if path else {}


def release_document(request: HttpRequest, manifest: dict) -> dict:
    version = manifest["version"]

    def url(name: str) -> str:
        return request.build_absolute_uri(link("releases:download", version, name))

    page = request.build_absolute_uri(link("releases:data")) + f"#release-{version}"
    return {
        "version": version,
        "date": manifest["date"],
        "previous": manifest["previous"],
        "license": manifest["license"],
        "counts": manifest["counts"],
        "files": [entry | {"url": url(entry["name"])} for entry in manifest["files"]],
        "manifest_url": url(shelf.MANIFEST),
        "checksums_url": url(shelf.CHECKSUMS),
        "changelog": changelog_of(version),
        "citation": {
            "bibtex": shelf.bibtex_citation(manifest, page),
            "csl_json": shelf.csl_citation(manifest, page),
        },
    }


def data_document(request: HttpRequest) -> dict:
    manifests = shelf.releases()
    return {
        "data_version": shelf.data_version(check=True),
        "latest": manifests[0]["version"] if manifests else None,
        "releases": [release_document(request, manifest) for manifest in manifests],
    }
