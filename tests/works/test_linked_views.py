"""The works page's linked views (a timeline, the level and section counts, the citation graph
among the selected works): counted like the API, each mark a link that narrows the selection
and keeps the other filters, in a constant number of queries; the hubs show the timeline."""

import re
from html import unescape
from urllib.parse import parse_qsl, urlencode, urlsplit

import networkx as nx
import pytest

from catalogue.constants import SURVEY_KEY
from explorer.works import linked_views
from tests.helpers import make_assignment, make_category, make_citation, make_work

LEVEL_OF = {"ops": "ops", "ops-conv": "ops", "net": "net", "net-pipe": "net"}
LEVELS = ["ops", "net"]


def make_graph(works: dict[str, tuple[int | None, tuple[str, ...]]], edges=()) -> nx.DiGraph:
    graph = nx.DiGraph()
    for key, (year, categories) in works.items():
        graph.add_node(key, title=f"{{T}}itle of {key}", year=year, categories=categories)
    graph.add_edges_from(edges)
    return graph


def test_it_counts_each_work_once_per_year_and_once_per_level_it_holds():
    graph = make_graph(
        {
            "a": (2015, ("ops-conv", "net-pipe")),
            "b": (2015, ("net",)),
            "c": (2016, ()),
            "d": (None, ("ops",)),
        }
    )
    selection = linked_views.select(["a", "b", "c", "d"], graph, LEVEL_OF, LEVELS)
    assert selection.total == 4
    assert selection.years == {2015: 2, 2016: 1, None: 1}
    assert selection.stacks == {
        (2015, "ops"): 1,
        (2015, "net"): 2,
        (2016, linked_views.NO_LEVEL): 1,
        (None, "ops"): 1,
    }


def test_it_draws_the_most_cited_works_of_a_big_selection_and_the_edges_among_them():
    works = {f"w{i}": (2000 + i, ("net",)) for i in range(5)}
    works[SURVEY_KEY] = (2018, ())  # cites every reference: left out, as on /graph/
    edges = [("w4", "w0"), ("w3", "w0"), ("w2", "w1"), ("w4", "w1"), ("w1", "w0")]
    edges += [(SURVEY_KEY, key) for key in works if key != SURVEY_KEY]
    selection = linked_views.select(list(works), make_graph(works, edges), LEVEL_OF, LEVELS, cap=2)
    assert [(node.key, node.cited_here, node.title) for node in selection.nodes] == [
        ("w0", 3, "Title of w0"),  # BibTeX braces dropped
        ("w1", 2, "Title of w1"),
    ]
    assert selection.edges == [("w1", "w0")]
    assert (selection.graph_works, selection.graph_edges, selection.capped) == (5, 5, True)


def test_it_draws_each_year_as_a_link_and_each_node_as_a_link_to_its_work():
    graph = make_graph({"a": (2014, ("ops",)), "b": (2016, ("net",))}, [("b", "a")])
    selection = linked_views.select(["a", "b"], graph, LEVEL_OF, LEVELS)
    colours = {"ops": "#111111", "net": "#222222", linked_views.NO_LEVEL: "#333333"}
    names = {"ops": "Operators", "net": "Networks"}
    timeline = linked_views.timeline_svg(selection, names, colours, lambda y: f"?y={y}&amp")
    # One link per year with a work (none for the empty 2015), the href escaped.
    assert re.findall(r'<a href="([^"]+)" data-year="(\d+)">', timeline) == [
        ("?y=2014&amp;amp", "2014"),
        ("?y=2016&amp;amp", "2016"),
    ]
    assert "<title>2014: 1 work (Operators 1); show only 2014</title>" in timeline
    drawing = linked_views.graph_svg(selection, colours, lambda key: f"/works/{key}/")
    assert re.findall(r'<a href="([^"]+)"><title>([^<]+)</title>', drawing) == [
        ("/works/a/", "Title of a (2014), cited by 1 of the selection"),
        ("/works/b/", "Title of b (2016), cited by 0 of the selection"),
    ]
    assert drawing.count("<path ") == 1


def test_it_draws_nothing_for_a_selection_without_years_or_works():
    selection = linked_views.select([], make_graph({}), LEVEL_OF, LEVELS)
    assert linked_views.timeline_svg(selection, {}, {}, str) == ""
    assert linked_views.graph_svg(selection, {}, str) == ""


def api_count(client, params: dict) -> int:
    return client.get(f"/api/works/?{urlencode({**params, 'page_size': 1})}").json()["count"]


def year_links(html: str) -> list[tuple[str, int]]:
    return [
        (unescape(href), int(year))
        for href, year in re.findall(r'<a href="([^"]+)" data-year="(\d+)">', html)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        {},
        {"level": "net", "era": "all"},
        {"q": "pipeline", "era": "all", "ordering": "year"},
        {"category": "train-comp", "year_min": "2014", "evidence": "confirmed"},
    ],
)
def test_it_counts_the_views_like_the_api_and_links_each_bar_to_its_year(client, survey, query):
    response = client.get(f"/works/?{urlencode(query)}")
    linked = response.context["linked"]
    selection = linked["selection"]
    filters = {name: value for name, value in query.items() if name != "ordering"}
    assert selection.total == api_count(client, filters) == response.context["facets"]["total"]
    links = year_links(response.content.decode())
    assert [year for _, year in links] == sorted(y for y in selection.years if y is not None)
    for href, year in links:
        path, params = urlsplit(href).path, dict(parse_qsl(urlsplit(href).query))
        # The other filters kept (the ordering too), the page dropped, the year set.
        assert (path, params) == (
            "/works/",
            {**query, "year_min": str(year), "year_max": str(year)},
        )
        assert selection.years[year] == api_count(
            client, {**filters, "year_min": year, "year_max": year}
        )
    for level in linked["levels"]:
        if level["href"]:
            level_filters = {**filters, "level": level["code"]}
            assert level["count"] == api_count(client, level_filters), level["code"]


