"""The citation graph, the snowballing replay and the data-quality page.

Thin: the query is read by the forms in query.py and the data built by documents.py, both shared
with the JSON twins in api.py; here are the HTML pages and the snowball's file exports.
"""

from __future__ import annotations

import csv
import io
import json

from django.http import HttpResponse, QueryDict
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import urlencode

from catalogue import bibtex
from catalogue import graph as citation_graph
from catalogue.graph import Snowball
from catalogue.graph_store import CatalogueGraph, catalogue_graph
from catalogue.models import Provenance, Work, fidelity_report
from catalogue.version import per_version
from explorer.graph.documents import (
    CAVEAT,
    COLLECTION_CAVEAT,
    GraphSelection,
    Taxonomy,
    ego_message,
    graph_page_data,
    quality_report,
    run_snowball,
    seeds_message,
    select_graph,
    snowball_document,
    title_text,
    top_works,
)
from explorer.graph.query import (
    ERA_CHOICES,
    PROVENANCE_FIELD_CHOICES,
    GraphForm,
    Query,
    SnowballPageForm,
    parse_query,
)
from explorer.web.errors import named_messages
from explorer.web.forms import NoParameters
from explorer.web.middleware import cached_for_anonymous
from explorer.web.script_json import script_json


def bad_request(request, errors: dict[str, list[str]], back: str):
    context = {"messages": named_messages(errors), "back": back, "caveat": CAVEAT}
    return render(request, "graph/graph_bad_request.html", context, status=400)


def coverage_context(catalogue: CatalogueGraph) -> dict:
    figures = catalogue.coverage()
    return {
        "coverage": figures,
        "linked_share": round(100 * figures.references_with_edges / (figures.references or 1)),
        "unlinked": figures.references - figures.references_with_edges,
        "provenance_rows": [
            (Provenance(p).label if p in Provenance.values else p, p, n)
            for p, n in figures.provenances.items()
        ],
        "caveat": CAVEAT,
    }


def facet_context(query: Query, taxonomy: Taxonomy) -> dict:
    """What the facet controls show: choices, and the values of this request."""
    return {
        "facets": query.facet_values(),
        "level_choices": [(c, taxonomy.label(c)) for c in taxonomy.levels],
        "category_choices": [
            (code, "\u2003" * depth + taxonomy.label(code))
            for code, depth in taxonomy.in_tree_order()
        ],
        "provenance_choices": PROVENANCE_FIELD_CHOICES,
        "chosen_provenances": query.data.get("provenance") or [],
    }


def drawing_context(selection: GraphSelection, data: dict) -> dict:
    """What the page shows of the selected graph: the drawing's data (as the JSON of its script
    element), the number of edges and the most cited works. Each walks the whole selection
    through filtered views (milliseconds)."""
    plot = graph_page_data(selection, data["size"], data.get("ego") or "")
    return {
        "plot_json": script_json(plot),
        "shown_edges": selection.shown.number_of_edges(),
        "top_works": top_works(selection),
    }


def with_query(path: str, params: list[tuple[str, str]]) -> str:
    return f"{path}?{urlencode(params)}" if params else path


def urlencode_without(data: QueryDict, *names: str) -> list[tuple[str, str]]:
    return [(k, v) for k, values in data.lists() if k not in names for v in values]


@cached_for_anonymous
def graph_page(request):
    """Queries: categories; the graph version (+ works and citations when the cache is cold);
    the works facets (one query) when any is set."""
    taxonomy = Taxonomy.load()
    query = parse_query(GraphForm, request.GET)
    if query.errors:
        return bad_request(request, query.errors, reverse("graph:graph"))
    catalogue = catalogue_graph()
    try:
        selection = select_graph(query, catalogue, taxonomy)
    except citation_graph.UnknownWorks as error:
        errors = {"ego": [ego_message(error, catalogue)]}
        return bad_request(request, errors, reverse("graph:graph"))
    data = query.data
    ego_key = data.get("ego")
    drawing = lambda: drawing_context(selection, data)  # noqa: E731
    context = {
        **coverage_context(catalogue),
        **facet_context(query, taxonomy),
        "data": data,
        # The page as first opened: its drawing kept with the graph's version.
        **(drawing() if request.GET else catalogue.memo("page-drawing", drawing)),
        "selection": selection,
        "shown_count": len(selection.shown),
        "ego_title": title_text(selection.shown.nodes[ego_key]["title"]) if ego_key else "",
        "without_ego": urlencode(urlencode_without(request.GET, "ego")),
        "export_links": export_links(request.GET),
        "api_link": with_query(reverse("graph:api-graph"), urlencode_without(request.GET, "size")),
        **era_context(query, request.GET, catalogue),
    }
    return render(request, "graph/graph.html", context)


FORWARD_EXAMPLE_SEED = "dean2012large"  # cited by two works after the survey (their notes)


def era_context(query: Query, data: QueryDict, catalogue: CatalogueGraph) -> dict:
    """The era shown and the era switch's links (the other parameters kept, but for an ego or
    seeds outside the era a link leads to: that link shows the whole era)."""
    eras = dict(catalogue.graph.nodes(data="era", default=citation_graph.SURVEY_ERA))

    def outside(name: str, value: str, era: str) -> bool:
        keys = value.split(",") if name in ("ego", "seeds") else ()
        return era != citation_graph.ALL_ERAS and any(eras.get(k, era) != era for k in keys)

    def link(era: str) -> str:
        kept = [(k, v) for k, v in urlencode_without(data, "era") if not outside(k, v, era)]
        return urlencode([*kept, ("era", era)])

    return {
        "era": query.era(),
        "era_choices": ERA_CHOICES,
        "era_links": {era: link(era) for era, _ in ERA_CHOICES},
        "after_coverage": catalogue.after_coverage(),
    }


