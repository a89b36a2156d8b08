"""The citation graph (citing -> cited) over the catalogue: measures, neighbours and snowballing.

Pure functions:
- pure functions over a networkx DiGraph whose nodes are BibTeX keys, with the attributes
  `title`, `abstract`, `year`, `survey_ref`, `categories` (codes), `seminal`, `seminal_reason`
  and `survey` (the survey itself), and whose edges carry `provenances` (strongest first);
- catalogue/graph_store.py's `catalogue_graph()`, which builds that graph from the database in
  two queries (works, citations) and caches it under the catalogue's version
  (catalogue/version.py).

Citation coverage is partial: a missing edge does not mean "does not cite".
"""

from __future__ import annotations

import gc
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

import networkx as nx
import numpy as np

# Strongest evidence first (data/README.md); the survey's own list and curators' edges last.
PROVENANCE_ORDER = [
    "citing-paper-bibliography",
    "reference-list-note",
    "secondary-index",
    "curator",
    "survey-reference-list",
]
SURVEY_PROVENANCE = "survey-reference-list"
DIRECTIONS = ("backward", "forward", "both")
MAX_ROUNDS = 5
MAX_EGO_DEPTH = 3

Include = Callable[[str], bool]
SURVEY_ERA, AFTER_ERA, ALL_ERAS = "survey", "after", "all"


class UnknownWorks(ValueError):
    """Keys that are not works of the catalogue."""

    def __init__(self, keys: Iterable[str]):
        self.keys = sorted(keys)
        super().__init__("unknown work key(s): " + ", ".join(self.keys))


# --- Building and restricting ------------------------------------------------------------------


def provenance_rank(provenance: str) -> int:
    return PROVENANCE_ORDER.index(provenance) if provenance in PROVENANCE_ORDER else 99


def build_graph(
    works: Iterable[tuple[str, dict]],
    edges: Iterable[tuple],
    key_of: Mapping | None = None,
) -> nx.DiGraph:
    """A DiGraph of works and (citing, cited, provenance) rows, one edge per pair of works.

    `key_of` maps the rows' work ids to keys, when the rows hold ids (as the database has them).
    """
    with gc_paused():
        graph = nx.DiGraph()
        graph.add_nodes_from(works)
        graph.add_edges_from(_edges_with_provenances(graph, edges, key_of))
    return graph


def _edges_with_provenances(graph: nx.DiGraph, edges: Iterable[tuple], key_of: Mapping | None):
    # Consumed one edge at a time by add_edges_from, so `graph` already holds the rows before.
    # One loop for a million rows: ids to keys, and a second provenance merged into the first.
    # add_edges_from copies the attributes into a dict of its own: one shared dict per value.
    attributes = {p: {"provenances": (p,)} for p in PROVENANCE_ORDER}
    has_edge = graph.has_edge
    for citing, cited, provenance in edges:
        if key_of is not None:
            citing, cited = key_of[citing], key_of[cited]
        if has_edge(citing, cited):  # more evidence for the same edge
            known = graph.get_edge_data(citing, cited)["provenances"]
            merged = tuple(sorted({*known, provenance}, key=provenance_rank))
            yield citing, cited, {"provenances": merged}
        else:
            yield citing, cited, attributes.get(provenance) or {"provenances": (provenance,)}


