"""Finding things as a person would: suggestions, results first, pickers in words, sources in the
reader's words, one palette, grammar, every API endpoint listed."""

import json
import re

import pytest

from explorer.web.palette import LEVEL_COLOURS
from tests.helpers import make_work

JARGON = ["FACTS.md", "ref-sections.csv", "likely_sections"]


@pytest.fixture
def client_survey(client, survey):
    return client


def test_it_suggests_works_as_a_search_is_typed(client_survey):
    html = client_survey.get("/suggest/?q=stacking+pipel&box=home-q").content.decode()
    assert 'id="home-q-1"' in html
    assert 'data-key="deng2012scalable"' in html
    assert re.search(r"matched in: [^<]*<mark>Pipelining</mark>", html)  # its category
    assert 'href="/works/?q=stacking%20pipel"' in html  # "all works matching"
    picking = client_survey.get("/suggest/?q=pipel&mode=pick").content.decode()
    assert 'href="/works/?q=' not in picking


def test_it_says_when_nothing_is_suggested(client_survey):
    assert "No work matches “zzzqqq”." in client_survey.get("/suggest/?q=zzzqqq").content.decode()
    assert client_survey.get("/suggest/?q=").content.decode().strip() == ""


def test_it_suggests_in_json_too(client, db):
    make_work("recht2011hogwild", title="{HOGWILD}!: A Lock-Free Approach", year=2011)
    document = client.get("/api/suggest/?q=lock-fr").json()
    assert document == [
        {
            "key": "recht2011hogwild",
            "title": "HOGWILD!: A Lock-Free Approach",
            "title_html": "HOGWILD!: A <mark>Lock</mark>-<mark>Free</mark> Approach",
            "authors": ["J. Smith"],
            "year": 2011,
            "url": "http://testserver/works/recht2011hogwild/",
        }
    ]
    assert client.get("/api/suggest/?q=x&box=1").status_code == 400  # unknown parameter
    assert client.get(f"/api/suggest/?q={'a' * 201}").status_code == 400


def test_it_puts_the_results_first_with_removable_chips(client_survey):
    html = client_survey.get("/works/?q=pipelined&level=net").content.decode()
    assert html.index('class="summary"') < html.index('<ol class="works">')
    assert html.index('<ol class="works">') < html.index('class="filters-panel"')
    chips = re.search(r'<ul class="chips".*?</ul>', html, re.S).group(0)
    assert re.findall(r'<a href="([^"]*)"', chips) == ["?level=net", "?q=pipelined", "/works/"]
    assert "“pipelined”" in chips and "Parallelism level: §6 Concurrency in networks" in chips
    assert re.search(r"matched in: [^<]*<mark>Pipelining</mark>", html)


def test_it_speaks_of_one_work_in_the_singular(client_survey):
    html = client_survey.get("/works/?q=hogwild+lock").content.decode()
    assert "<strong>1</strong> work matches" in html
    html = client_survey.get("/works/?q=pipelining").content.decode()
    assert "<strong>18</strong> works match" in html


def test_it_offers_categories_in_tree_order_with_section_numbers(client_survey):
    html = client_survey.get("/works/").content.decode()
    select = re.search(r'<select name="category".*?</select>', html, re.S).group(0)
    labels = re.findall(r"<option[^>]*>([^<]*)</option>", select)
    assert labels[:5] == [
        "any category",
        "§5 Concurrency in operators",
        "\u2003§5.1 Performance modeling",
        "\u2003§5.2 Fully connected layers",
        "\u2003§5.3 Convolution",
    ]
    for page in ("/graph/", "/snowball/"):
        html = client_survey.get(page).content.decode()
        select = re.search(r'<select name="category".*?</select>', html, re.S).group(0)
        assert re.findall(r"<option[^>]*>([^<]*)</option>", select)[:5] == labels[:5], page


def test_it_names_orderings_and_kinds_in_words(client_survey):
    html = client_survey.get("/works/").content.decode()
    assert '<option value="-year">year, newest first</option>' in html
    assert '<option value="inproceedings">conference paper</option>' in html
    assert ">-ref<" not in html


