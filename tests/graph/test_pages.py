"""The /graph/, /snowball/ and /data-quality/ pages: with the real survey data, with bad input,
and in a constant number of queries."""

import csv
import io
import json
import re

import pytest

from catalogue.bibtex import display_text
from catalogue.models import Work
from explorer.graph.documents import CAVEAT, title_text
from tests.helpers import clear_caches, make_assignment, make_category, make_citation, make_work

SURVEY = "bennun2018demystifying"


@pytest.fixture(autouse=True)
def empty_cache():
    clear_caches()
    yield
    clear_caches()


@pytest.fixture
def small(db):
    survey = make_work(SURVEY, title="Demystifying", year=2018)
    alexnet = make_work("alexnet", title="ImageNet Classification", year=2012, survey_ref=1)
    resnet = make_work("resnet", title="Deep Residual Learning", year=2016, survey_ref=2)
    lenet = make_work("lenet", title="Gradient-Based Learning", year=1998, survey_ref=3)
    make_assignment(resnet, make_category("ops"))
    for work in (alexnet, resnet, lenet):
        make_citation(survey, work, provenance="survey-reference-list")
    make_citation(resnet, alexnet)
    return {"alexnet": alexnet, "resnet": resnet, "lenet": lenet}


def scripts_are_external_or_data(html: str) -> bool:
    """The CSP forbids inline scripts: every <script> loads a file or holds JSON data."""
    tags = re.findall(r"<script[^>]*>", html)
    return bool(tags) and all("src=" in t or 'type="application/json"' in t for t in tags)


def drawing(response) -> dict:
    """The graph the page draws: the JSON of its graph-data element."""
    return json.loads(response.context["plot_json"])


# --- With the real survey data ------------------------------------------------------------------