@contextmanager
def gc_paused():
    """Building a graph allocates millions of dicts and tuples, none of them garbage; the cyclic
    collector would walk them again and again (a 1M-edge build takes twice as long with it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def survey_nodes(graph: nx.DiGraph) -> list[str]:
    return [node for node, survey in graph.nodes(data="survey") if survey]


def restrict(
    graph: nx.DiGraph,
    *,
    include_survey: bool = False,
    provenances: Collection[str] | None = None,
    era: str = ALL_ERAS,
) -> nx.DiGraph:
    """A read-only view without the survey node (it cites everything), and/or with only the
    edges that have a provenance in `provenances`, and/or with only the works of one `era`
    (survey: the survey and its bibliography; after: the works after it; all: both). Works
    keep their place without edges.

    A view costs nothing to make (no copy of a million edges); reading it filters as it goes.
    """
    if include_survey and provenances is None and era == ALL_ERAS:
        return graph
    hidden = set() if include_survey else set(survey_nodes(graph))
    if era != ALL_ERAS:
        hidden |= {
            node
            for node, node_era in graph.nodes(data="era", default=SURVEY_ERA)
            if node_era != era
        }
    wanted = None if provenances is None else frozenset(provenances)

    def keep_edge(citing: str, cited: str) -> bool:
        return not wanted.isdisjoint(graph.get_edge_data(citing, cited)["provenances"])

    return nx.subgraph_view(
        graph,
        filter_node=nx.filters.hide_nodes(hidden) if hidden else nx.filters.no_filter,
        filter_edge=keep_edge if wanted is not None else nx.filters.no_filter,
    )


# --- Measures ----------------------------------------------------------------------------------


def pagerank(
    graph: nx.DiGraph,
    alpha: float = 0.85,
    tol: float = 1.0e-6,
    max_iter: int = 200,
    exclude: Collection[str] = (),
) -> dict[str, float]:
    """PageRank of the graph without the nodes in `exclude`: a uniform teleport, and dangling
    works (citing nothing recorded) spread their rank uniformly. The values sum to 1.

    networkx's default `pagerank` power iteration, written with numpy index arrays: networkx's
    own needs scipy (139 MB installed) for its sparse matrix; this one needs numpy only and gives
    the same values (the same iteration and stopping rule; tests/catalogue/test_graph.py)."""
    if exclude:
        graph = nx.subgraph_view(graph, filter_node=nx.filters.hide_nodes(exclude))
    nodes = list(graph)
    if not nodes:
        return {}
    ranks = _power_iteration(nodes, graph.edges(), alpha, tol, max_iter)
    return dict(zip(nodes, (rank / ranks.sum() for rank in ranks.tolist()), strict=True))


def _power_iteration(
    nodes: list[str], edges: Iterable[tuple[str, str]], alpha: float, tol: float, max_iter: int
) -> np.ndarray:
    """x <- alpha (x P + dangling mass / N) + (1 - alpha) / N until the L1 change is under
    N * tol, P the row-normalised adjacency (each edge weighs 1), as networkx stops."""
    count = len(nodes)
    index = {node: i for i, node in enumerate(nodes)}
    pairs = np.array([(index[a], index[b]) for a, b in edges], dtype=np.int64).reshape(-1, 2)
    citing, cited = pairs[:, 0], pairs[:, 1]
    out_degree = np.bincount(citing, minlength=count).astype(float)
    dangling = out_degree == 0
    share = np.zeros(count)
    share[~dangling] = 1.0 / out_degree[~dangling]
    edge_share = share[citing]
    uniform = np.full(count, 1.0 / count)
    ranks = uniform
    for _ in range(max_iter):
        previous = ranks
        flow = np.bincount(cited, weights=previous[citing] * edge_share, minlength=count)
        ranks = alpha * (flow + previous[dangling].sum() * uniform) + (1 - alpha) * uniform
        if np.abs(ranks - previous).sum() < count * tol:
            return ranks
    raise nx.PowerIterationFailedConvergence(max_iter)


@dataclass(frozen=True)
class Neighbour:
    key: str
    count: int
    shared: tuple[str, ...]  # the citing works (co-citation) or cited works (coupling) in common


def co_cited_with(graph: nx.DiGraph, key: str, top: int = 10) -> list[Neighbour]:
    """Works cited together with `key` by the same citing works, most often first."""
    shared: dict[str, list[str]] = defaultdict(list)
    for citing in graph.predecessors(key):
        for other in graph.successors(citing):
            if other != key:
                shared[other].append(citing)
    return _top_neighbours(shared, top)


def coupled_with(graph: nx.DiGraph, key: str, top: int = 10) -> list[Neighbour]:
    """Works that cite some of the same works as `key` (bibliographic coupling), most first."""
    shared: dict[str, list[str]] = defaultdict(list)
    for cited in graph.successors(key):
        for other in graph.predecessors(cited):
            if other != key:
                shared[other].append(cited)
    return _top_neighbours(shared, top)


def _top_neighbours(shared: dict[str, list[str]], top: int) -> list[Neighbour]:
    ranked = sorted(shared.items(), key=lambda item: (-len(item[1]), item[0]))[:top]
    return [Neighbour(key, len(via), tuple(sorted(via))) for key, via in ranked]


def components(graph: nx.DiGraph) -> list[list[str]]:
    """Weakly connected components, largest first, each sorted."""
    found = [sorted(c) for c in nx.weakly_connected_components(graph)]
    return sorted(found, key=lambda c: (-len(c), c[0]))


def neighbours(graph: nx.DiGraph, key: str, direction: str) -> Iterable[str]:
    """Backward: the works `key` cites. Forward: the works citing `key`. Both: either."""
    if direction in ("backward", "both"):
        yield from graph.successors(key)
    if direction in ("forward", "both"):
        yield from graph.predecessors(key)


def ego(graph: nx.DiGraph, key: str, depth: int, direction: str) -> dict[str, int]:
    """Works within `depth` citation steps of `key`, with their distance."""
    if key not in graph:
        raise UnknownWorks([key])
    distance = {key: 0}
    frontier = [key]
    for step in range(1, depth + 1):
        reached = []
        for node in frontier:
            for other in neighbours(graph, node, direction):
                if other not in distance:
                    distance[other] = step
                    reached.append(other)
        frontier = reached
    return distance


@dataclass(frozen=True)
class Coverage:
    """How thin the graph is. Counts exclude the survey's own edges unless named `survey_`."""

    works: int
    references: int
    survey_edges: int
    edges_among_references: int
    evidence_rows_among_references: int
    references_with_edges: int
    citing_references: int
    cited_references: int
    provenances: dict[str, int]

    def as_dict(self) -> dict:
        return asdict(self)


