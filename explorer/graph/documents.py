"""The graph pages' data, built once and shown twice: a page renders these dictionaries, its JSON
twin (api.py) answers with them. Pure but for the taxonomy's one query and the cached graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import networkx as nx
from django.conf import settings

from catalogue import bibtex, tree
from catalogue import graph as citation_graph
from catalogue.graph import Snowball
from catalogue.graph_store import CatalogueGraph
from catalogue.models import Category, Work
from explorer.graph.query import ERA_CHOICES, Query
from explorer.web.palette import NO_LEVEL_COLOUR, level_colours

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
LABELLED = 15  # the best ranked nodes, named on the drawing where their label fits
LABEL_POSITIONS = ["top center", "bottom center", "middle right", "middle left"]
# A label's box as a share of the layout's width and height (about 170 x 16 px and a gap, of
# a drawing 1,000 x 720 px): two labels whose boxes meet are not drawn both, the lower ranked
# goes to the hover text (the dense centre's labels were drawn over one another).
LABEL_WIDTH, LABEL_HEIGHT = 0.17, 0.045
Box = tuple[float, float, float, float]  # left, bottom, right, top


def title_text(value: str) -> str:
    """`bibtex.display_text`, without its LaTeX parser for text that only has braces: the
    parser costs milliseconds a title, and a graph page shows hundreds."""
    if PLAIN_BIBTEX.fullmatch(value) and "--" not in value:
        return " ".join(value.replace("{", "").replace("}", "").split())
    return bibtex.display_text(value)


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
        return tree.root_of(self.parent, code)

    def colours(self) -> dict[str, str]:
        return level_colours(self.levels)


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
    era = query.era()
    view = catalogue.view(include_survey=data["survey"], provenances=provenances, era=era)
    # Measures count edges among references: the survey cites every work once.
    ranks = catalogue.pagerank(include_survey=False, provenances=provenances, era=era)
    keep = query.matching_keys()
    nodes = list(view) if keep is None else [n for n in view if n in keep]
    if key := data.get("ego"):
        if key not in view:
            raise citation_graph.UnknownWorks([key])
        around = citation_graph.ego(view, key, data["depth"], data["direction"])
        nodes = [n for n in nodes if n in around and n != key] + [key]
    total = len(nodes)
    if total > settings.GRAPH_MAX_SHOWN:
        nodes = sorted(nodes, key=lambda n: -ranks.get(n, 0.0))[: settings.GRAPH_MAX_SHOWN]
    shown = view.subgraph(nodes)
    ins, outs = catalogue.degrees(provenances=provenances, era=era)
    in_degree = {n: ins.get(n, 0) for n in nodes}
    out_degree = {n: outs.get(n, 0) for n in nodes}
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
        "era": attrs.get("era", citation_graph.SURVEY_ERA),
        "level": levels[0] if levels else "",
        "levels": levels,
        "categories": [taxonomy.names.get(c, c) for c in codes],
        "in_degree": selection.in_degree.get(key, 0),
        "out_degree": selection.out_degree.get(key, 0),
        "pagerank": round(selection.pagerank.get(key, 0.0), 4),
        "url": Work.path_for(key),
    }


def labelled(nodes: list[dict], size: str, centre: str) -> list[str]:
    """The keys of the nodes drawn with a label: the largest by the size measure (then the
    most cited), and the centre of an ego view."""
    measure = "pagerank" if size == "pagerank" else "in_degree"
    ranked = sorted(nodes, key=lambda n: (-n[measure], -n["in_degree"], n["key"]))
    keys = [n["key"] for n in ranked[:LABELLED] if n[measure] > 0]
    return [centre, *keys] if centre and centre not in keys else keys


def label_box(x: float, y: float, position: str) -> Box:
    """Where a label drawn at `position` of the point (x, y) lies, in shares of the layout."""
    dx = {"middle right": LABEL_WIDTH / 2 + 0.01, "middle left": -LABEL_WIDTH / 2 - 0.01}
    dy = {"top center": LABEL_HEIGHT, "bottom center": -LABEL_HEIGHT}
    cx, cy = x + dx.get(position, 0.0), y + dy.get(position, 0.0)
    return (
        cx - LABEL_WIDTH / 2,
        cy - LABEL_HEIGHT / 2,
        cx + LABEL_WIDTH / 2,
        cy + LABEL_HEIGHT / 2,
    )


def overlaps(one: Box, other: Box) -> bool:
    return one[0] < other[2] and other[0] < one[2] and one[1] < other[3] and other[1] < one[3]


def place_labels(points: list[tuple[str, float, float]]) -> dict[str, str]:
    """key -> label position for the points (key, x, y, in rank order, coordinates as shares
    of the layout) whose label fits beside those placed before it; the others get none."""
    placed: list[Box] = []
    positions: dict[str, str] = {}
    for key, x, y in points:
        for position in LABEL_POSITIONS:
            box = label_box(x, y, position)
            if not any(overlaps(box, other) for other in placed):
                placed.append(box)
                positions[key] = position
                break
    return positions


def _shares(nodes: list[dict]) -> dict[str, tuple[float, float]]:
    """Each node's place as shares (0 to 1) of the layout's width and height."""
    xs, ys = [n["x"] for n in nodes], [n["y"] for n in nodes]
    width, height = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    return {n["key"]: ((n["x"] - min(xs)) / width, (n["y"] - min(ys)) / height) for n in nodes}


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
    shares = _shares(nodes) if nodes else {}
    ranked = [(key, *shares[key]) for key in labelled(nodes, size, centre)]
    for key, position in place_labels(ranked).items():
        nodes_by_key[key]["label"] = short_title(nodes_by_key[key]["title"])
        nodes_by_key[key]["label_position"] = position
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


def ego_message(error: citation_graph.UnknownWorks, catalogue: CatalogueGraph) -> str:
    [key] = error.keys
    if catalogue.graph.nodes.get(key, {}).get("survey"):
        return f"ego: {key!r} is the survey, hidden by default; add survey=1 to centre on it"
    if key not in catalogue.graph:
        return f"ego: no work with key {key!r}"
    return f"ego: {other_era(key, catalogue, 'centre on it')}"


def seeds_message(error: citation_graph.UnknownWorks, catalogue: CatalogueGraph) -> str:
    nodes = catalogue.graph.nodes
    unknown = [key for key in error.keys if key not in nodes]
    reasons = [f"unknown work key(s): {', '.join(unknown)}"] if unknown else []
    for key in (key for key in error.keys if key in nodes):
        if nodes[key].get("survey"):
            reasons.append(f"{key!r} is the survey, which cites every reference: not a seed")
        else:
            reasons.append(other_era(key, catalogue, "start from it"))
    return "seeds: " + "; ".join(reasons)


def other_era(key: str, catalogue: CatalogueGraph, purpose: str) -> str:
    """Why a work is not in the view asked for: the graph pages show one era (the survey's
    unless told)."""
    era = catalogue.graph.nodes[key].get("era", citation_graph.SURVEY_ERA)
    label = dict(ERA_CHOICES).get(era, era)
    return f"{key!r} is a work {label}; add era={era} or era=all to {purpose}"


def in_catalogue(error: citation_graph.UnknownWorks, catalogue: CatalogueGraph) -> bool:
    """Whether every key the error names is a work, only not in the view asked for."""
    return all(key in catalogue.graph for key in error.keys)


def top_works(selection: GraphSelection, limit: int = 15) -> list[dict]:
    ranked = sorted(selection.shown, key=lambda n: (-selection.in_degree.get(n, 0), n))[:limit]
    return [node_payload(selection, key, selection.shown.nodes[key]) for key in ranked]


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
                        "era": view.nodes[key].get("era", citation_graph.SURVEY_ERA),
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


def quality_report(catalogue: CatalogueGraph) -> dict:
    # The survey's graph: its references and the edges among them (the later works apart).
    graph = catalogue.view(include_survey=True, era=citation_graph.SURVEY_ERA)
    view = catalogue.view(era=citation_graph.SURVEY_ERA)
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
        "after_survey": catalogue.after_coverage().as_dict(),
        "caveat": CAVEAT,
    }
