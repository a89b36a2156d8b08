"""The citation graph per era: the survey's graph by default (its figures unchanged), the works
after the survey on request, forward snowballing from survey works into later ones, and the
later works' edge coverage stated on its own."""

import re

import pytest
from django.utils.html import escape

from catalogue.constants import SURVEY_KEY as SURVEY

AFTER = 106


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "nodes", "evidence", "eras"),
    [
        ("", 269, 680, {"survey"}),
        ("era=survey", 269, 680, {"survey"}),
        ("era=after", AFTER, 0, {"after"}),
        ("era=all", 269 + AFTER, 680, {"survey", "after"}),
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
    # Issue 45: no edge from a later work rests on its own reference list yet (the readers'
    # notes were withdrawn), so era=all reaches the same works as the survey alone.
    reached = {work["key"] for work in later["rounds"][1]["works"]}
    assert reached == {w["key"] for w in survey_only["rounds"][1]["works"]}
    html = client.get(
        "/snowball/?seeds=dean2012large&direction=forward&rounds=1&era=all"
    ).content.decode()
    assert "/works/jia2019beyond/" not in html


@pytest.mark.django_db
def test_it_states_the_coverage_of_later_works_apart_from_the_survey(client, survey):
    report = client.get("/api/data-quality/").json()
    assert report["coverage"]["references"] == 269
    assert report["coverage"]["references_with_edges"] == 140
    assert report["coverage"]["edges_among_references"] == 672
    assert report["after_survey"] == {
        "works": AFTER,
        # Issue 45: the projects' credit lists and READMEs (14 edges) and the readers' notes
        # (16 edges, no citing paper's own list readable) withdrawn.
        "citing_works": 0,
        "edges": 0,
        "edges_to_survey": 0,
        "edges_among_after": 0,
        "survey_works_cited": 0,
        "provenances": {},
    }
    assert "140 of 269" in client.get("/data-quality/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("key", "count"),
    [("dubey2024llama", 3), ("sergeev2018horovod", 3), ("dean2012large", 3), (SURVEY, 1)],
)
def test_a_work_pages_graph_links_open_in_its_era(client, survey, key, count):
    # A later work is in no graph of the survey's era: its page's links ask for both eras.
    # The survey's node is hidden unless asked for, and no snowball starts from it.
    html = client.get(f"/works/{key}/").content.decode()
    links = re.findall(r'href="(/(?:graph|snowball)/\?[^"]+)"', html)
    assert len(links) == count
    for link in links:
        assert client.get(link.replace("&amp;", "&")).status_code == 200, link


@pytest.mark.django_db
def test_the_graphs_ego_links_keep_the_era_shown(client, survey):
    html = client.get("/graph/?era=after").content.decode()
    links = re.findall(r'href="(/graph/\?ego=[^"]+)"', html)
    assert links and all(link.endswith("&amp;era=after") for link in links)
    assert client.get(links[0].replace("&amp;", "&")).status_code == 200


LATER_EGO = "ego: 'dubey2024llama' is a work after the survey; add era=after or era=all"
SURVEY_EGO = "ego: 'dean2012large' is a work in the survey; add era=survey or era=all"
LATER_SEED = (
    "'dubey2024llama' is a work after the survey; add era=after or era=all to start from it"
)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("/api/graph/?ego=dubey2024llama", 400, f"{LATER_EGO} to centre on it"),
        ("/api/graph/?ego=dean2012large&era=after", 400, f"{SURVEY_EGO} to centre on it"),
        ("/api/snowball/?seeds=dubey2024llama", 400, f"seeds: {LATER_SEED}"),
        (
            "/api/snowball/?seeds=dubey2024llama,ghost",
            404,
            f"seeds: unknown work key(s): ghost; {LATER_SEED}",
        ),
    ],
)
def test_a_work_of_another_era_is_named_as_such(client, survey, url, status, message):
    # A key that names a work, only not in the era shown, is a query to correct (400); one
    # that names no work makes the query a missing resource (404, tests/graph/test_api.py).
    response = client.get(url)
    body = response.json()
    errors = [message for messages in body["errors"].values() for message in messages]
    assert (response.status_code, errors or [body["detail"]]) == (status, [message])
    page = client.get(url.removeprefix("/api"))
    assert page.status_code == 400 and escape(message) in page.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("/graph/?ego=dubey2024llama&depth=1&era=after", "ego"),
        ("/snowball/?seeds=dubey2024llama&rounds=1&era=all", "seeds"),
    ],
)
def test_the_era_switch_leads_to_pages_that_open(client, survey, url, key):
    # Switching to the survey's era drops an ego or seeds from later works (that page would
    # only say they are not in it); the other parameters are kept.
    html = client.get(url).content.decode()
    switch = re.search(r'<p class="era-switch">(.*?)</p>', html, re.S)[1]
    links = [link.replace("&amp;", "&") for link in re.findall(r'href="\?([^"]+)"', switch)]
    assert links
    for link in links:
        assert ("dubey2024llama" in link) != link.endswith("era=survey"), link
        assert client.get(f"{url.split('?')[0]}?{link}").status_code == 200, link