def coverage(graph: nx.DiGraph) -> Coverage:
    survey = [n for n, is_survey in graph.nodes(data="survey") if is_survey]
    among = restrict(graph)
    rows = Counter(p for _, _, provs in graph.edges(data="provenances") for p in provs)
    return Coverage(
        works=len(graph),
        references=len(among),
        survey_edges=sum(graph.out_degree(s) for s in survey),
        edges_among_references=among.number_of_edges(),
        evidence_rows_among_references=sum(
            len(provs) for _, _, provs in among.edges(data="provenances")
        ),
        references_with_edges=sum(1 for _, d in among.degree() if d),
        citing_references=sum(1 for _, d in among.out_degree() if d),
        cited_references=sum(1 for _, d in among.in_degree() if d),
        provenances={p: rows[p] for p in sorted(rows, key=provenance_rank)},
    )


@dataclass(frozen=True)
class AfterCoverage:
    """How thin the edges of the works after the survey are (read in reference lists only)."""

    works: int
    citing_works: int
    edges: int
    edges_to_survey: int
    edges_among_after: int
    survey_works_cited: int
    provenances: dict[str, int]

    def as_dict(self) -> dict:
        return asdict(self)


def after_coverage(graph: nx.DiGraph) -> AfterCoverage:
    era = dict(graph.nodes(data="era", default=SURVEY_ERA))
    later = [node for node, node_era in era.items() if node_era == AFTER_ERA]
    edges = [
        (citing, cited, provs)
        for citing, cited, provs in graph.edges(data="provenances")
        if AFTER_ERA in (era[citing], era[cited])
    ]
    rows = Counter(p for _, _, provs in edges for p in provs)
    return AfterCoverage(
        works=len(later),
        citing_works=len({citing for citing, _, _ in edges if era[citing] == AFTER_ERA}),
        edges=len(edges),
        edges_to_survey=sum(1 for _, cited, _ in edges if era[cited] == SURVEY_ERA),
        edges_among_after=sum(
            1 for citing, cited, _ in edges if era[citing] == era[cited] == AFTER_ERA
        ),
        survey_works_cited=len({cited for _, cited, _ in edges if era[cited] == SURVEY_ERA}),
        provenances={p: rows[p] for p in sorted(rows, key=provenance_rank)},
    )


