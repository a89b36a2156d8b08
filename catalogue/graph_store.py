"""The catalogue's citation graph: built from the database in two queries (works with their
categories, citations), kept in the shared cache and in this process under the catalogue's
version (catalogue/version.py), with the measures derived from it (catalogue/graph.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

import networkx as nx

from catalogue.constants import SURVEY_KEY
from catalogue.graph import (
    ALL_ERAS,
    SURVEY_ERA,
    AfterCoverage,
    Coverage,
    after_coverage,
    build_graph,
    coverage,
    gc_paused,
    layout,
    pagerank,
    restrict,
    survey_nodes,
)
from catalogue.version import catalogue_version, per_version

CACHE_SECONDS = 60 * 60
CACHE_PREFIX = "citation-graph"


def load_graph() -> nx.DiGraph:
    """The whole catalogue as a graph, in two queries (works with their categories, citations)."""
    from catalogue.models import Citation, Work

    works: dict[int, tuple[str, dict]] = {}
    rows = Work.objects.order_by("pk").values_list(
        "pk",
        "key",
        "title",
        "abstract",
        "year",
        "survey_ref",
        "era",
        "seminal",
        "seminal_reason",
        "assignments__category__code",
    )
    with gc_paused():
        for pk, key, title, abstract, year, survey_ref, era, seminal, reason, code in rows:
            if pk not in works:
                attrs = {
                    "title": title,
                    "abstract": abstract,
                    "year": year,
                    "survey_ref": survey_ref,
                    "era": era,
                    "seminal": seminal,
                    "seminal_reason": reason,
                    "survey": key == SURVEY_KEY,
                    "categories": (),
                }
                works[pk] = (key, attrs)
            if code:
                attrs = works[pk][1]
                attrs["categories"] = tuple(sorted((*attrs["categories"], code)))
        keys = {pk: key for pk, (key, _) in works.items()}
        edges = Citation.objects.order_by().values_list("citing_id", "cited_id", "provenance")
        return build_graph(works.values(), edges, key_of=keys)


@dataclass
class CatalogueGraph:
    version: str
    graph: nx.DiGraph
    _views: dict = field(default_factory=dict, repr=False)

    def memo(self, name: str, compute: Callable[[], object]) -> object:
        """A value derived from this graph version, computed once and cached."""
        return per_version(f"graph:{name}", compute, self.version)

    def view(
        self,
        include_survey: bool = False,
        provenances: Collection[str] | None = None,
        era: str = ALL_ERAS,
    ) -> nx.DiGraph:
        """`restrict`, once per set of options for this object (a request's worth)."""
        options = (include_survey, None if provenances is None else frozenset(provenances), era)
        if options not in self._views:
            self._views[options] = restrict(
                self.graph, include_survey=include_survey, provenances=provenances, era=era
            )
        return self._views[options]

    def coverage(self) -> Coverage:
        """The survey's graph: its works and the edges among them (later works left out)."""
        return self.memo(
            "coverage", lambda: coverage(self.view(include_survey=True, era=SURVEY_ERA))
        )

    def after_coverage(self) -> AfterCoverage:
        return self.memo("after-coverage", lambda: after_coverage(self.graph))

    def pagerank(
        self,
        include_survey: bool = False,
        provenances: Collection[str] | None = None,
        era: str = ALL_ERAS,
    ) -> dict[str, float]:
        edges = "*" if provenances is None else ",".join(sorted(provenances))
        options = f"{int(include_survey)}:{edges}:{era}"
        return self.memo(
            f"pagerank:{options}", lambda: self._pagerank(include_survey, provenances, era)
        )

    def degrees(
        self, provenances: Collection[str] | None = None, era: str = ALL_ERAS
    ) -> tuple[dict[str, int], dict[str, int]]:
        """(in-degree, out-degree) of every work among the references (the survey node left
        out: it cites everything), counted once per version: reading them through a filtered
        view walks its adjacency with a filter call per edge, milliseconds a request."""
        edges = "*" if provenances is None else ",".join(sorted(provenances))
        return self.memo(f"degrees:{edges}:{era}", lambda: self._degrees(provenances, era))

    def _degrees(self, provenances: Collection[str] | None, era: str):
        view = self.view(include_survey=False, provenances=provenances, era=era)
        return dict(view.in_degree()), dict(view.out_degree())

    def _pagerank(self, include_survey: bool, provenances: Collection[str] | None, era: str):
        if provenances is not None or era != ALL_ERAS:
            return pagerank(self.view(include_survey, provenances, era))
        surveys = [] if include_survey else survey_nodes(self.graph)
        return pagerank(self.graph, exclude=surveys)

    def layout(self, view: nx.DiGraph) -> dict[str, tuple[float, float]]:
        """Layout of a view, cached by its nodes and edges."""
        digest = hashlib.sha1(
            repr((sorted(view), sorted(view.edges()))).encode(), usedforsecurity=False
        ).hexdigest()
        return self.memo(f"layout:{digest}", lambda: layout(view))


# This process's copy of the latest graph: no unpickling per request (seconds at 1M edges).
# Shared read-only between requests; nothing mutates a graph once built.
_latest: dict[str, nx.DiGraph] = {}


def catalogue_graph() -> CatalogueGraph:
    """The catalogue's graph at its current version: one query when cached (in this process or
    in the shared cache), three otherwise."""
    from django.core.cache import cache

    version = catalogue_version()
    graph = _latest.get(version)
    if graph is None:
        key = f"{CACHE_PREFIX}:{version}:graph"
        with gc_paused():  # (un)pickling a large graph allocates as much as building it
            graph = cache.get(key)
            if graph is None:
                graph = load_graph()
                cache.set(key, graph, CACHE_SECONDS)
        _latest.clear()
        _latest[version] = graph
    return CatalogueGraph(version, graph)
