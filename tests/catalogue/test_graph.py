"""The citation graph: pure measures and snowballing on hand-made graphs, then the cached
catalogue graph over the database."""

import networkx as nx
import pytest
from django.core.cache import cache
from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

from catalogue import graph, graph_store, version
from catalogue.models import Citation
from tests.helpers import clear_caches, make_assignment, make_category, make_citation, make_work

NOTE = "reference-list-note"
BIBLIOGRAPHY = "citing-paper-bibliography"


def make_graph(edges, titles=None, years=None, survey=None):
    """A graph as `load_graph` builds it: keys, a few attributes, (citing, cited) edges."""
    titles, years = titles or {}, years or {}
    nodes = sorted({n for edge in edges for n in edge[:2]} | set(titles) | set(years))
    works = [
        (n, {"title": titles.get(n, n), "year": years.get(n), "survey": n == survey}) for n in nodes
    ]
    rows = [(e[0], e[1], e[2] if len(e) > 2 else NOTE) for e in edges]
    return graph.build_graph(works, rows)


# a cites b and c; b and c cite d; d cites e; f cites a.
CHAIN = [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "e"), ("f", "a")]


def replay(result):
    """A snowball as plain data: [(round, {key: [steps]}, collected, coverage)]."""
    return [
        (
            r.number,
            {k: [s.as_dict() for s in steps] for k, steps in r.new.items()},
            r.collected,
            round(r.coverage, 4),
        )
        for r in result.rounds
    ]


def test_it_snowballs_backward_through_cited_works():
    result = graph.snowball(make_graph(CHAIN), ["a"], direction="backward", rounds=3)
    assert replay(result) == [
        (0, {"a": [{"kind": "seed"}]}, 1, 0.1667),
        (
            1,
            {"b": [{"kind": "cited", "work": "a"}], "c": [{"kind": "cited", "work": "a"}]},
            3,
            0.5,
        ),
        (2, {"d": [{"kind": "cited", "work": "b"}, {"kind": "cited", "work": "c"}]}, 4, 0.6667),
        (3, {"e": [{"kind": "cited", "work": "d"}]}, 5, 0.8333),
    ]


def test_it_snowballs_forward_through_citing_works():
    result = graph.snowball(make_graph(CHAIN), ["d"], direction="forward", rounds=3)
    assert replay(result) == [
        (0, {"d": [{"kind": "seed"}]}, 1, 0.1667),
        (
            1,
            {"b": [{"kind": "citing", "work": "d"}], "c": [{"kind": "citing", "work": "d"}]},
            3,
            0.5,
        ),
        (2, {"a": [{"kind": "citing", "work": "b"}, {"kind": "citing", "work": "c"}]}, 4, 0.6667),
        (3, {"f": [{"kind": "citing", "work": "a"}]}, 5, 0.8333),
    ]


def test_it_snowballs_both_ways_and_records_every_way_a_work_was_reached():
    result = graph.snowball(make_graph(CHAIN), ["b"], direction="both", rounds=2)
    assert replay(result) == [
        (0, {"b": [{"kind": "seed"}]}, 1, 0.1667),
        (
            1,
            {"a": [{"kind": "citing", "work": "b"}], "d": [{"kind": "cited", "work": "b"}]},
            3,
            0.5,
        ),
        (
            2,
            {
                "c": [{"kind": "cited", "work": "a"}, {"kind": "citing", "work": "d"}],
                "e": [{"kind": "cited", "work": "d"}],
                "f": [{"kind": "citing", "work": "a"}],
            },
            6,
            1.0,
        ),
    ]


def test_it_says_when_the_recorded_edges_are_exhausted():
    result = graph.snowball(make_graph(CHAIN), ["d"], direction="backward", rounds=3)
    assert [len(r.new) for r in result.rounds] == [1, 1, 0, 0]
    assert result.saturated_at == 2
    assert result.collected == {"d": 0, "e": 1}


def test_it_finds_keywords_as_whole_words_case_insensitively():
    titles = {
        "a": "{Hogwild}: lock-free {SGD}",
        "b": "SGDR: stochastic gradient descent with warm restarts",
        "c": "Scaling the {Parameter} server",
        "d": "Parameter servers, a history",
        "e": "Unrelated",
    }
    result = graph.snowball(
        make_graph([("e", "a")], titles=titles), [], keywords=["sgd", "parameter server", " "]
    )
    assert result.keywords == ["sgd", "parameter server"]
    assert replay(result)[0] == (
        0,
        {
            "a": [{"kind": "keyword", "keyword": "sgd"}],
            "c": [{"kind": "keyword", "keyword": "parameter server"}],
        },
        2,
        0.4,
    )