def isolated_references(graph: nx.DiGraph) -> list[str]:
    """References with no recorded edge in or out among references (survey edges aside)."""
    among = restrict(graph)
    return [node for node, d in among.degree() if d == 0]


# --- Filters -----------------------------------------------------------------------------------


def plain_text(value: str) -> str:
    """BibTeX text with protective braces dropped: cheap, good enough for matching."""
    return value.replace("{", "").replace("}", "")


@dataclass(frozen=True)
class NodeFilter:
    """The works-list facets, over node attributes. Each code set must meet the work's
    categories (a level or a category stands for its whole subtree)."""

    year_min: int | None = None
    year_max: int | None = None
    code_sets: tuple[frozenset[str], ...] = ()
    q: str = ""

    @property
    def active(self) -> bool:
        return bool(self.year_min or self.year_max or self.code_sets or self.q)

    def matches(self, attrs: Mapping) -> bool:
        year = attrs.get("year")
        if self.year_min is not None and (year is None or year < self.year_min):
            return False
        if self.year_max is not None and (year is None or year > self.year_max):
            return False
        categories = attrs.get("categories", ())
        if any(not codes.intersection(categories) for codes in self.code_sets):
            return False
        return not self.q or self.q.lower() in plain_text(attrs.get("title", "")).lower()


def filtered_nodes(graph: nx.DiGraph, node_filter: NodeFilter) -> list[str]:
    return [node for node, attrs in graph.nodes(data=True) if node_filter.matches(attrs)]


# --- Snowballing -------------------------------------------------------------------------------


class Step(NamedTuple):
    """How a work was reached: a seed, a keyword hit, or a citation from a collected work.

    kind "cited": found backward, the work is cited by `work`;
    kind "citing": found forward, the work cites `work`.
    (A NamedTuple: a replay over a million edges makes a million of them.)
    """

    kind: str
    work: str = ""
    keyword: str = ""

    def as_dict(self) -> dict[str, str]:
        return {k: v for k, v in self._asdict().items() if v}


@dataclass
class Round:
    number: int
    new: dict[str, list[Step]] = field(default_factory=dict)
    excluded: int = 0  # candidates turned away by the inclusion filter this round
    collected: int = 0  # cumulative
    coverage: float = 0.0  # collected / works in the graph


@dataclass
class Snowball:
    seeds: list[str]
    direction: str
    keywords: list[str]
    total: int
    rounds: list[Round]

    @property
    def collected(self) -> dict[str, int]:
        """Every collected work with the round it joined in."""
        return {key: r.number for r in self.rounds for key in r.new}

    @property
    def saturated_at(self) -> int | None:
        """The first citation round that found nothing new, if any."""
        return next((r.number for r in self.rounds[1:] if not r.new), None)


def keyword_pattern(keyword: str) -> re.Pattern[str]:
    """Whole words, case-insensitive: 'SGD' matches '(SGD)' but not 'SGDR'."""
    return re.compile(rf"(?<!\w){re.escape(keyword)}(?!\w)", re.IGNORECASE)


def clean_keywords(keywords: Iterable[str]) -> list[str]:
    seen: dict[str, str] = {}
    for keyword in keywords:
        keyword = " ".join(keyword.split())
        if keyword and keyword.lower() not in seen:
            seen[keyword.lower()] = keyword
    return list(seen.values())


def keyword_hits(graph: nx.DiGraph, keywords: list[str]) -> dict[str, list[str]]:
    """Works whose title or abstract contains a keyword, with the keywords each matched."""
    patterns = [(k, keyword_pattern(k)) for k in keywords]
    hits: dict[str, list[str]] = {}
    for node, attrs in graph.nodes(data=True):
        text = plain_text(f"{attrs.get('title', '')}\n{attrs.get('abstract', '')}")
        matched = [k for k, pattern in patterns if pattern.search(text)]
        if matched:
            hits[node] = matched
    return hits


