"""/api/data/: the releases of the catalogue (the JSON twin of /data/): each with its date,
counts, files (size, sha256, download URL), changelog and citations (BibTeX and CSL-JSON)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
from explorer.web.schema import document

from .documents import data_document

DATA = document("DataReleases", {"data_version": "str", "latest": "str?", "releases": "list"})


class DataView(DeclaredQuery, APIView):
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]

    @extend_schema(
        summary="The catalogue's versioned releases: files, checksums, changelogs, citations",
        description=(
            "Every release, newest first: its date, row counts per table, files (bytes, "
            "sha256, download URL: a SQLite file, a Frictionless Data Package, BibTeX), its "
            "changelog against the previous release and its citation (BibTeX, CSL-JSON). "
            "data_version is the latest release's, +edits when the live catalogue differs."
        ),
        responses={200: DATA, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        return Response(data_document(request))