def test_it_matches_keywords_in_abstracts_too():
    citation_graph = make_graph([("a", "b")])
    citation_graph.nodes["b"]["abstract"] = "We use an allreduce."
    result = graph.snowball(citation_graph, [], keywords=["Allreduce"], rounds=1)
    assert replay(result) == [
        (0, {"b": [{"kind": "keyword", "keyword": "Allreduce"}]}, 1, 0.5),
        (1, {}, 1, 0.5),
    ]


def test_it_marks_a_seed_that_is_also_a_keyword_hit():
    result = graph.snowball(
        make_graph(CHAIN, titles={"a": "Allreduce"}), ["a"], keywords=["allreduce"], rounds=0
    )
    assert replay(result) == [
        (0, {"a": [{"kind": "seed"}, {"kind": "keyword", "keyword": "allreduce"}]}, 1, 0.1667)
    ]


def test_it_turns_candidates_away_with_the_inclusion_filter_but_keeps_seeds():
    years = {"a": 1990, "b": 2015, "c": 2005, "d": 2016, "e": 2017, "f": 2018}
    citation_graph = make_graph(CHAIN, years=years)
    result = graph.snowball(
        citation_graph, ["a"], rounds=3, include=graph.NodeFilter(year_min=2010)
    )
    assert [(r.number, sorted(r.new), r.excluded) for r in result.rounds] == [
        (0, ["a"], 0),
        (1, ["b"], 1),
        (2, ["d"], 0),
        (3, ["e"], 0),
    ]
    by_predicate = graph.snowball(citation_graph, ["a"], rounds=3, include=lambda k: k != "d")
    assert by_predicate.collected == {"a": 0, "b": 1, "c": 1}


def test_it_names_unknown_seeds():
    with pytest.raises(graph.UnknownWorks) as error:
        graph.snowball(make_graph(CHAIN), ["a", "zz", "yy"])
    assert error.value.keys == ["yy", "zz"]
    assert str(error.value) == "unknown work key(s): yy, zz"


def test_it_refuses_an_unknown_direction():
    with pytest.raises(ValueError, match="direction must be one of backward, forward, both"):
        graph.snowball(make_graph(CHAIN), ["a"], direction="sideways")


def test_it_sums_pagerank_to_one_and_agrees_with_networkx():
    citation_graph = make_graph([*CHAIN, ("e", "b")], titles={"lonely": "x"})
    ranks = graph.pagerank(citation_graph)
    assert sum(ranks.values()) == pytest.approx(1.0, abs=1e-12)
    expected = _pagerank_python(citation_graph, tol=1e-10)
    assert ranks == pytest.approx(expected, abs=1e-5)


def test_it_leaves_excluded_works_out_of_pagerank_as_a_view_would():
    edges = [("S", k, "survey-reference-list") for k in "abcdef"] + CHAIN
    citation_graph = make_graph(edges, survey="S")
    without = graph.pagerank(citation_graph, exclude=["S"])
    assert without == pytest.approx(graph.pagerank(graph.restrict(citation_graph)), abs=1e-12)
    assert "S" not in without and sum(without.values()) == pytest.approx(1.0)


def test_it_ranks_the_survey_graph_as_networkx_did(survey):
    """The numpy power iteration against networkx's own (its pure-Python variant: the scipy one
    it replaces gave the same values to 7e-18 on the survey's 371 works, 2026-12-07)."""
    citation_graph = graph_store.catalogue_graph().graph
    surveys = graph.survey_nodes(citation_graph)
    ranks = graph.pagerank(citation_graph, exclude=surveys)
    view = nx.subgraph_view(citation_graph, filter_node=nx.filters.hide_nodes(surveys))
    expected = _pagerank_python(view, tol=1e-6, max_iter=200, weight=None)
    total = sum(expected.values())
    expected = {key: rank / total for key, rank in expected.items()}
    assert len(ranks) > 300
    assert ranks == pytest.approx(expected, abs=1e-6)
    assert sorted(ranks, key=lambda k: (-ranks[k], k)) == sorted(
        expected, key=lambda k: (-expected[k], k)
    )


def test_it_reports_pagerank_that_does_not_converge():
    with pytest.raises(nx.PowerIterationFailedConvergence):
        graph.pagerank(make_graph(CHAIN), max_iter=1)


def test_it_computes_pagerank_of_an_empty_graph():
    assert graph.pagerank(nx.DiGraph()) == {}


# p1 cites x, y, z; p2 cites x, y; p3 cites x, z.
PAPERS = [("p1", "x"), ("p1", "y"), ("p1", "z"), ("p2", "x"), ("p2", "y"), ("p3", "x"), ("p3", "z")]


