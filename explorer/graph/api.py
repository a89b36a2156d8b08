"""The JSON twins of the graph pages: the citation graph in four formats, the snowballing
replay, a work's co-citation and coupling neighbours, and the data-quality figures.

Anonymous read only. Query parameters are those of the pages (shared forms in
explorer/graph/query.py); unknown parameters and values are refused with 400 and a message.

`?format=` is this API's own parameter here (json|graphml|gexf|csv), not DRF's renderer switch:
`QueryFormatIgnored` keeps DRF from reading it, and the view writes each format itself.
"""

from __future__ import annotations

import csv
import io

import networkx as nx
from django import forms
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue import graph as citation_graph
from catalogue.graph_store import catalogue_graph
from catalogue.models import Citation, Work, fidelity_report
from catalogue.version import per_version
from explorer.graph.documents import (
    CAVEAT,
    GraphSelection,
    Taxonomy,
    ego_message,
    in_catalogue,
    node_payload,
    quality_report,
    run_snowball,
    seeds_message,
    select_graph,
    snowball_document,
    title_text,
)
from explorer.graph.query import GraphForm, SnowballForm, parse_query, with_facets
from explorer.web.errors import ApiError
from explorer.web.forms import QueryForm, echoed
from explorer.web.middleware import cached_for_anonymous
from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
from explorer.web.schema import document

GRAPH_FORMATS = {
    "json": "application/json",
    "graphml": "application/graphml+xml; charset=utf-8",
    "gexf": "application/gexf+xml; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
}
MAX_TOP = 50
CSV_COLUMNS = ["citing", "cited", "provenance", "evidence_source", "evidence_excerpt"]


# The JSON answers' shapes (explorer/web/schema.py's `document`).
GRAPH = document(
    "CitationGraph",  # networkx node-link data
    {"directed": "bool", "multigraph": "bool", "graph": "obj", "nodes": "list", "edges": "list"},
)
SNOWBALL = document(
    "Snowball",
    {
        "seeds": "list",
        "direction": "str",
        "rounds_requested": "int",
        "keywords": "list",
        "inclusion_filter": "obj",
        "provenance": "list?",
        "catalogue_works": "int",
        "collected": "int",
        "coverage": "num",
        "saturated_at_round": "int?",
        "rounds": "list",
        "caveat": "str",
        "method_caveat": "str",
    },
)
RELATED = document(
    "RelatedWorks",
    {
        "key": "str",
        "cites": "int",
        "cited_by": "int",
        "co_citation": "list",
        "coupling": "list",
        "caveat": "str",
    },
)
DATA_QUALITY = document(
    "DataQuality",
    {
        "coverage": "obj",
        "works_without_edges": "list",
        "component_sizes": "list",
        "after_survey": "obj",
        "caveat": "str",
        "cost_model_statuses": "list",
        "category_statuses": "list",
        "identities": "obj",
        "identifiers": "obj",
        "evidence": "obj",
    },
)