def export_links(data: QueryDict) -> list[tuple[str, str]]:
    params = urlencode_without(data, "size", "format")
    return [
        (label, f"{reverse('graph:api-graph')}?{urlencode([*params, ('format', fmt)])}")
        for fmt, label in (
            ("json", "JSON (node-link)"),
            ("graphml", "GraphML"),
            ("gexf", "GEXF"),
            ("csv", "CSV of edges"),
        )
    ]


@cached_for_anonymous
def snowball_page(request):
    """Queries: categories; the graph version (+ works and citations when the cache is cold);
    the works facets (one query) when any is set; the collected works for a BibTeX export."""
    taxonomy = Taxonomy.load()
    query = parse_query(SnowballPageForm, request.GET)
    if query.errors:
        return bad_request(request, query.errors, reverse("graph:snowball"))
    export = query.data["export"]
    catalogue = catalogue_graph()
    view = catalogue.view(provenances=query.provenances(), era=query.era())
    try:
        result = run_snowball(query, view)
    except citation_graph.UnknownWorks as error:
        errors = {"seeds": [seeds_message(error, catalogue)]}
        return bad_request(request, errors, reverse("graph:snowball"))
    document = snowball_document(result, view, query)
    if export:
        return snowball_export(export, result, document)
    params = urlencode_without(request.GET, "export")
    context = {
        **coverage_context(catalogue),
        **facet_context(query, taxonomy),
        "data": query.data,
        "document": document,
        "result": result,
        "growth": growth_data(result),
        "chosen_seeds": [
            (key, title_text(view.nodes[key]["title"])) for key in query.data["seeds"]
        ],
        "work_titles": {
            key: title_text(view.nodes[key]["title"]) for key in result.collected if key in view
        },
        "seminal": [
            (key, title_text(attrs["title"]), attrs["seminal_reason"])
            for key, attrs in sorted(view.nodes(data=True))
            if attrs.get("seminal")
        ],
        "keywords_text": ", ".join(query.data["keywords"]),
        "export_links": [
            (label, f"{reverse('graph:snowball')}?{urlencode([*params, ('export', fmt)])}")
            for fmt, label in (
                ("bibtex", "BibTeX of the collected works"),
                ("csv", "CSV of the collected works"),
                ("json", "JSON of the replay"),
            )
        ],
        "api_link": with_query(reverse("graph:api-snowball"), params),
        "method_caveat": COLLECTION_CAVEAT,
        "no_abstracts": not any(abstract for _, abstract in view.nodes(data="abstract")),
        **era_context(query, request.GET, catalogue),
        # A survey reference cited by later works, for the "forward into later works" example.
        "forward_seed": FORWARD_EXAMPLE_SEED,
    }
    return render(request, "graph/snowball.html", context)


def growth_data(result: Snowball) -> dict:
    return {
        "rounds": [r.number for r in result.rounds],
        "new": [len(r.new) for r in result.rounds],
        "collected": [r.collected for r in result.rounds],
        "coverage": [round(100 * r.coverage, 2) for r in result.rounds],
        "total": result.total,
    }


def snowball_export(export: str, result: Snowball, document: dict) -> HttpResponse:
    if export == "json":
        body = json.dumps(document, indent=2, ensure_ascii=False)
        return attach(HttpResponse(body, content_type="application/json"), "snowball-replay.json")
    if export == "bibtex":
        works = (
            Work.objects.for_list().filter(key__in=result.collected).order_by("survey_ref", "key")
        )
        body = bibtex.export_works(works)
        response = HttpResponse(body, content_type="application/x-bibtex; charset=utf-8")
        return attach(response, "snowball-collected.bib")
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["key", "title", "year", "round", "reached_via"])
    for r in document["rounds"]:
        for work in r["works"]:
            row = [work["key"], work["title"], work["year"] or "", r["round"], describe(work)]
            writer.writerow(row)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    return attach(response, "snowball-collected.csv")


def describe(work: dict) -> str:
    """reached_via in words: 'seed', 'keyword allreduce', 'cited by k', 'citing k'."""
    words = {
        "seed": "seed",
        "keyword": "keyword {keyword}",
        "cited": "cited by {work}",
        "citing": "citing {work}",
    }
    return "; ".join(words[step["kind"]].format(**step) for step in work["reached_via"])


def attach(response: HttpResponse, filename: str) -> HttpResponse:
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@cached_for_anonymous
def data_quality(request):
    """Queries: the catalogue version (+ the report's when the version is new)."""
    if errors := NoParameters(request.GET).parameter_errors():
        return bad_request(request, errors, reverse("graph:data-quality"))
    body = per_version("data-quality-page", data_quality_body)
    return render(request, "graph/data_quality.html", {"body": body})


def data_quality_body() -> str:
    """The page takes no parameter: its content is HTML kept per catalogue version (building
    the report and rendering its 2,000 template nodes on every request cost 30 ms)."""
    catalogue = catalogue_graph()
    context = {
        **coverage_context(catalogue),
        "report": quality_report(catalogue),
        "fidelity": fidelity_report(),
    }
    return render_to_string("graph/_data_quality_body.html", context)