def test_it_finds_co_cited_works():
    citation_graph = make_graph(PAPERS)
    assert graph.co_cited_with(citation_graph, "x") == [
        graph.Neighbour("y", 2, ("p1", "p2")),
        graph.Neighbour("z", 2, ("p1", "p3")),
    ]
    assert graph.co_cited_with(citation_graph, "y") == [
        graph.Neighbour("x", 2, ("p1", "p2")),
        graph.Neighbour("z", 1, ("p1",)),
    ]
    assert graph.co_cited_with(citation_graph, "y", top=1) == [
        graph.Neighbour("x", 2, ("p1", "p2"))
    ]


def test_it_finds_bibliographically_coupled_works():
    citation_graph = make_graph(PAPERS)
    assert graph.coupled_with(citation_graph, "p2") == [
        graph.Neighbour("p1", 2, ("x", "y")),
        graph.Neighbour("p3", 1, ("x",)),
    ]
    assert graph.coupled_with(citation_graph, "x") == []


def test_it_lists_weakly_connected_components_largest_first():
    citation_graph = make_graph([*CHAIN, ("q", "r")], titles={"alone": "x"})
    assert graph.components(citation_graph) == [
        ["a", "b", "c", "d", "e", "f"],
        ["q", "r"],
        ["alone"],
    ]


def test_it_keeps_one_edge_per_pair_with_every_provenance_strongest_first():
    citation_graph = make_graph([("a", "b", NOTE), ("a", "b", BIBLIOGRAPHY), ("a", "b", NOTE)])
    assert list(citation_graph.edges(data="provenances")) == [("a", "b", (BIBLIOGRAPHY, NOTE))]


def test_it_hides_the_survey_and_restricts_to_provenances():
    edges = [("S", "a", "survey-reference-list"), ("S", "b", "survey-reference-list")]
    edges += [("a", "b", NOTE), ("b", "c", BIBLIOGRAPHY)]
    citation_graph = make_graph(edges, survey="S")
    assert sorted(graph.restrict(citation_graph).edges()) == [("a", "b"), ("b", "c")]
    only_bibliographies = graph.restrict(citation_graph, provenances={BIBLIOGRAPHY})
    assert sorted(only_bibliographies) == ["a", "b", "c"]
    assert list(only_bibliographies.edges()) == [("b", "c")]
    with_survey = graph.restrict(citation_graph, include_survey=True)
    assert with_survey is citation_graph


def test_it_measures_coverage_without_the_survey_edges():
    edges = [("S", k, "survey-reference-list") for k in "abcde"]
    edges += [("a", "b", NOTE), ("a", "b", BIBLIOGRAPHY), ("b", "c", NOTE)]
    citation_graph = make_graph(edges, survey="S")
    assert graph.coverage(citation_graph).as_dict() == {
        "works": 6,
        "references": 5,
        "survey_edges": 5,
        "edges_among_references": 2,
        "evidence_rows_among_references": 3,
        "references_with_edges": 3,
        "citing_references": 2,
        "cited_references": 2,
        "provenances": {BIBLIOGRAPHY: 1, NOTE: 2, "survey-reference-list": 5},
    }
    assert sorted(graph.isolated_references(citation_graph)) == ["d", "e"]


def test_it_walks_an_ego_network_in_each_direction():
    citation_graph = make_graph(CHAIN)
    assert graph.ego(citation_graph, "b", 1, "backward") == {"b": 0, "d": 1}
    assert graph.ego(citation_graph, "b", 2, "forward") == {"b": 0, "a": 1, "f": 2}
    assert graph.ego(citation_graph, "b", 1, "both") == {"b": 0, "d": 1, "a": 1}
    with pytest.raises(graph.UnknownWorks):
        graph.ego(citation_graph, "nope", 1, "both")


def test_it_lays_out_the_same_way_twice_with_lonely_works_underneath():
    citation_graph = make_graph(CHAIN, titles={"lonely": "x", "alone": "y"})
    positions = graph.layout(citation_graph)
    assert positions == graph.layout(citation_graph)
    assert set(positions) == set(citation_graph)
    assert all(positions[k][1] < -0.8 for k in ("lonely", "alone"))
    assert all(-1 <= x <= 1 and -0.8 < y <= 1 for k, (x, y) in positions.items() if k in "abcdef")


def test_it_filters_nodes_by_year_category_and_title():
    work_filter = graph.NodeFilter(
        year_min=2010, year_max=2016, code_sets=(frozenset({"ops", "ops-conv"}),), q="deep"
    )
    assert work_filter.matches({"year": 2012, "categories": ("ops-conv",), "title": "{Deep} nets"})
    assert not work_filter.matches({"year": 2009, "categories": ("ops",), "title": "Deep"})
    assert not work_filter.matches({"year": None, "categories": ("ops",), "title": "Deep"})
    assert not work_filter.matches({"year": 2012, "categories": ("net",), "title": "Deep"})
    assert not work_filter.matches({"year": 2012, "categories": ("ops",), "title": "Shallow"})


