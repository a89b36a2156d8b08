"""The citation graph, the snowballing replay and the data-quality page.

The query-parameter forms here are shared with the JSON twins in `explorer/graph/api.py`: a page
and its twin take the same parameters and refuse the same bad values (400, with a message).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx
from django import forms
from django.http import HttpResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode

from catalogue import bibtex
from catalogue import graph as citation_graph
from catalogue.graph import CatalogueGraph, Snowball
from catalogue.models import Category, Provenance, Work
from explorer.palette import NO_LEVEL_COLOUR, level_colours
from explorer.works.filters import WorkFilter

CAVEAT = (
    'Citation coverage is partial: a missing edge does not mean "does not cite". '
    "Edges come only from evidence (a citing paper's bibliography, a reference-list note, a "
    "citation index record or a curator); none are guessed."
)
COLLECTION_CAVEAT = (
    "How the survey collected its literature is not documented beyond one secondary source's "
    'remark that it "tracks back recursively" (to 1984); its seed papers, keywords and inclusion '
    "criteria are unknown. This replay runs the method on the catalogue's own, partial graph."
)
# BibTeX text that only protective braces keep from being plain (most titles).
PLAIN_BIBTEX = re.compile(r"[\w\s{}:;,.?!()/+'-]*")
MAX_SHOWN = 450  # networkx's spring layout without scipy: a dense solver, below 500 nodes


def title_text(value: str) -> str:
    """`bibtex.display_text`, without its LaTeX parser for text that only has braces: the
    parser costs milliseconds a title, and a graph page shows hundreds."""
    if PLAIN_BIBTEX.fullmatch(value) and "--" not in value:
        return " ".join(value.replace("{", "").replace("}", "").split())
    return bibtex.display_text(value)


# --- The taxonomy, from one query --------------------------------------------------------------


@dataclass
class Taxonomy:
    names: dict[str, str]
    parent: dict[str, str | None]
    order: list[str]
    sections: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls) -> Taxonomy:
        rows = Category.objects.order_by("order", "code").values_list(
            "code", "name", "parent__code", "section"
        )
        return cls(
            names={code: name for code, name, _, _ in rows},
            parent={code: parent for code, _, parent, _ in rows},
            order=[code for code, _, _, _ in rows],
            sections={code: section for code, _, _, section in rows},
        )

    def label(self, code: str) -> str:
        """ "§6.3 Pipelining": the name with its section number, as the paper numbers it."""
        section = self.sections.get(code)
        return f"§{section} {self.names[code]}" if section else self.names[code]

    def in_tree_order(self) -> list[tuple[str, int]]:
        """(code, depth), each parent followed by its children: a table of contents."""
        children: dict[str | None, list[str]] = {}
        for code in self.order:
            children.setdefault(self.parent[code], []).append(code)
        ordered: list[tuple[str, int]] = []
        stack = [(code, 0) for code in reversed(children.get(None, []))]
        while stack:
            code, depth = stack.pop()
            ordered.append((code, depth))
            stack.extend((child, depth + 1) for child in reversed(children.get(code, [])))
        return ordered

    @property
    def levels(self) -> list[str]:
        return [code for code in self.order if self.parent[code] is None]

    def level_of(self, code: str) -> str:
        while self.parent.get(code):
            code = self.parent[code]
        return code

    def subtree(self, code: str) -> frozenset[str]:
        return frozenset(c for c in self.order if self._under(c, code))

    def _under(self, code: str, ancestor: str) -> bool:
        while code:
            if code == ancestor:
                return True
            code = self.parent.get(code)
        return False

    def colours(self) -> dict[str, str]:
        return level_colours(self.levels)


# --- Query parameters ---------------------------------------------------------------------------


class KeyListField(forms.Field):
    """Work keys, comma-separated and/or repeated (?seeds=a,b or ?seeds=a&seeds=b)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value) -> list[str]:
        values = value if isinstance(value, list | tuple) else [value or ""]
        items = (item.strip() for v in values for item in str(v).split(","))
        return list(dict.fromkeys(item for item in items if item))


def choice_error(name: str, values: Iterable[str]) -> dict[str, str]:
    return {"invalid_choice": f"{name} must be {' or '.join(values)}, not %(value)r"}


PROVENANCE_FIELD_CHOICES = [c for c in Provenance.choices if c[0] != Provenance.SURVEY]


