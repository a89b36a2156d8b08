"""The JSON API: whole documents on small data, filters, errors and query counts."""

import pytest
from rest_framework.authtoken.models import Token

from catalogue.models import Category, Citation
from tests.helpers import (
    make_assignment,
    make_category,
    make_citation,
    make_cost_model,
    make_technique,
    make_work,
)


@pytest.fixture
def small_catalogue(db):
    ops = make_category("ops", name="Concurrency in operators", section="5", order=0)
    conv = make_category("ops-conv", parent=ops, name="Convolution", section="5.3")
    train = make_category("train", name="Concurrency in training", section="7", order=2)
    lavin = make_work(
        "lavin2016fast",
        authors=("A. Lavin", "S. Gray"),
        title="Fast Algorithms for Convolutional Neural Networks",
        year=2016,
        entry_type="inproceedings",
        booktitle="CVPR",
        venue="CVPR",
        survey_ref=140,
    )
    hogwild = make_work(
        "recht2011hogwild",
        authors=("B. Recht",),
        authors_truncated=True,
        title="{HOGWILD}!: A Lock-Free Approach",
        year=2011,
        survey_ref=205,
        arxiv_id="1106.5730",
    )
    make_assignment(lavin, conv, "confirmed")
    make_assignment(hogwild, train, "topic-inferred")
    make_citation(lavin, hogwild)
    return {"lavin": lavin, "hogwild": hogwild, "conv": conv}


LAVIN_LIST_ITEM = {
    "key": "lavin2016fast",
    "title": "Fast Algorithms for Convolutional Neural Networks",
    "title_bibtex": "Fast Algorithms for Convolutional Neural Networks",
    "year": 2016,
    "authors": ["A. Lavin", "S. Gray"],
    "authors_truncated": False,
    "entry_type": "inproceedings",
    "venue": "CVPR",
    "survey_ref": 140,
    "era": "survey",
    "source_url": "",
    "arxiv_id": "",
    "doi": "",
    "url": "",
    "openalex_id": "",
    "categories": [
        {
            "code": "ops-conv",
            "name": "Convolution",
            "section": "5.3",
            "extends": "",
            "evidence": "confirmed",
            "source_note": "test note",
            "alternatives": "",
        }
    ],
    "api_url": "http://testserver/api/works/lavin2016fast/",
    "html_url": "http://testserver/works/lavin2016fast/",
}


def test_it_lists_works_filtered_by_level_as_a_whole_document(client, small_catalogue):
    response = client.get("/api/works/?level=ops")
    assert response.status_code == 200
    assert response.json() == {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [LAVIN_LIST_ITEM],
    }


def test_it_returns_one_work_with_its_citations_and_bibtex(client, small_catalogue):
    document = client.get("/api/works/recht2011hogwild/").json()
    assert document["title"] == "HOGWILD!: A Lock-Free Approach"
    assert document["title_bibtex"] == "{HOGWILD}!: A Lock-Free Approach"
    assert document["cites"] == []
    assert document["cited_by"] == [
        {
            "key": "lavin2016fast",
            "provenance": "citing-paper-bibliography",
            "evidence_source": "https://example.org/refs",
            "evidence_excerpt": "{HOGWILD}!: A Lock-Free Approach",
        }
    ]
    assert document["bibtex"] == (
        "@article{recht2011hogwild,\n"
        "  author = {B. Recht and others},\n"
        "  title = {{HOGWILD}!: A Lock-Free Approach},\n"
        "  year = {2011},\n"
        "  eprint = {1106.5730},\n"
        "  archiveprefix = {arXiv},\n"
        "  surveyref = {205}\n"
        "}\n"
    )


def test_it_cuts_long_citation_lists_and_says_how_many_there_are(
    client, small_catalogue, settings, django_assert_num_queries
):
    settings.CITATIONS_SHOWN = 2
    hogwild = small_catalogue["hogwild"]
    for index in range(2):
        make_citation(make_work(f"later{index}", survey_ref=300 + index), hogwild)
    # 1 the catalogue version, 2 the work, 3 authorships, 4 assignments, 5 techniques, 6 the
    # first cited works, 7 the first citing works, 8 the count of every citing work (cut list)
    with django_assert_num_queries(8):
        document = client.get("/api/works/recht2011hogwild/").json()
    assert [edge["key"] for edge in document["cited_by"]] == ["lavin2016fast", "later0"]
    assert (document["cited_by_count"], document["cites_count"]) == (3, 0)
    assert document["cited_by_url"] == "http://testserver/api/citations/?cited=recht2011hogwild"
    assert document["cites_url"] == "http://testserver/api/citations/?citing=recht2011hogwild"
    assert client.get(document["cited_by_url"]).json()["count"] == 3
    page = client.get("/works/recht2011hogwild/").content.decode()
    assert "Cited by (3)" in page and "The first 2; all 3 in the API" in page