class QueryFormatIgnored(DefaultContentNegotiation):
    """Always JSON for DRF's own responses (errors included); `?format=` belongs to the view."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


@cached_for_anonymous
class ReadOnlyGraphView(DeclaredQuery, APIView):
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = QueryFormatIgnored
    http_method_names = ["get", "head", "options"]


def check_json_format(request) -> None:
    fmt = request.query_params.get("format") or "json"
    if fmt != "json":
        raise ApiError({"format": [f"this endpoint answers in json only, not {echoed(fmt)}"]})


# --- /api/graph/ -------------------------------------------------------------------------------


GRAPH_OTHER_FORMATS = [media for fmt, media in GRAPH_FORMATS.items() if fmt != "json"]


class CitationGraphView(ReadOnlyGraphView):
    query_form = with_facets(GraphForm, GRAPH_FORMATS)

    @extend_schema(
        summary="The citation graph (citing -> cited) of the current filter",
        description=(
            "Nodes are works, edges citations, one per piece of evidence, each with its "
            "provenance, evidence source and excerpt. JSON is networkx node-link data. " + CAVEAT
        ),
        responses={
            (200, "application/json"): GRAPH,
            **{(200, media.split(";")[0]): OpenApiTypes.STR for media in GRAPH_OTHER_FORMATS},
        },
    )
    def get(self, request):
        """Queries: categories; graph version (+ works, citations when cold); evidence rows."""
        fmt = request.query_params.get("format") or "json"
        if fmt not in GRAPH_FORMATS:
            message = f"format must be one of {', '.join(GRAPH_FORMATS)}, not {echoed(fmt)}"
            raise ApiError({"format": [message]})
        taxonomy = Taxonomy.load()
        query = parse_query(GraphForm, request.query_params)
        if query.errors:
            raise ApiError(query.errors)
        catalogue = catalogue_graph()
        try:
            selection = select_graph(query, catalogue, taxonomy)
        except citation_graph.UnknownWorks as error:
            message = ego_message(error, catalogue)
            if not in_catalogue(error, catalogue):  # names no work: as ?citing= on citations
                raise NotFound(message) from error
            raise ApiError({"ego": [message]}) from error

        def document() -> dict | str:
            graph = export_graph(selection, query.provenances())
            if fmt == "json":
                return nx.node_link_data(graph, edges="edges")
            if fmt == "csv":
                return edges_csv(graph)
            flat = flat_graph(graph)
            lines = nx.generate_graphml(flat) if fmt == "graphml" else nx.generate_gexf(flat)
            return "\n".join(lines) + "\n"

        # The whole graph (no filter): the same document until the catalogue changes.
        filtered = set(request.query_params) - {"format"}
        body = document() if filtered else catalogue.memo(f"api-graph:{fmt}", document)
        if fmt == "json":
            return Response(body)
        response = HttpResponse(body, content_type=GRAPH_FORMATS[fmt])
        response["Content-Disposition"] = f'attachment; filename="citation-graph.{fmt}"'
        return response


def export_graph(selection: GraphSelection, provenances: frozenset[str] | None) -> nx.MultiDiGraph:
    """One edge per piece of evidence (keyed by provenance), nodes with their measures."""
    shown = selection.shown
    graph = nx.MultiDiGraph(
        caveat=CAVEAT,
        works=len(shown),
        works_matching=selection.total_matching,
        **{
            f"catalogue_{k}": v
            for k, v in selection.catalogue.coverage().as_dict().items()
            if not isinstance(v, dict)
        },
    )
    for key, attrs in shown.nodes(data=True):
        graph.add_node(key, **node_payload(selection, key, attrs))
    # Only the shown works' edges (at most GRAPH_MAX_SHOWN works), looked up by work id along
    # the foreign-key indexes: not every row of a large catalogue (at 100,000 works: 3.5 -> 0.3 s).
    ids = list(Work.objects.filter(key__in=list(shown)).values_list("pk", flat=True))
    rows = (
        Citation.objects.filter(citing_id__in=ids, cited_id__in=ids)
        .order_by("pk")
        .values_list(
            "citing__key", "cited__key", "provenance", "evidence_source", "evidence_excerpt"
        )
    )
    if provenances is not None:
        rows = rows.filter(provenance__in=provenances)
    for citing, cited, provenance, source, excerpt in rows:
        if shown.has_edge(citing, cited):
            graph.add_edge(
                citing,
                cited,
                key=provenance,
                provenance=provenance,
                evidence_source=source,
                evidence_excerpt=excerpt,
            )
    return graph


def flat_graph(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """GraphML and GEXF take strings and numbers only: lists joined, unknowns left out."""
    flat = nx.MultiDiGraph(**{k: v for k, v in graph.graph.items() if isinstance(v, str | int)})
    for key, attrs in graph.nodes(data=True):
        flat.add_node(
            key, **{name: scalar(value) for name, value in attrs.items() if value is not None}
        )
    for citing, cited, provenance, attrs in graph.edges(keys=True, data=True):
        flat.add_edge(citing, cited, key=provenance, id=f"{citing}>{cited}:{provenance}", **attrs)
    return flat


def scalar(value):
    return "; ".join(map(str, value)) if isinstance(value, list | tuple) else value


def edges_csv(graph: nx.MultiDiGraph) -> str:
    """The columns of fixtures/citations.csv, so that `import_citations` reads it back."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for citing, cited, attrs in graph.edges(data=True):
        writer.writerow([citing, cited, *(attrs[c] for c in CSV_COLUMNS[2:])])
    return buffer.getvalue()