def snowball(
    graph: nx.DiGraph,
    seeds: Iterable[str],
    direction: str = "backward",
    rounds: int = 2,
    keywords: Iterable[str] = (),
    include: Include | NodeFilter | None = None,
) -> Snowball:
    """Replay a literature collection: seeds and keyword hits (round 0), then `rounds` rounds
    that follow the citations of the works found in the round before.

    Backward follows the works they cite, forward the works citing them, both follows either.
    `include` (a predicate on keys, or a NodeFilter on node attributes) turns candidates away;
    seeds are always kept. Pass a graph without the survey node: it cites everything.
    """
    seeds = list(dict.fromkeys(seeds))
    if unknown := [s for s in seeds if s not in graph]:
        raise UnknownWorks(unknown)
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    if rounds < 0:
        raise ValueError("rounds must be zero or more")
    keywords = clean_keywords(keywords)
    accept = _predicate(graph, include)
    total = len(graph)

    start = Round(0, {seed: [Step("seed")] for seed in seeds})
    turned_away: set[str] = set()
    for node, matched in sorted(keyword_hits(graph, keywords).items()):
        if node in start.new:
            start.new[node] += [Step("keyword", keyword=k) for k in matched]
        elif accept(node):
            start.new[node] = [Step("keyword", keyword=k) for k in matched]
        else:
            turned_away.add(node)
    start.excluded = len(turned_away)
    collected = set(start.new)
    _close_round(start, collected, total)
    history = [start]

    for number in range(1, rounds + 1):
        current = Round(number)
        excluded_now: set[str] = set()
        for work in sorted(history[-1].new):
            for other, kind in _candidates(graph, work, direction):
                if other in collected:
                    continue
                if other in current.new:
                    current.new[other].append(Step(kind, work=work))
                elif other in turned_away or not accept(other):
                    excluded_now.add(other)
                else:
                    current.new[other] = [Step(kind, work=work)]
        current.new = dict(sorted(current.new.items()))
        current.excluded = len(excluded_now - turned_away)
        turned_away |= excluded_now
        collected |= set(current.new)
        _close_round(current, collected, total)
        history.append(current)
    return Snowball(seeds, direction, keywords, total, history)


def _predicate(graph: nx.DiGraph, include: Include | NodeFilter | None) -> Include:
    if include is None:
        return lambda key: True
    if isinstance(include, NodeFilter):
        return lambda key: include.matches(graph.nodes[key])
    return include


def _candidates(graph: nx.DiGraph, work: str, direction: str) -> Iterable[tuple[str, str]]:
    if direction in ("backward", "both"):
        for cited in graph.successors(work):
            yield cited, "cited"
    if direction in ("forward", "both"):
        for citing in graph.predecessors(work):
            yield citing, "citing"


def _close_round(current: Round, collected: set[str], total: int) -> None:
    current.collected = len(collected)
    current.coverage = len(collected) / total if total else 0.0


# --- Layout ------------------------------------------------------------------------------------


def layout(graph: nx.DiGraph, seed: int = 7) -> dict[str, tuple[float, float]]:
    """Positions in [-1, 1] x [-1.15, 1]: works with edges by a seeded spring layout, works
    without any edge in a grid band underneath, so that the thin coverage stays visible."""
    linked = [node for node, degree in graph.degree() if degree]
    alone = sorted(node for node, degree in graph.degree() if not degree)
    positions: dict[str, tuple[float, float]] = {}
    if linked:
        # A k twice the default spreads the dense core of highly cited works.
        spring = nx.spring_layout(
            graph.subgraph(linked).to_undirected(as_view=True),
            k=2 / np.sqrt(len(linked)),
            iterations=100,
            seed=seed,
            method="force",
        )
        coords = np.array([spring[node] for node in linked]).reshape(-1, 2)
        span = np.abs(coords).max() or 1.0
        for node, (x, y) in zip(linked, (coords / span).tolist(), strict=True):
            positions[node] = (round(x, 4), round(y * 0.85 + 0.15, 4))
    columns = max(1, int(np.ceil(np.sqrt(len(alone) * 4))))
    for i, node in enumerate(alone):
        row, column = divmod(i, columns)
        x = -1 + 2 * (column + 0.5) / columns
        positions[node] = (round(x, 4), round(-0.85 - row * 0.08, 4))
    return positions