def test_it_gives_the_category_tree_with_subtree_counts(client, small_catalogue):
    tree = client.get("/api/categories/").json()
    assert tree == [
        {
            "slug": "ops",
            "name": "Concurrency in operators",
            "section": "5",
            "status": "confirmed",
            "status_label": "confirmed",
            "extends": "",
            "description": "",
            "work_count": 1,
            "alternative_count": 0,
            "children": [
                {
                    "slug": "ops-conv",
                    "name": "Convolution",
                    "section": "5.3",
                    "status": "confirmed",
                    "status_label": "confirmed",
                    "extends": "",
                    "description": "",
                    "work_count": 1,
                    "alternative_count": 0,
                    "children": [],
                }
            ],
        },
        {
            "slug": "train",
            "name": "Concurrency in training",
            "section": "7",
            "status": "confirmed",
            "status_label": "confirmed",
            "extends": "",
            "description": "",
            "work_count": 1,
            "alternative_count": 0,
            "children": [],
        },
    ]


@pytest.mark.parametrize(
    "query, keys",
    [
        ("category=ops-conv", ["lavin2016fast"]),
        ("year_min=2012", ["lavin2016fast"]),
        ("year_max=2011", ["recht2011hogwild"]),
        ("q=lock-free", ["recht2011hogwild"]),
        ("q=gray", ["lavin2016fast"]),
        ("evidence=topic-inferred", ["recht2011hogwild"]),
        ("entry_type=inproceedings", ["lavin2016fast"]),
        ("ordering=-year", ["lavin2016fast", "recht2011hogwild"]),
        ("ordering=year", ["recht2011hogwild", "lavin2016fast"]),
        ("has_cost_model=true", []),
    ],
)
def test_it_filters_works(client, small_catalogue, query, keys):
    response = client.get(f"/api/works/?{query}")
    assert response.status_code == 200
    assert [w["key"] for w in response.json()["results"]] == keys


def test_it_ranks_title_matches_first(client, small_catalogue):
    make_work("other2015", title="Something else", abstract="about convolutional networks")
    results = client.get("/api/works/?q=convolutional").json()["results"]
    assert [w["key"] for w in results] == ["lavin2016fast", "other2015"]


@pytest.mark.parametrize(
    "query, status, message",
    [
        ("level=zzz", 400, "unknown code 'zzz'"),
        ("year_min=abc", 400, "Enter a number"),
        ("page_size=100000", 400, "between 1 and 500"),
        ("page_size=0", 400, "between 1 and 500"),
        ("page=999", 404, "Invalid page"),
        ("levle=ops", 400, "unknown parameter 'levle'"),
        # A % in what the user sent is quoted, never taken for a format (it was a 500).
        ("level=a%25sb%25(x)d", 400, "unknown code 'a%sb%(x)d'"),
        ("category=%25", 400, "unknown code '%'"),
        ("a%25s=1", 400, "unknown parameter 'a%s'"),
        ("evidence=guess", 400, "guess"),
        ("ordering=nonsense", 400, "must be one of relevance, ref, -ref, year, -year, title"),
        ("page=abc", 400, '"page":["must be a whole number from 1, or last (got \'abc\')"]'),
    ],
)
def test_it_refuses_bad_input_with_a_clear_message(client, small_catalogue, query, status, message):
    response = client.get(f"/api/works/?{query}")
    assert response.status_code == status
    assert message in response.content.decode()


def test_it_answers_404_for_an_unknown_key(client, small_catalogue):
    assert client.get("/api/works/nosuchwork/").status_code == 404


def test_it_lists_works_in_constant_queries(client, small_catalogue, django_assert_num_queries):
    # One more query than the view itself makes: the catalogue version that keys the
    # response cache (explorer/web/middleware.py).
    for index in range(30):
        make_work(f"extra{index}", authors=("X. Y", f"Z. {index}"), survey_ref=index + 1)
    # The categories by code and the tree's rows (the subtree's codes): kept per version.
    client.get("/api/works/?page_size=1&level=ops")
    # 1 the count, 2 the page of works, 3 their authorships with authors, 4 their assignments
    # with categories
    with django_assert_num_queries(5):
        assert client.get("/api/works/?page_size=10&level=ops").status_code == 200
    with django_assert_num_queries(5):
        assert client.get("/api/works/?page_size=40&level=ops").status_code == 200
    # A search (the 30 extra works match): 1 the page of works with the count of all matches
    # (a window), 2 their authorships with authors, 3 their assignments with categories
    with django_assert_num_queries(4):
        assert client.get("/api/works/?page_size=10&q=deep").json()["count"] == 30
    with django_assert_num_queries(4):
        assert client.get("/api/works/?page_size=40&q=deep").status_code == 200