# --- /api/snowball/ ----------------------------------------------------------------------------


class SnowballView(ReadOnlyGraphView):
    query_form = with_facets(SnowballForm)

    @extend_schema(
        summary="Replay citation snowballing on the catalogue's graph",
        description=(
            "Round 0: the seeds (default: the works flagged seminal) and the works whose title "
            "or abstract contains a keyword (whole words, case-insensitive). Each later round "
            "follows the citations of the works found in the round before: backward to the "
            "works they cite, forward to the works citing them, or both. The inclusion filter "
            "(level, category, years, q) turns candidates away. The survey node is left out. "
            + CAVEAT
        ),
        responses={(200, "application/json"): SNOWBALL},
    )
    def get(self, request):
        """Queries: categories; graph version (+ works, citations when cold)."""
        check_json_format(request)
        query = parse_query(SnowballForm, request.query_params)
        if query.errors:
            raise ApiError(query.errors)
        catalogue = catalogue_graph()
        view = catalogue.view(provenances=query.provenances(), era=query.era())
        try:
            result = run_snowball(query, view)
        except citation_graph.UnknownWorks as error:
            # A seed that names no work is a missing resource, as ?citing= on /api/citations/;
            # a work of another era is a query to correct.
            message = seeds_message(error, catalogue)
            if not in_catalogue(error, catalogue):
                raise NotFound(message) from error
            raise ApiError({"seeds": [message]}) from error
        return Response(snowball_document(result, view, query))


# --- /api/works/<key>/related/ -----------------------------------------------------------------


class RelatedForm(QueryForm):
    top = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_TOP,
        help_text=f"How many of each, 1 to {MAX_TOP} (10).",
        error_messages={
            name: f"must be a whole number from 1 to {MAX_TOP}"
            for name in ("invalid", "min_value", "max_value")
        },
    )


class RelatedWorksView(ReadOnlyGraphView):
    query_form = RelatedForm

    @extend_schema(
        summary="Co-citation and bibliographic-coupling neighbours of a work",
        description=(
            "co_citation: works cited together with this one by the same citing works. "
            "coupling: works citing some of the same works. Counts are over edges among "
            "references (the survey's own reference list is left out). " + CAVEAT
        ),
        responses={(200, "application/json"): RELATED},
    )
    def get(self, request, key: str):
        """Queries: graph version (+ works, citations when cold)."""
        check_json_format(request)
        top = RelatedForm(request.query_params).checked()["top"] or 10
        catalogue = catalogue_graph()
        view = catalogue.view()
        if key not in view:
            raise NotFound(f"No reference with key {key!r} in the catalogue.")

        def describe(neighbours: list[citation_graph.Neighbour]) -> list[dict]:
            return [
                {
                    "key": n.key,
                    "title": title_text(view.nodes[n.key].get("title", "")),
                    "year": view.nodes[n.key].get("year"),
                    "count": n.count,
                    "shared": list(n.shared),
                }
                for n in neighbours
            ]

        return Response(
            {
                "key": key,
                "cites": view.out_degree(key),
                "cited_by": view.in_degree(key),
                "co_citation": describe(citation_graph.co_cited_with(view, key, top)),
                "coupling": describe(citation_graph.coupled_with(view, key, top)),
                "caveat": CAVEAT,
            }
        )


# --- /api/data-quality/ ------------------------------------------------------------------------


class DataQualityView(ReadOnlyGraphView):
    @extend_schema(
        summary="Coverage of the citation data, provenance mix, works without edges",
        responses={(200, "application/json"): DATA_QUALITY},
    )
    def get(self, request):
        """Queries: graph version (+ works, citations when cold), then the four of the statuses
        and identities (fidelity_report)."""
        check_json_format(request)
        return Response(per_version("data-quality-document", data_quality_document))


def data_quality_document() -> dict:
    """Kept per catalogue version: it takes no parameter (building it cost 30 ms a request)."""
    return quality_report(catalogue_graph()) | fidelity_report()