def test_it_draws_the_real_graph_and_says_how_thin_it_is(survey, client):
    response = client.get("/graph/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "140 of 269" in html
    assert "672" in html and "680 pieces of evidence" in html
    assert "a missing edge does not mean &quot;does not cite&quot;" in html
    assert scripts_are_external_or_data(html)
    assert '<script id="graph-data" type="application/json">' in html
    plot = drawing(response)
    assert len(plot["nodes"]) == 269 and len(plot["edges"]) == 672
    assert SURVEY not in {n["key"] for n in plot["nodes"]}
    alexnet = next(n for n in plot["nodes"] if n["key"] == "krizhevsky2012imagenet")
    assert alexnet["in_degree"] == 42  # distinct citing references
    assert alexnet["url"] == "/works/krizhevsky2012imagenet/"
    assert sum(1 for n in plot["nodes"] if n["y"] < -0.8) == 129  # works without edges


def test_it_shows_the_survey_node_on_request(survey, client):
    plot = drawing(client.get("/graph/?survey=1"))
    assert len(plot["nodes"]) == 270 and len(plot["edges"]) == 672 + 269


def test_it_draws_an_ego_view(survey, client):
    response = client.get("/graph/?ego=dean2012large&depth=1&direction=backward")
    assert response.status_code == 200
    plot = drawing(response)
    assert len(plot["nodes"]) == 13  # DistBelief and the 12 works it is recorded to cite
    assert [n["key"] for n in plot["nodes"] if n["centre"]] == ["dean2012large"]
    assert "Ego view of" in response.content.decode()


def test_it_shows_titles_as_the_bibtex_display_does(survey):
    titles = list(Work.objects.values_list("title", flat=True))
    assert [title_text(t) for t in titles] == [display_text(t) for t in titles]


def test_it_filters_the_graph_by_the_works_facets(survey, client):
    plot = drawing(client.get("/graph/?level=train&year_min=2015"))
    assert plot["nodes"]
    assert all("train" in n["levels"] and n["year"] >= 2015 for n in plot["nodes"])


def test_it_replays_snowballing_from_the_seminal_works(survey, client):
    response = client.get("/snowball/")
    assert response.status_code == 200
    html = response.content.decode()
    document = response.context["document"]
    assert len(document["seeds"]) == 12
    assert document["direction"] == "backward" and len(document["rounds"]) == 3
    assert document["rounds"][-1]["collected"] == document["collected"] > 12
    for word in ("seed", "backward", "forward", "cited by", "citing"):
        assert word in html
    assert "tracks back recursively" in html
    assert scripts_are_external_or_data(html)
    assert '<script id="snowball-growth" type="application/json">' in html


def test_it_replays_with_keywords_and_an_inclusion_filter(survey, client):
    url = "/snowball/?seeds=dean2012large&direction=both&rounds=2&keywords=parameter+server"
    response = client.get(url + "&year_min=2010")
    assert response.status_code == 200
    document = response.context["document"]
    hits = [w for w in document["rounds"][0]["works"] if w["reached_via"][0]["kind"] == "keyword"]
    assert hits and all("parameter server" in w["title"].lower() for w in hits)
    later = [w for r in document["rounds"][1:] for w in r["works"]]
    assert all(w["year"] >= 2010 for w in later)
    assert "keywords are matched against titles only" in response.content.decode()


def test_it_exports_the_collected_set_and_the_replay(survey, client):
    query = "/snowball/?seeds=recht2011hogwild&rounds=1"
    document = client.get("/api/snowball/?seeds=recht2011hogwild&rounds=1").json()
    keys = {w["key"] for r in document["rounds"] for w in r["works"]}

    bib = client.get(query + "&export=bibtex")
    assert bib["Content-Type"] == "application/x-bibtex; charset=utf-8"
    assert set(re.findall(r"^@\w+\{([^,]+),", bib.content.decode(), re.M)) == keys

    rows = list(csv.DictReader(io.StringIO(client.get(query + "&export=csv").content.decode())))
    assert {row["key"] for row in rows} == keys
    assert rows[0]["reached_via"] == "seed"
    assert all(row["reached_via"] == "cited by recht2011hogwild" for row in rows[1:])

    replay = client.get(query + "&export=json")
    assert replay["Content-Disposition"] == 'attachment; filename="snowball-replay.json"'
    assert json.loads(replay.content) == document


def test_it_lists_works_without_edges_on_the_data_quality_page(survey, client):
    response = client.get("/data-quality/")
    assert response.status_code == 200
    report = response.context["report"]
    assert len(report["works_without_edges"]) == 129
    assert report["coverage"]["provenances"] == {
        "citing-paper-bibliography": 79,
        "reference-list-note": 600,
        "secondary-index": 1,
        "survey-reference-list": 269,
    }
    html = response.content.decode()
    assert "import_citations" in html and "140 of 269" in html


def test_it_links_the_pages_from_the_navigation(survey, client):
    html = client.get("/").content.decode()
    for url in ('href="/graph/"', 'href="/snowball/"', 'href="/data-quality/"'):
        assert url in html


# --- Bad input: 400 with a message, never 500 ---------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("/graph/?level=nope", "level: unknown code &#x27;nope&#x27;"),
        ("/graph/?category=nope", "category: unknown code &#x27;nope&#x27;"),
        ("/graph/?year_min=19x0", "year_min: Enter a number."),
        ("/graph/?depth=9", "depth must be 1 or 2 or 3, not &#x27;9&#x27;"),
        ("/graph/?direction=up", "direction must be backward or forward or both"),
        ("/graph/?size=huge", "size must be indegree or pagerank"),
        ("/graph/?survey=2", "survey must be 0 or 1"),
        ("/graph/?ego=nope", "ego: no work with key &#x27;nope&#x27;"),
        (f"/graph/?ego={SURVEY}", "add survey=1 to centre on it"),
        ("/graph/?levle=ops", "levle: unknown parameter &#x27;levle&#x27; (allowed: depth,"),
        ("/graph/?ordering=year", "ordering: unknown parameter &#x27;ordering&#x27;"),
        ("/snowball/?rounds=6", "rounds must be a whole number from 1 to 5, not &#x27;6&#x27;"),
        ("/snowball/?rounds=0", "rounds must be a whole number from 1 to 5, not &#x27;0&#x27;"),
        ("/snowball/?seeds=ghost,alexnet", "seeds: unknown work key(s): ghost"),
        ("/snowball/?export=pdf", "export must be bibtex or csv or json, not &#x27;pdf&#x27;"),
        ("/snowball/?direction=sideways", "direction must be backward or forward or both"),
        ("/data-quality/?x=1", "x: unknown parameter &#x27;x&#x27; (allowed: none)"),
    ],
)
def test_it_refuses_bad_parameters_with_a_message(small, client, url, message):
    response = client.get(url)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    assert "a missing edge does not mean" in html