class GraphForm(forms.Form):
    """The graph's own parameters; the works facets go to explorer.works.filters.WorkFilter."""

    provenance = forms.MultipleChoiceField(
        required=False,
        choices=PROVENANCE_FIELD_CHOICES,
        error_messages=choice_error("provenance", [c for c, _ in PROVENANCE_FIELD_CHOICES]),
    )
    survey = forms.TypedChoiceField(
        required=False,
        choices=[("0", "hidden"), ("1", "shown")],
        coerce=lambda v: v == "1",
        empty_value=False,
        error_messages=choice_error("survey", ["0", "1"]),
    )
    size = forms.ChoiceField(
        required=False,
        choices=[("indegree", "in-degree"), ("pagerank", "PageRank")],
        error_messages=choice_error("size", ["indegree", "pagerank"]),
    )
    ego = forms.CharField(required=False, max_length=100)
    depth = forms.TypedChoiceField(
        required=False,
        choices=[(str(d), str(d)) for d in range(1, citation_graph.MAX_EGO_DEPTH + 1)],
        coerce=int,
        empty_value=1,
        error_messages=choice_error("depth", ["1", "2", "3"]),
    )
    direction = forms.ChoiceField(
        required=False,
        choices=[(d, d) for d in citation_graph.DIRECTIONS],
        error_messages=choice_error("direction", citation_graph.DIRECTIONS),
    )

    def clean(self):
        cleaned = super().clean()
        cleaned["size"] = cleaned.get("size") or "indegree"
        cleaned["direction"] = cleaned.get("direction") or "both"
        return cleaned


class SnowballForm(forms.Form):
    """The replay's own parameters; the inclusion filter is the works facets."""

    seeds = KeyListField(required=False)
    direction = forms.ChoiceField(
        required=False,
        choices=[(d, d) for d in citation_graph.DIRECTIONS],
        error_messages=choice_error("direction", citation_graph.DIRECTIONS),
    )
    rounds = forms.TypedChoiceField(
        required=False,
        choices=[(str(n), str(n)) for n in range(1, citation_graph.MAX_ROUNDS + 1)],
        coerce=int,
        empty_value=2,
        error_messages={
            "invalid_choice": (
                f"rounds must be a whole number from 1 to {citation_graph.MAX_ROUNDS}, "
                "not %(value)r"
            )
        },
    )
    keywords = forms.CharField(required=False, max_length=500)
    provenance = GraphForm.base_fields["provenance"]

    def clean(self):
        cleaned = super().clean()
        cleaned["direction"] = cleaned.get("direction") or "backward"
        cleaned["keywords"] = citation_graph.clean_keywords(
            (cleaned.get("keywords") or "").split(",")
        )
        return cleaned


# The works facets, as the works list takes them (ordering means nothing on a graph).
FACETS = [name for name in WorkFilter.base_filters if name != "ordering"]


@dataclass
class Query:
    """A request's parameters: the page's own form, the works facets, and every problem."""

    form: forms.Form
    facets: WorkFilter | None
    errors: list[str]

    @property
    def data(self) -> dict:
        return self.form.cleaned_data

    def provenances(self) -> frozenset[str] | None:
        chosen = self.data.get("provenance")
        return frozenset(chosen) if chosen else None

    def matching_keys(self) -> set[str] | None:
        """Keys of the works the facets keep (one query), or None when no facet is set."""
        if self.facets is None:
            return None
        return set(self.facets.qs.values_list("key", flat=True))

    def facet_values(self) -> dict[str, str]:
        return (
            {name: self.facets.data.get(name) for name in self.facets.data} if self.facets else {}
        )


def parse_query(form_class, data: QueryDict, extra: Iterable[str] = ()) -> Query:
    own, facets = QueryDict(mutable=True), QueryDict(mutable=True)
    for name, values in data.lists():
        (facets if name in FACETS else own).setlist(name, values)
    errors = []
    unknown = sorted(set(own) - set(form_class.base_fields) - set(extra))
    if unknown:
        allowed = sorted({*form_class.base_fields, *FACETS, *extra})
        errors.append(
            f"unknown parameter(s): {', '.join(unknown)}; this page takes: {', '.join(allowed)}"
        )
    form = form_class(own)
    errors += form_messages(form)
    works_filter = WorkFilter(facets, queryset=Work.objects.all()) if facets else None
    if works_filter is not None and not works_filter.is_valid():
        errors += form_messages(works_filter.form)
    return Query(form, works_filter, errors)


