"""The citation graph per era: the survey's graph by default (its figures unchanged), the works
after the survey on request, forward snowballing from survey works into later ones, and the
later works' edge coverage stated on its own."""

import re

import pytest

AFTER = 102


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "nodes", "evidence", "eras"),
    [
        ("", 269, 680, {"survey"}),
        ("era=survey", 269, 680, {"survey"}),
        ("era=after", AFTER, 13, {"after"}),
        ("era=all", 269 + AFTER, 680 + 30, {"survey", "after"}),
    ],
)
def test_it_draws_each_era_of_the_graph(client, survey, query, nodes, evidence, eras):
    # One edge per piece of evidence in the export (680 rows among the survey's references).
    document = client.get(f"/api/graph/?format=json&{query}").json()
    assert (len(document["nodes"]), len(document["edges"])) == (nodes, evidence)
    assert {node["era"] for node in document["nodes"]} == eras
    page = client.get(f"/graph/?{query}")
    assert page.status_code == 200 and page.context["era"] == (query[4:] or "survey")


@pytest.mark.django_db
def test_it_snowballs_forward_from_a_survey_work_into_later_works(client, survey):
    forward = "/api/snowball/?seeds=dean2012large&direction=forward&rounds=1"
    survey_only = client.get(forward).json()
    later = client.get(f"{forward}&era=all").json()
    reached = {work["key"]: work["era"] for work in later["rounds"][1]["works"]}
    assert {"jia2019beyond": "after", "shazeer2018mesh": "after"}.items() <= reached.items()
    assert not {w["key"] for w in survey_only["rounds"][1]["works"]} & {
        "jia2019beyond",
        "shazeer2018mesh",
    }
    html = client.get(
        "/snowball/?seeds=dean2012large&direction=forward&rounds=1&era=all"
    ).content.decode()
    assert "after the survey" in html and "/works/jia2019beyond/" in html


@pytest.mark.django_db
def test_it_states_the_coverage_of_later_works_apart_from_the_survey(client, survey):
    report = client.get("/api/data-quality/").json()
    assert report["coverage"]["references"] == 269
    assert report["coverage"]["references_with_edges"] == 140
    assert report["coverage"]["edges_among_references"] == 672
    assert report["after_survey"] == {
        "works": AFTER,
        "citing_works": 6,
        "edges": 30,
        "edges_to_survey": 17,
        "edges_among_after": 13,
        "survey_works_cited": 15,
        "provenances": {"reference-list-note": 30},
    }
    assert "140 of 269" in client.get("/data-quality/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["dubey2024llama", "sergeev2018horovod", "dean2012large"])
def test_a_work_pages_graph_links_open_in_its_era(client, survey, key):
    # A later work is in no graph of the survey's era: its page's links ask for both eras.
    html = client.get(f"/works/{key}/").content.decode()
    links = re.findall(r'href="(/(?:graph|snowball)/\?[^"]+)"', html)
    assert len(links) == 3
    for link in links:
        assert client.get(link.replace("&amp;", "&")).status_code == 200, link


@pytest.mark.django_db
def test_the_graphs_ego_links_keep_the_era_shown(client, survey):
    html = client.get("/graph/?era=after").content.decode()
    links = re.findall(r'href="(/graph/\?ego=[^"]+)"', html)
    assert links and all(link.endswith("&amp;era=after") for link in links)
    assert client.get(links[0].replace("&amp;", "&")).status_code == 200