# --- The catalogue's graph, over the database ---------------------------------------------------


@pytest.fixture(autouse=True)
def empty_cache():
    clear_caches()
    yield
    clear_caches()


@pytest.fixture
def catalogue(db):
    survey = make_work("bennun2018demystifying", title="Demystifying", year=2018)
    alexnet = make_work("alexnet", title="{ImageNet} classification", year=2012, survey_ref=1)
    resnet = make_work("resnet", title="Deep residual learning", year=2016, survey_ref=2)
    lenet = make_work("lenet", title="Gradient-based learning", year=1998, survey_ref=3)
    ops = make_category("ops")
    make_assignment(resnet, make_category("ops-conv", parent=ops))
    make_assignment(resnet, ops)
    for work in (alexnet, resnet, lenet):
        make_citation(survey, work, provenance="survey-reference-list")
    make_citation(resnet, alexnet)
    make_citation(resnet, alexnet, provenance=NOTE)
    return {"survey": survey, "alexnet": alexnet, "resnet": resnet, "lenet": lenet}


def test_it_loads_the_catalogue_graph_in_two_queries(catalogue, django_assert_num_queries):
    # 1. works with their category codes (one LEFT JOIN); 2. citations (ids and provenance)
    with django_assert_num_queries(2):
        citation_graph = graph_store.load_graph()
    assert dict(citation_graph.nodes(data=True))["resnet"] == {
        "title": "Deep residual learning",
        "abstract": "",
        "year": 2016,
        "survey_ref": 2,
        "era": "survey",
        "seminal": False,
        "seminal_reason": "",
        "survey": False,
        "categories": ("ops", "ops-conv"),
    }
    assert citation_graph.nodes["bennun2018demystifying"]["survey"] is True
    assert sorted(citation_graph.edges(data="provenances")) == [
        ("bennun2018demystifying", "alexnet", ("survey-reference-list",)),
        ("bennun2018demystifying", "lenet", ("survey-reference-list",)),
        ("bennun2018demystifying", "resnet", ("survey-reference-list",)),
        ("resnet", "alexnet", (BIBLIOGRAPHY, NOTE)),
    ]


def test_it_caches_the_graph_under_its_version(catalogue, django_assert_num_queries):
    first = graph_store.catalogue_graph()
    # 1. the version: count and last id of the citations
    with django_assert_num_queries(1):
        again = graph_store.catalogue_graph()
    assert again.version == first.version
    assert sorted(again.graph.edges()) == sorted(first.graph.edges())


def test_it_invalidates_the_cache_when_an_edge_is_added(catalogue):
    before = graph_store.catalogue_graph()
    make_citation(catalogue["lenet"], catalogue["alexnet"])
    after = graph_store.catalogue_graph()
    assert after.version != before.version
    assert after.graph.has_edge("lenet", "alexnet")
    assert after.coverage().edges_among_references == 2


def test_it_invalidates_the_cache_after_bulk_writes_that_send_no_signal(catalogue):
    before = graph_store.catalogue_graph()
    Citation.objects.bulk_create(
        [
            Citation(
                citing=catalogue["lenet"],
                cited=catalogue["resnet"],
                provenance=NOTE,
                evidence_source="https://example.org",
            )
        ]
    )
    after = graph_store.catalogue_graph()
    assert after.version != before.version
    assert after.graph.has_edge("lenet", "resnet")


def test_it_invalidates_the_cache_when_an_edge_or_a_work_changes(catalogue):
    graph_store.catalogue_graph()
    Citation.objects.filter(provenance=NOTE).get().delete()
    assert graph_store.catalogue_graph().graph["resnet"]["alexnet"]["provenances"] == (
        BIBLIOGRAPHY,
    )
    work = catalogue["lenet"]
    work.title = "LeNet"
    work.save()
    assert graph_store.catalogue_graph().graph.nodes["lenet"]["title"] == "LeNet"


def test_it_never_brings_back_an_old_version_when_the_generation_is_evicted(catalogue):
    first = version.catalogue_version()
    assert version.catalogue_version() == first
    cache.delete(version.GENERATION_KEY)
    assert version.catalogue_version() != first


def test_it_caches_derived_measures_per_version(catalogue, django_assert_num_queries):
    catalogue_graph = graph_store.catalogue_graph()
    ranks = catalogue_graph.pagerank()
    assert set(ranks) == {"alexnet", "resnet", "lenet"}
    assert sum(ranks.values()) == pytest.approx(1.0)
    with django_assert_num_queries(0):
        assert catalogue_graph.pagerank() == ranks
        assert catalogue_graph.coverage().references_with_edges == 2