def form_messages(form: forms.Form) -> list[str]:
    if form.is_valid():
        return []
    return [
        message if name == "__all__" else f"{name}: {message}"
        for name, messages in form.errors.items()
        for message in messages
    ]


def bad_request(request, messages: list[str], back: str):
    context = {"messages": messages, "back": back, "caveat": CAVEAT}
    return render(request, "graph/graph_bad_request.html", context, status=400)


# --- Shared by the pages and the API -----------------------------------------------------------


@dataclass
class GraphSelection:
    """The works and edges a graph page or export shows, with their measures."""

    catalogue: CatalogueGraph
    taxonomy: Taxonomy
    shown: nx.DiGraph
    total_matching: int
    in_degree: dict[str, int]
    out_degree: dict[str, int]
    pagerank: dict[str, float]

    @property
    def truncated(self) -> bool:
        return self.total_matching > len(self.shown)


def select_graph(query: Query, catalogue: CatalogueGraph, taxonomy: Taxonomy) -> GraphSelection:
    """The subgraph for a valid graph query; raises UnknownWorks for an unknown ego key."""
    data, provenances = query.data, query.provenances()
    view = catalogue.view(include_survey=data["survey"], provenances=provenances)
    # Measures count edges among references: the survey cites every work once.
    measured = catalogue.view(include_survey=False, provenances=provenances)
    ranks = catalogue.pagerank(include_survey=False, provenances=provenances)
    keep = query.matching_keys()
    nodes = list(view) if keep is None else [n for n in view if n in keep]
    if key := data.get("ego"):
        if key not in view:
            raise citation_graph.UnknownWorks([key])
        around = citation_graph.ego(view, key, data["depth"], data["direction"])
        nodes = [n for n in nodes if n in around and n != key] + [key]
    total = len(nodes)
    if total > MAX_SHOWN:
        nodes = sorted(nodes, key=lambda n: -ranks.get(n, 0.0))[:MAX_SHOWN]
    shown = view.subgraph(nodes)
    in_degree = {n: (measured.in_degree(n) if n in measured else 0) for n in shown}
    out_degree = {n: (measured.out_degree(n) if n in measured else 0) for n in shown}
    return GraphSelection(catalogue, taxonomy, shown, total, in_degree, out_degree, ranks)


def node_payload(selection: GraphSelection, key: str, attrs: dict) -> dict:
    taxonomy = selection.taxonomy
    codes = attrs.get("categories", ())
    levels = list(dict.fromkeys(taxonomy.level_of(c) for c in codes if c in taxonomy.parent))
    return {
        "key": key,
        "title": title_text(attrs.get("title", "")),
        "year": attrs.get("year"),
        "survey_ref": attrs.get("survey_ref"),
        "level": levels[0] if levels else "",
        "levels": levels,
        "categories": [taxonomy.names.get(c, c) for c in codes],
        "in_degree": selection.in_degree.get(key, 0),
        "out_degree": selection.out_degree.get(key, 0),
        "pagerank": round(selection.pagerank.get(key, 0.0), 4),
        "url": reverse("work-detail", args=[key]),
    }


LABELLED = 10  # nodes named on the drawing itself (the others on hover)
LABEL_POSITIONS = ["top center", "bottom center", "middle right", "middle left"]


def labelled(nodes: list[dict], size: str, centre: str) -> list[str]:
    """The keys of the nodes drawn with a label: the largest by the size measure (then the
    most cited), and the centre of an ego view."""
    measure = "pagerank" if size == "pagerank" else "in_degree"
    ranked = sorted(nodes, key=lambda n: (-n[measure], -n["in_degree"], n["key"]))
    keys = [n["key"] for n in ranked[:LABELLED] if n[measure] > 0]
    return [centre, *keys] if centre and centre not in keys else keys


def short_title(title: str, length: int = 28) -> str:
    """A title cut at a word boundary, for a label on the drawing."""
    title = title.split(":")[0] if 8 <= len(title.split(":")[0]) <= length else title
    if len(title) <= length:
        return title
    return title[:length].rsplit(" ", 1)[0].rstrip(",;-") + "…"


