"""/api/categories/<slug>/: a hub's JSON twin (the page takes no parameters, nor does this)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.version import per_version
from explorer.hubs.documents import hub_document
from explorer.hubs.hub import load_hub
from explorer.web.middleware import cached_for_anonymous
from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
from explorer.web.schema import document

HUB = document(
    "Hub",
    {
        "slug": "str",
        "name": "str",
        "section": "str",
        "status": "str",
        "extends": "str",
        "description": "str",
        "work_count": "int",
        "url": "str",
        "html_url": "str",
        "status_label": "str",
        "breadcrumbs": "list",
        "siblings": "list",
        "children": "list",
        "techniques": "list",
        "wd_points": "list",
        "cost_plots": "list",
        "demos": "list",
        "works": "obj",
        "citations": "obj",
        "results": "list",
        "mlperf": "list",
        "links": "obj",
    },
)


@cached_for_anonymous
class HubView(DeclaredQuery, APIView):  # no parameters
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]

    @extend_schema(
        summary="One taxonomy node's hub: its place in the tree, techniques, works, citations",
        description=(
            "What the hub page /categories/<slug>/ shows: breadcrumbs, siblings and children; "
            "the techniques filed under the node or below with their cost models (formula text, "
            "MathML and status); W-D points at the formulas' defaults; demos; the works in the "
            "survey and after it with their evidence (the first 60 of each, and the count); the "
            "node's neighbourhood in the citation graph; links to the other pages."
        ),
        responses={200: HUB},
    )
    def get(self, request, slug: str):
        # An unknown slug: Http404, answered in the error shape. The document depends on the node,
        # the catalogue and the site's address alone: kept per catalogue version and host.
        base = request.build_absolute_uri("/")
        document = per_version(
            f"hub-api:{slug}:{base}",
            lambda: hub_document(load_hub(slug), request.build_absolute_uri),
        )
        return Response(document)