@pytest.mark.parametrize(
    "page, status, keys",
    [
        ("1", 200, ["extra0", "extra1"]),
        ("2", 200, ["extra2", "extra3"]),
        ("3", 200, ["extra4"]),
        ("last", 200, ["extra4"]),
        ("4", 404, None),
        ("0", 400, None),  # no page number: a 400 naming `page`
        ("-1", 400, None),
        ("x", 400, None),
        (str(10**30), 404, None),
    ],
)
@pytest.mark.parametrize("search", ["", "&q=extra"])
def test_it_counts_all_matches_on_every_page(client, db, page, status, keys, search):
    for index in range(5):
        make_work(f"extra{index}", title=f"Extra {index}", survey_ref=index + 1)
    response = client.get(f"/api/works/?page_size=2&page={page}{search}")
    assert response.status_code == status
    if keys is not None:
        document = response.json()
        assert document["count"] == 5
        assert [work["key"] for work in document["results"]] == keys
    elif status == 400:
        assert list(response.json()["errors"]) == ["page"]
    else:
        assert "Invalid page" in response.json()["detail"]


def test_it_counts_no_matches_as_zero(client, small_catalogue):
    document = client.get("/api/works/?q=nothingmatchesthis").json()
    assert (document["count"], document["results"], document["next"]) == (0, [], None)


def test_it_lists_citations_with_provenance(client, small_catalogue):
    document = client.get("/api/citations/?provenance=citing-paper-bibliography").json()
    assert document["count"] == 1
    assert document["results"][0] | {"id": 0} == {
        "id": 0,
        "citing": "lavin2016fast",
        "cited": "recht2011hogwild",
        "provenance": "citing-paper-bibliography",
        "evidence_source": "https://example.org/refs",
        "evidence_excerpt": "{HOGWILD}!: A Lock-Free Approach",
    }
    assert client.get("/api/citations/?provenance=rumour").status_code == 400


def test_it_refuses_anonymous_writes(client, small_catalogue):
    body = {"citing": "recht2011hogwild", "cited": "lavin2016fast", "provenance": "curator"}
    assert client.post("/api/citations/", body, content_type="application/json").status_code in (
        401,
        403,
    )
    assert Citation.objects.count() == 1


def test_it_lets_a_curator_add_an_edge_with_a_token(client, small_catalogue, curator):
    token = Token.objects.create(user=curator)
    body = {
        "citing": "recht2011hogwild",
        "cited": "lavin2016fast",
        "provenance": "curator",
        "evidence_source": "read in the paper",
    }
    headers = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    response = client.post("/api/citations/", body, content_type="application/json", **headers)
    assert response.status_code == 201, response.content
    self_citation = {**body, "cited": "recht2011hogwild"}
    refused = client.post(
        "/api/citations/", self_citation, content_type="application/json", **headers
    )
    assert refused.status_code == 400
    assert "cannot cite itself" in refused.content.decode()


def test_it_refuses_a_cost_model_with_an_unsafe_formula(client, small_catalogue, curator):
    technique = make_technique("conv-direct", small_catalogue["conv"])
    make_cost_model(technique)
    client.force_login(curator)
    body = {
        "technique": "conv-direct",
        "quantity": "work",
        "label": "Evil",
        "formula": "().__class__",
        "variables": [],
        "status": "confirmed",
    }
    response = client.post("/api/cost-models/", body, content_type="application/json")
    assert response.status_code == 400
    assert "formula" in response.json()["errors"]


@pytest.mark.parametrize(
    "export_format, marker",
    [
        ("bibtex", "@inproceedings{lavin2016fast,"),
        ("csv", "key,survey_ref,entry_type,title"),
        ("ris", "TY  - CONF"),
        ("csljson", '"type": "paper-conference"'),
    ],
)
def test_it_exports_the_current_filter(client, small_catalogue, export_format, marker):
    response = client.get(f"/api/export/?format={export_format}&level=ops")
    assert response.status_code == 200
    body = response.content.decode()
    assert marker in body
    assert "recht2011hogwild" not in body and "HOGWILD" not in body