def graph_page_data(selection: GraphSelection, size: str, centre: str = "") -> dict:
    positions = selection.catalogue.layout(selection.shown)
    nodes = [
        {
            **node_payload(selection, key, attrs),
            "x": positions[key][0],
            "y": positions[key][1],
            "centre": key == centre,
        }
        for key, attrs in selection.shown.nodes(data=True)
    ]
    nodes_by_key = {node["key"]: node for node in nodes}
    for rank, key in enumerate(labelled(nodes, size, centre)):
        nodes_by_key[key]["label"] = short_title(nodes_by_key[key]["title"])
        # Around the marker in turn: the most cited works sit close together in the middle.
        nodes_by_key[key]["label_position"] = LABEL_POSITIONS[rank % len(LABEL_POSITIONS)]
    index = {node["key"]: i for i, node in enumerate(nodes)}
    edges = [
        [index[citing], index[cited], provs[0]]
        for citing, cited, provs in selection.shown.edges(data="provenances")
    ]
    colours = selection.taxonomy.colours()
    levels = [
        {"code": code, "name": selection.taxonomy.names[code], "colour": colours[code]}
        for code in selection.taxonomy.levels
    ]
    levels.append({"code": "", "name": "no category", "colour": NO_LEVEL_COLOUR})
    return {"nodes": nodes, "edges": edges, "levels": levels, "size": size}


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


def with_query(path: str, params: list[tuple[str, str]]) -> str:
    return f"{path}?{urlencode(params)}" if params else path


def urlencode_without(data: QueryDict, *names: str) -> list[tuple[str, str]]:
    return [(k, v) for k, values in data.lists() if k not in names for v in values]


# --- /graph/ -----------------------------------------------------------------------------------


def graph_page(request):
    """Queries: categories; the graph version (+ works and citations when the cache is cold);
    the works facets (one query) when any is set."""
    taxonomy = Taxonomy.load()
    query = parse_query(GraphForm, request.GET)
    if query.errors:
        return bad_request(request, query.errors, reverse("graph"))
    catalogue = citation_graph.catalogue_graph()
    try:
        selection = select_graph(query, catalogue, taxonomy)
    except citation_graph.UnknownWorks as error:
        return bad_request(request, [ego_message(error, catalogue)], reverse("graph"))
    data = query.data
    ego_key = data.get("ego")
    context = {
        **coverage_context(catalogue),
        **facet_context(query, taxonomy),
        "data": data,
        "plot": graph_page_data(selection, data["size"], data.get("ego") or ""),
        "selection": selection,
        "shown_count": len(selection.shown),
        "shown_edges": selection.shown.number_of_edges(),
        "top_works": top_works(selection),
        "ego_title": title_text(selection.shown.nodes[ego_key]["title"]) if ego_key else "",
        "without_ego": urlencode(urlencode_without(request.GET, "ego")),
        "export_links": export_links(request.GET),
        "api_link": with_query(reverse("api-graph"), urlencode_without(request.GET, "size")),
    }
    return render(request, "graph/graph.html", context)


def ego_message(error: citation_graph.UnknownWorks, catalogue: CatalogueGraph) -> str:
    [key] = error.keys
    if catalogue.graph.nodes.get(key, {}).get("survey"):
        return f"ego: {key!r} is the survey, hidden by default; add survey=1 to centre on it"
    return f"ego: no work with key {key!r}"


def export_links(data: QueryDict) -> list[tuple[str, str]]:
    params = urlencode_without(data, "size", "format")
    return [
        (label, f"{reverse('api-graph')}?{urlencode([*params, ('format', fmt)])}")
        for fmt, label in (
            ("json", "JSON (node-link)"),
            ("graphml", "GraphML"),
            ("gexf", "GEXF"),
            ("csv", "CSV of edges"),
        )
    ]


def top_works(selection: GraphSelection, limit: int = 15) -> list[dict]:
    ranked = sorted(selection.shown, key=lambda n: (-selection.in_degree.get(n, 0), n))[:limit]
    return [node_payload(selection, key, selection.shown.nodes[key]) for key in ranked]


# --- /snowball/ --------------------------------------------------------------------------------


def default_seeds(view: nx.DiGraph) -> list[str]:
    return sorted(node for node, seminal in view.nodes(data="seminal") if seminal)


