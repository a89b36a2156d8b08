"""The releases already cut: their manifests (read once per change of the releases folder), the
files a reader may download, a citation per version, and the data version every answer names.

The data version is the latest release's, with "+edits" when the live catalogue differs from it
and "+unchecked" while this catalogue generation has not been compared yet. Comparing reads every
public table (a digest of the catalogue's rows), so it is done by the /data/ pages, /api/ and the
release command, once per catalogue generation (catalogue/version.py), and kept in the cache:
every other answer only reads two cache entries, never the database.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.conf import settings

VERSION = re.compile(r"^(\d{1,4})\.(\d{1,4})\.(\d{1,4})$")
MANIFEST = "manifest.json"
CHECKSUMS = "SHA256SUMS"
STATUS_SECONDS = 24 * 60 * 60
AUTHOR = "Survey Explorer contributors"

_SHELF: dict[str, tuple[int, list[dict]]] = {}


def releases_dir() -> Path:
    return Path(settings.RELEASES_DIR)


def version_key(version: str) -> tuple[int, ...]:
    match = VERSION.match(version)
    if not match:
        raise ValueError(f"a release version is MAJOR.MINOR.PATCH, digits only (got {version!r})")
    return tuple(int(part) for part in match.groups())


def _read_manifests(root: Path) -> list[dict]:
    manifests = []
    for folder in root.iterdir() if root.is_dir() else ():
        if VERSION.match(folder.name) and (folder / MANIFEST).is_file():
            manifests.append(json.loads((folder / MANIFEST).read_text(encoding="utf-8")))
    return sorted(manifests, key=lambda m: version_key(m["version"]), reverse=True)


def releases(root: Path | None = None) -> list[dict]:
    """Every release's manifest, newest first. A release never changes once cut, and a new one
    is a new folder (the folder's mtime changes): one stat per call, the files read once."""
    root = root or releases_dir()
    stamp = root.stat().st_mtime_ns if root.is_dir() else 0
    kept = _SHELF.get(str(root))
    if kept is None or kept[0] != stamp:
        kept = (stamp, _read_manifests(root))
        _SHELF[str(root)] = kept
    return kept[1]


def latest(root: Path | None = None) -> dict | None:
    found = releases(root)
    return found[0] if found else None


def find(version: str, root: Path | None = None) -> dict | None:
    return next((m for m in releases(root) if m["version"] == version), None)


def next_version(root: Path | None = None) -> str:
    """1.0.0 first, then the next minor version."""
    newest = latest(root)
    if newest is None:
        return "1.0.0"
    major, minor, _ = version_key(newest["version"])
    return f"{major}.{minor + 1}.0"


def downloadable(manifest: dict) -> list[str]:
    """The names a reader may download from a release: its files, the manifest, the checksums."""
    return [entry["name"] for entry in manifest["files"]] + [MANIFEST, CHECKSUMS]


def file_path(version: str, name: str, root: Path | None = None) -> Path | None:
    """The file of a release, only if its manifest names it (no other path is ever served)."""
    root = root or releases_dir()
    manifest = find(version, root)
    if manifest is None or name not in downloadable(manifest):
        return None
    path = root / version / name
    return path if path.is_file() else None


def citation_key(version: str) -> str:
    return "survey_explorer_data_" + version.replace(".", "_")


def bibtex_citation(manifest: dict, url: str) -> str:
    year, month, _ = manifest["date"].split("-")
    version = manifest["version"]
    return (
        f"@misc{{{citation_key(version)},\n"
        f"  author = {{{{{AUTHOR}}}}},\n"
        f"  title = {{Survey Explorer data: the catalogue of Demystifying Parallel and "
        f"Distributed Deep Learning, with the works after it}},\n"
        f"  version = {{{version}}},\n"
        f"  year = {{{int(year)}}},\n"
        f"  month = {{{int(month)}}},\n"
        f"  url = {{{url}}},\n"
        f"  note = {{Data release {version}, {manifest['date']}; licence "
        f"{manifest['license']['name']}}}\n"
        "}\n"
    )


def csl_citation(manifest: dict, url: str) -> dict:
    year, month, day = (int(part) for part in manifest["date"].split("-"))
    return {
        "id": citation_key(manifest["version"]),
        "type": "dataset",
        "author": [{"literal": AUTHOR}],
        "title": "Survey Explorer data: the catalogue of Demystifying Parallel and Distributed "
        "Deep Learning, with the works after it",
        "version": manifest["version"],
        "issued": {"date-parts": [[year, month, day]]},
        "URL": url,
        "note": f"licence {manifest['license']['name']}",
    }


def _status_key(generation: str, version: str) -> str:
    return f"data-status:{generation}:{version}"


def known_edits(version: str) -> bool | None:
    """Whether the live catalogue differs from release `version`, if this catalogue generation
    was compared; None if not (two cache reads, no query)."""
    from django.core.cache import cache

    from catalogue.version import GENERATION_KEY

    generation = cache.get(GENERATION_KEY)
    if generation is None:
        return None
    return cache.get(_status_key(generation, version))


def checked_edits(manifest: dict) -> bool:
    """Compare the live catalogue with the release (once per catalogue generation)."""
    from django.core.cache import cache

    from catalogue.release.cut import catalogue_digest
    from catalogue.version import GENERATION_KEY, catalogue_version

    catalogue_version()  # makes sure a generation exists
    generation = cache.get(GENERATION_KEY)
    known = None if generation is None else cache.get(_status_key(generation, manifest["version"]))
    if known is None:
        known = catalogue_digest() != manifest["catalogue_digest"]
        if generation is not None:
            cache.set(_status_key(generation, manifest["version"]), known, STATUS_SECONDS)
    return known


def version_label(version: str | None, edits: bool | None) -> str:
    if version is None:
        return "unreleased"
    return version + {None: "+unchecked", True: "+edits", False: ""}[edits]


def data_version(check: bool = False) -> str:
    """The data version an answer is served from (see the module's docstring)."""
    manifest = latest()
    if manifest is None:
        return version_label(None, None)
    edits = checked_edits(manifest) if check else known_edits(manifest["version"])
    return version_label(manifest["version"], edits)
