"""/data/: the releases with their downloads, changelogs and citations; the files themselves."""

from __future__ import annotations

import json

from django.http import FileResponse, Http404, HttpResponseBadRequest
from django.shortcuts import render

from catalogue.release import shelf
from explorer.web.forms import NoParameters
from explorer.web.words import echoed

from .documents import HEADLINE_COUNTS, data_document

MEDIA_TYPES = {
    ".sqlite": "application/vnd.sqlite3",
    ".zip": "application/zip",
    ".bib": "application/x-bibtex; charset=utf-8",
    ".json": "application/json",
}


def refused(request) -> HttpResponseBadRequest | None:
    errors = NoParameters(request.GET).parameter_errors()
    if not errors:
        return None
    message = "; ".join(f"{echoed(name)}: {' '.join(m)}" for name, m in errors.items())
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


def data_page(request):
    if (response := refused(request)) is not None:
        return response
    document = data_document(request)
    releases = [
        {
            "release": release,
            "headline": [(name, release["counts"].get(name, 0)) for name in HEADLINE_COUNTS],
            "changelog_url": next(
                (f["url"] for f in release["files"] if f["kind"] == "changelog"), ""
            ),
            "csl_text": json.dumps(release["citation"]["csl_json"], indent=2, ensure_ascii=False),
        }
        for release in document["releases"]
    ]
    context = {"document": document, "releases": releases}
    return render(request, "releases/data.html", context)


def download(request, version: str, name: str):
    """A file of a release, only one its manifest names (nothing else under the folder)."""
    if (response := refused(request)) is not None:
        return response
    path = shelf.file_path(version, name)
    if path is None:
        raise Http404("No such release file.")
    media_type = MEDIA_TYPES.get(path.suffix, "text/plain; charset=utf-8")
    response = FileResponse(path.open("rb"), as_attachment=True, filename=name)
    response["Content-Type"] = media_type
    response["Cache-Control"] = "public, max-age=31536000, immutable"  # never changes once cut
    return response