def test_it_refuses_an_export_larger_than_its_bound(client, small_catalogue, settings):
    settings.MAX_EXPORT = 1
    response = client.get("/api/export/?format=csv")
    assert response.status_code == 400
    assert response.json()["detail"].startswith(
        "the filter matches 2 works; an export holds at most 1. Narrow it"
    )
    assert client.get("/api/export/?format=csv&level=ops").status_code == 200
    page = client.get("/works/").content.decode()
    assert "exports hold at most 1 works" in page and "format=csv" not in page
    assert "format=csv" in client.get("/works/?level=ops").content.decode()


def test_it_refuses_an_unknown_export_format(client, small_catalogue):
    response = client.get("/api/export/?format=docx")
    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "invalid",
        "detail": "format: must be one of bibtex, csv, ris, csljson (got 'docx')",
        "errors": {"format": ["must be one of bibtex, csv, ris, csljson (got 'docx')"]},
    }


def test_it_serves_the_openapi_schema_and_docs(client, db):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/works/" in schema.content
    assert client.get("/api/docs/").status_code == 200


@pytest.mark.django_db
def test_it_refuses_unknown_keys_in_a_write_naming_them(client, small_catalogue, curator):
    client.force_login(curator)
    body = {
        "citing": "recht2011hogwild",
        "cited": "lavin2016fast",
        "provenance": "curator",
        "evidence_source": "read in the paper",
        "evidence_exerpt": "typo",
    }
    response = client.post("/api/citations/", body, content_type="application/json")
    allowed = "citing, cited, provenance, evidence_source, evidence_excerpt"
    assert (response.status_code, response.json()) == (
        400,
        {
            "status": 400,
            "code": "invalid",
            "detail": f"evidence_exerpt: unknown field (allowed: {allowed})",
            "errors": {"evidence_exerpt": [f"unknown field (allowed: {allowed})"]},
        },
    )
    model = make_cost_model(make_technique("conv-direct", small_catalogue["conv"]))
    response = client.patch(
        f"/api/cost-models/{model.pk}/", {"formla": "N"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["formla"]
    assert not Citation.objects.filter(provenance="curator").exists()


def test_it_gives_every_work_searches_to_find_it(client, small_catalogue):
    """Labelled as searches, built from the title and first author, never stored."""
    query = "q=HOGWILD%21%3A+A+Lock-Free+Approach+Recht"
    expected = [
        {"site": "dblp", "url": f"https://dblp.org/search?{query}"},
        {"site": "Semantic Scholar", "url": f"https://www.semanticscholar.org/search?{query}"},
        {"site": "Google Scholar", "url": f"https://scholar.google.com/scholar?{query}"},
    ]
    assert client.get("/api/works/recht2011hogwild/").json()["search_links"] == expected
    page = client.get("/works/recht2011hogwild/").content.decode()
    assert '<h2 id="find-work">Find this work</h2>' in page
    assert "Searches built from the title and first author, not links to the paper" in page
    for link in expected:
        assert f'<a href="{link["url"]}" rel="nofollow noopener">Search {link["site"]}</a>' in page
    work = small_catalogue["hogwild"]
    work.refresh_from_db()
    assert (work.url, work.doi, work.extra_fields) == ("", "", {})


def test_the_api_docs_are_a_page_of_the_site_drawn_from_the_schema(client, db):
    """Issue 28: /api/docs/ passes axe: a server-rendered page (lang, the site's colours, no
    nested controls, no script from a CDN) listing every operation of the schema."""
    html = client.get("/api/docs/").content.decode()
    assert '<html lang="en">' in html
    assert "<code>GET /api/works/</code>" in html
    assert "<td><code>q</code></td><td>query</td>" in html
    assert "cdn" not in html.lower()
    assert "swagger" not in html.lower()


def test_a_category_added_is_a_filter_on_the_next_request(client, small_catalogue, settings):
    """The categories by code and the tree's rows are kept per catalogue version
    (explorer/works/filters.py, Category.subtree_codes): a new one is seen at once."""
    settings.RESPONSE_CACHE = False
    assert client.get("/api/works/?category=ops-new").status_code == 400
    ops = Category.objects.get(code="ops")
    new = make_category("ops-new", parent=ops)
    work = make_work("added2017", survey_ref=200)
    make_assignment(work, new)
    listed = client.get("/api/works/?category=ops-new").json()["results"]
    assert [w["key"] for w in listed] == ["added2017"]
    assert "added2017" in [w["key"] for w in client.get("/api/works/?level=ops").json()["results"]]