@pytest.mark.django_db
def test_it_narrows_the_list_to_the_year_of_a_bar(client, survey):
    first = client.get("/works/?level=net&era=all&page=2&page_size=20")
    href, year = year_links(first.content.decode())[-1]
    narrowed = client.get(href)
    assert narrowed.status_code == 200
    assert (
        narrowed.context["page"].paginator.count == first.context["linked"]["selection"].years[year]
    )
    assert {work.year for work in narrowed.context["page"].object_list} == {year}
    assert narrowed.context["linked"]["selection"].years == {
        year: narrowed.context["page"].paginator.count
    }


@pytest.mark.django_db
def test_it_links_the_graph_view_to_the_same_selection_on_the_graph_page(client, survey):
    query = "q=pipeline&era=all&year_min=2016&ordering=year&page_size=10&page=2"
    linked = client.get(f"/works/?{query}").context["linked"]
    assert linked["graph_href"] == "/graph/?q=pipeline&era=all&year_min=2016"
    graph = client.get(linked["graph_href"])
    assert graph.status_code == 200
    selection = linked["selection"]
    assert selection.graph_works == selection.total  # the survey's own work is not among them
    assert len(selection.nodes) == min(selection.total, linked_views.GRAPH_NODES_SHOWN)


@pytest.mark.django_db
def test_it_says_when_the_graph_draws_only_the_most_cited(client, survey):
    html = client.get("/works/").content.decode()
    assert "the 60 most cited within the selection drawn" in html
    assert '<a href="/graph/">This selection on the graph page</a>' in html
    narrow = client.get("/works/?category=net-pipe&era=all").content.decode()
    assert "most cited within the selection drawn" not in narrow


@pytest.mark.django_db
def test_it_links_level_and_section_counts_adding_their_filter(client, survey):
    sections = client.get("/works/?level=net&year_min=2015&page_size=5&page=2").context["linked"][
        "sections"
    ]
    # The level's sections, each link adding its category to the filters (the page dropped).
    assert sections and all(
        dict(parse_qsl(urlsplit(section["href"]).query)).keys()
        == {"level", "year_min", "page_size", "category"}
        for section in sections
    )
    for section in sections:
        params = dict(parse_qsl(urlsplit(section["href"]).query))
        assert section["count"] == api_count(client, params), section["label"]


@pytest.mark.django_db
def test_it_renders_filtered_works_pages_in_constant_queries(client, django_assert_num_queries):
    ops, net = make_category("ops"), make_category("net")
    works = [make_work(f"w{i}", year=2010 + i % 5, survey_ref=i + 1) for i in range(30)]
    for index, work in enumerate(works):
        make_assignment(work, ops if index % 2 else net)
        if index:
            make_citation(work, works[index - 1])
    # The graph, the levels, the tree's categories (of each era's list), the categories by code
    # and the tree's rows (a level's subtree): kept per version.
    client.get("/works/?level=ops&page_size=7")
    client.get("/works/?level=ops&era=all")
    # 1 the version, 2-3 facets, 4 the category tree's counts, 5 the selected keys (all the
    # views), 6 the page of works, 7 their authors (the selects' options are kept per version
    # too). Whatever the page size or the number of works selected.
    queries = (
        "level=ops",
        "level=net&page_size=3",
        "level=ops&year_min=2012&evidence=confirmed",
        "level=net&era=all",
    )
    for query in queries:
        with django_assert_num_queries(7):
            assert client.get(f"/works/?{query}").status_code == 200


@pytest.mark.django_db
def test_it_shows_the_section_timeline_on_its_hub(client, survey):
    hub = client.get("/categories/net-pipe/")
    links = year_links(hub.content.decode())
    assert links
    works = client.get("/works/?category=net-pipe&era=all").context["linked"]["selection"]
    for href, year in links:
        assert dict(parse_qsl(urlsplit(href).query)) == {
            "category": "net-pipe",
            "era": "all",
            "year_min": str(year),
            "year_max": str(year),
        }
        assert works.years[year] == api_count(
            client, {"category": "net-pipe", "era": "all", "year_min": year, "year_max": year}
        )


@pytest.mark.django_db
def test_it_counts_a_big_selection_in_the_database_like_the_walk(client, survey, monkeypatch):
    query = "/works/?era=all&year_min=2012"
    walked = client.get(query).context["linked"]["selection"]
    monkeypatch.setattr(linked_views, "MAX_WORKS_WALKED", 10)
    response = client.get(f"{query}&page_size=20")  # another URL: not the cached answer
    counted = response.context["linked"]["selection"]
    assert (counted.walked, walked.walked) == (False, True)
    assert (counted.total, counted.years, counted.stacks) == (
        walked.total,
        walked.years,
        walked.stacks,
    )
    html = response.content.decode()
    assert "not drawn here for more than 10 works" in html
    assert '<a href="/graph/?era=all&amp;year_min=2012">' in html
    bars = [year for _, year in year_links(html)]
    assert bars == [year for _, year in year_links(client.get(query).content.decode())]