def run_snowball(query: Query, view: nx.DiGraph) -> Snowball:
    """The replay for a valid snowball query; raises UnknownWorks naming unknown seeds."""
    data = query.data
    keep = query.matching_keys()
    return citation_graph.snowball(
        view,
        data["seeds"] or default_seeds(view),
        direction=data["direction"],
        rounds=data["rounds"],
        keywords=data["keywords"],
        include=keep.__contains__ if keep is not None else None,
    )


def snowball_document(result: Snowball, view: nx.DiGraph, query: Query) -> dict:
    """The replay as JSON: the API's answer and the page's export."""
    provenances = query.provenances()
    return {
        "seeds": result.seeds,
        "direction": result.direction,
        "rounds_requested": query.data["rounds"],
        "keywords": result.keywords,
        "inclusion_filter": query.facet_values(),
        "provenance": sorted(provenances) if provenances else None,
        "catalogue_works": result.total,
        "collected": len(result.collected),
        "coverage": round(result.rounds[-1].coverage, 4),
        "saturated_at_round": result.saturated_at,
        "rounds": [
            {
                "round": r.number,
                "new": len(r.new),
                "excluded": r.excluded,
                "collected": r.collected,
                "coverage": round(r.coverage, 4),
                "works": [
                    {
                        "key": key,
                        "title": title_text(view.nodes[key].get("title", "")),
                        "year": view.nodes[key].get("year"),
                        "reached_via": [step.as_dict() for step in steps],
                    }
                    for key, steps in r.new.items()
                ],
            }
            for r in result.rounds
        ],
        "caveat": CAVEAT,
        "method_caveat": COLLECTION_CAVEAT,
    }


def snowball_page(request):
    """Queries: categories; the graph version (+ works and citations when the cache is cold);
    the works facets (one query) when any is set; the collected works for a BibTeX export."""
    taxonomy = Taxonomy.load()
    query = parse_query(SnowballForm, request.GET, extra=["export"])
    export = request.GET.get("export", "")
    if export not in ("", "bibtex", "csv", "json"):
        query.errors.append(f"export must be bibtex, csv or json, not {export!r}")
    if query.errors:
        return bad_request(request, query.errors, reverse("snowball"))
    catalogue = citation_graph.catalogue_graph()
    view = catalogue.view(provenances=query.provenances())
    try:
        result = run_snowball(query, view)
    except citation_graph.UnknownWorks as error:
        message = f"seeds: unknown work key(s): {', '.join(error.keys)}"
        return bad_request(request, [message], reverse("snowball"))
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
            (label, f"{reverse('snowball')}?{urlencode([*params, ('export', fmt)])}")
            for fmt, label in (
                ("bibtex", "BibTeX of the collected works"),
                ("csv", "CSV of the collected works"),
                ("json", "JSON of the replay"),
            )
        ],
        "api_link": with_query(reverse("api-snowball"), params),
        "method_caveat": COLLECTION_CAVEAT,
        "no_abstracts": not any(abstract for _, abstract in view.nodes(data="abstract")),
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


# --- /data-quality/ ----------------------------------------------------------------------------


def quality_report(catalogue: CatalogueGraph) -> dict:
    graph = catalogue.graph
    view = catalogue.view()
    isolated = citation_graph.isolated_references(graph)
    isolated.sort(key=lambda k: (graph.nodes[k].get("survey_ref") or 0, k))
    return {
        "coverage": catalogue.coverage().as_dict(),
        "works_without_edges": [
            {
                "key": key,
                "title": title_text(graph.nodes[key].get("title", "")),
                "year": graph.nodes[key].get("year"),
                "survey_ref": graph.nodes[key].get("survey_ref"),
            }
            for key in isolated
        ],
        "component_sizes": [len(c) for c in citation_graph.components(view) if len(c) > 1],
        "caveat": CAVEAT,
    }


def data_quality(request):
    """Queries: the graph version (+ works and citations when the cache is cold)."""
    if request.GET:
        message = f"unknown parameter(s): {', '.join(sorted(request.GET))}; this page takes none"
        return bad_request(request, [message], reverse("data-quality"))
    catalogue = citation_graph.catalogue_graph()
    context = {**coverage_context(catalogue), "report": quality_report(catalogue)}
    return render(request, "graph/data_quality.html", context)