def test_it_explains_the_sources_and_uses_no_file_or_column_names(client_survey):
    sources = client_survey.get("/sources/").content.decode()
    for anchor in ("s1", "s2", "facts", "sections", "reference-list", "citations"):
        assert f'id="{anchor}"' in sources
    work = client_survey.get("/works/deng2012scalable/").content.decode()
    assert (
        'confirmed by a source quoting the paper (<a href="/sources/#s1" '
        'title="reading notes on arXiv v2 that quote the paper">S1</a>); '
        "likely section 6.3 (Deep Stacking Networks)"
    ) in work
    pages = [
        "/",
        "/works/",
        "/works/deng2012scalable/",
        "/works/bennun2018demystifying/",
        "/categories/",
        "/numbers/",
        "/costs/",
        "/techniques/",
        "/snowball/",
        "/sources/",
        "/demos/",
        "/demos/convolution-algorithms/",
    ]
    for page in pages:
        html = client_survey.get(page).content.decode()
        assert [word for word in JARGON if word in html] == [], page


def test_it_offers_copy_buttons_for_the_citation_and_the_bibtex(client_survey):
    html = client_survey.get("/works/deng2012scalable/").content.decode()
    assert '<button type="button" class="copy-button" data-copy="bibtex">' in html
    assert '<button type="button" class="copy-button" data-copy="citation">' in html
    assert (
        '<p id="citation" class="citation">L. Deng, D. Yu, J. Platt (2012). Scalable stacking and '
        "learning for building deep architectures."
    ) in html


def test_it_colours_each_level_alike_everywhere(client_survey):
    numbers = client_survey.get("/numbers/").content.decode()
    graph = client_survey.get("/api/graph/?format=json").json()
    for code, colour in LEVEL_COLOURS.items():
        assert f'"color": "{colour}"' in numbers, code
    graph_page = client_survey.get("/graph/").content.decode()
    for code, colour in LEVEL_COLOURS.items():
        assert f'"code": "{code}"' in graph_page and colour in graph_page, code
    assert graph["nodes"]  # the JSON twin draws nothing; colours are the page's


def test_it_lists_every_endpoint_at_the_api_root(client, db):
    paths = [endpoint["path"] for endpoint in client.get("/api/").json()["endpoints"]]
    assert sorted(paths) == sorted(
        [
            "/api/",
            "/api/works/{key}/related/",
            "/api/graph/",
            "/api/snowball/",
            "/api/data-quality/",
            "/api/cost-models/{pk}/evaluate/",
            "/api/costs/plots/{name}/",
            "/api/demos/",
            "/api/demos/{slug}/",
            "/api/demos/{slug}/run/",
            "/api/demos/{slug}/runs/",
            "/api/demos/runs/{pk}/",
            "/api/suggest/",
            "/api/export/",
            "/api/works/",
            "/api/works/{key}/",
            "/api/categories/",
            "/api/categories/{slug}/",
            "/api/authors/",
            "/api/authors/{pk}/",
            "/api/citations/",
            "/api/citations/{pk}/",
            "/api/techniques/",
            "/api/techniques/{slug}/",
            "/api/cost-models/",
            "/api/cost-models/{pk}/",
            "/api/planner/",
            "/api/planner/accuracy/",
            "/api/results/",
            "/api/results/csv/",
            "/api/devices/",
            "/api/data/",
            "/api/results/mlperf/",
            "/api/results/mlperf/csv/",
            "/api/results/mlperf/systems/{pk}/",
            "/api/results/mlperf/systems/{pk}/{benchmark}/",
            "/api/schema/",
            "/api/docs/",
        ]
    )


def test_it_names_the_most_cited_works_on_the_graph(client_survey):
    html = client_survey.get("/graph/").content.decode()
    data = json.loads(re.search(r'id="graph-data"[^>]*>(.*?)</script>', html, re.S).group(1))
    labelled = [node for node in data["nodes"] if node.get("label")]
    # Of the 15 best ranked, those whose label fits beside the others (tests/graph/test_labels.py)
    assert 3 <= len(labelled) <= 15
    most_cited = max(data["nodes"], key=lambda node: node["in_degree"])
    assert most_cited.get("label")
    assert all(len(node["label"]) <= 29 for node in labelled)