# --- Query counts ---------------------------------------------------------------------------------


def test_it_draws_the_graph_page_in_constant_queries(small, client, django_assert_num_queries):
    # The catalogue version is read once per request (explorer/web/middleware.py) and keys the
    # response cache and the graph:
    # 1. categories (taxonomy: names, levels, colours); 2. graph version;
    # 3. works with their category codes; 4. citations
    with django_assert_num_queries(4):
        assert client.get("/graph/").status_code == 200
    # cached graph: 1. categories; 2. graph version
    with django_assert_num_queries(2):
        assert client.get("/graph/?ego=resnet&depth=2&size=pagerank").status_code == 200
    make_work("another", title="Another", survey_ref=4)
    make_citation(small["lenet"], small["alexnet"])
    # more works and edges, same queries (cold again: the version changed)
    with django_assert_num_queries(4):
        assert client.get("/graph/?survey=1").status_code == 200


def test_it_replays_on_the_page_in_constant_queries(small, client, django_assert_num_queries):
    # The catalogue version is read once per request (explorer/web/middleware.py) and keys the
    # response cache and the graph:
    # 1. categories; 2. graph version; 3. works with their category codes; 4. citations
    with django_assert_num_queries(4):
        assert client.get("/snowball/?seeds=resnet&direction=both").status_code == 200
    # cached graph: 1. categories; 2. graph version
    with django_assert_num_queries(2):
        assert client.get("/snowball/?seeds=alexnet&rounds=5&keywords=deep").status_code == 200


def test_it_shows_data_quality_in_constant_queries(small, client, django_assert_num_queries):
    # The catalogue version is read once per request (explorer/web/middleware.py) and keys the
    # response cache and the graph:
    # 1. graph version; 2. works with their category codes; 3. citations; 4-7 the statuses of
    # cost models and categories, the people and the spellings left apart, 8 the works'
    # identifiers and their sources (fidelity_report), 9-11 the sources of results, category
    # assignments and citation edges (evidence_report)
    with django_assert_num_queries(11):
        response = client.get("/data-quality/")
    assert response.status_code == 200
    # the whole response is cached: 1. the catalogue version
    with django_assert_num_queries(1):
        again = client.get("/data-quality/")
    assert again["X-Cache"] == "hit" and again.content == response.content
    assert [w["key"] for w in response.context["report"]["works_without_edges"]] == ["lenet"]
    assert CAVEAT.split(":")[0] in response.content.decode()


def test_data_quality_shows_a_curators_edit_at_once(small, client):
    # The page and its JSON twin are kept per catalogue version: a new edge is a new version.
    assert "References with no recorded edge (1)" in client.get("/data-quality/").content.decode()
    assert len(client.get("/api/data-quality/").json()["works_without_edges"]) == 1
    make_citation(small["lenet"], small["alexnet"])
    assert "References with no recorded edge (0)" in client.get("/data-quality/").content.decode()
    assert client.get("/api/data-quality/").json()["works_without_edges"] == []
