"""The reader's pages: they render the real survey, take the API's parameters, refuse bad input
with a message, and run a constant number of queries."""

from urllib.parse import parse_qsl, urlencode

import pytest

from catalogue.models import Work
from tests.helpers import clear_caches, make_assignment, make_category, make_work


@pytest.mark.django_db
def test_it_leads_from_the_home_page_without_listing_every_work(client, survey):
    response = client.get("/")
    assert response.status_code == 200
    context = response.context
    assert (context["work_count"], context["reference_count"], context["later_count"]) == (
        270,
        269,
        106,
    )
    names = [level.name for level in context["levels"]]
    assert names[:3] == [
        "Concurrency in operators",
        "Concurrency in networks",
        "Concurrency in training",
    ]
    html = response.content.decode()
    # One way into each thing a reader does next.
    for url in ("/categories/", "/snowball/", "/techniques/", "/costs/", "/demos/", "/planner/"):
        assert f'href="{url}"' in html
    assert 'href="/results/#summary"' in html and 'href="/results/#charts"' in html
    # The list of works is the works page's, not the home page's.
    assert b"QSGD: Communication-Efficient SGD" not in response.content
    assert 'href="/works/?era=after&amp;ordering=-year">All 106 works after the survey' in html
    assert len(response.content) < 60_000


@pytest.mark.django_db
def test_it_shows_the_newest_works_after_the_survey_as_the_api_orders_them(client, survey):
    newest = [work.key for work in client.get("/").context["newest"]]
    api = client.get("/api/works/?era=after&ordering=-year&page_size=5").json()
    assert newest == [work["key"] for work in api["results"]]
    assert newest[0] == "liang2025torchtitan"


@pytest.mark.django_db
def test_it_builds_the_home_page_in_a_constant_number_of_queries(client, django_assert_num_queries):
    for index in range(4):
        make_work(f"w{index}", survey_ref=index + 1 if index < 3 else None)
    for year in range(2019, 2025):
        make_work(f"later{year}", year=year, era="after", source_url="https://example.org/l")
    # 1 the catalogue version (response cache), 2 the counts of both eras, 3-4 the newest works
    # and their authors, 5-6 the level counts of both eras (categories, then their works),
    # 7 the techniques, 8 the measured results
    with django_assert_num_queries(8):
        response = client.get("/")
    assert response.status_code == 200
    newest = [work.key for work in response.context["newest"]]
    assert newest == ["later2024", "later2023", "later2022", "later2021", "later2020"]
    context = response.context
    assert (context["work_count"], context["reference_count"], context["later_count"]) == (4, 3, 6)
    assert "All 6 works after the survey" in response.content.decode()


@pytest.mark.django_db
def test_it_filters_the_works_page_like_the_api(client, survey):
    page = client.get("/works/?level=ops&q=convolution&page_size=100")
    api = client.get("/api/works/?level=ops&q=convolution&page_size=100").json()
    assert page.status_code == 200
    page_keys = [work.key for work in page.context["page"].object_list]
    assert page_keys == [work["key"] for work in api["results"]]
    assert page_keys and len(page_keys) == api["count"]


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["", "level=train", "q=gradient&year_min=2014"])
def test_it_counts_each_facet_like_the_filter_it_links_to(client, survey, query):
    facets = client.get(f"/works/?{query}").context["facets"]

    def matches(extra: str) -> int:
        # The facet's values replace the query's (a repeated parameter is a 400 under /api/).
        values = dict(parse_qsl(query)) | dict(parse_qsl(extra)) | {"page_size": "1"}
        return client.get(f"/api/works/?{urlencode(values)}").json()["count"]

    assert facets["total"] == matches("")
    for year, n in facets["years"]:
        assert n == matches(f"year_min={year}&year_max={year}"), year
    for entry_type, n in facets["entry_types"]:
        assert n == matches(f"entry_type={entry_type}"), entry_type
    for evidence, n in facets["evidence"]:
        assert n == matches(f"evidence={evidence}"), evidence
    assert facets["flags"]["has_cost_model"] == matches("has_cost_model=true")
    assert facets["flags"]["has_demo"] == matches("has_demo=true")
    assert sum(n for _, n in facets["years"]) == sum(n for _, n in facets["entry_types"])


@pytest.mark.django_db
def test_it_counts_facets_through_the_category_hierarchy(client, survey):
    response = client.get("/works/?level=train")
    tree = {node.code: node for node in response.context["category_tree"]}
    train = tree["train"]
    assert train.work_count == response.context["page"].paginator.count
    children_total = sum(child.work_count for child in train.child_nodes)
    assert train.work_count <= children_total
    assert tree["ops"].work_count <= train.work_count


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, status, message",
    [
        ("level=nope", 400, "unknown code"),
        ("year_min=abc", 400, "Enter a number"),
        ("page_size=100000", 400, "between 1 and 500"),
        ("levle=ops", 400, "unknown parameter"),
        ("level=a%25sb", 400, "unknown code &#x27;a%sb&#x27;"),
        ("a%25s=1", 400, "unknown parameter &#x27;a%s&#x27;"),
        ("page=999", 404, ""),
        ("page=abc", 404, ""),
    ],
)
def test_it_refuses_bad_filters_on_the_works_page(client, survey, query, status, message):
    response = client.get(f"/works/?{query}")
    assert response.status_code == status
    assert message in response.content.decode()


@pytest.mark.django_db
def test_it_returns_only_the_results_for_an_in_place_update(client, survey):
    response = client.get("/works/?level=net", HTTP_X_FRAGMENT="results")
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b"works match" in response.content


@pytest.mark.django_db
def test_it_shows_a_work_with_its_evidence_and_citations(client, survey):
    response = client.get("/works/dean2012large/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Large Scale Distributed Deep Networks" in body
    assert "confirmed" in body
    assert "a missing edge does not mean" in body
    assert "@inproceedings{dean2012large," in body
    assert "/graph/?ego=dean2012large" in body and "/snowball/?seeds=dean2012large" in body
    assert client.get("/works/no-such-work/").status_code == 404


@pytest.mark.django_db
def test_it_shows_an_author_with_their_works(client, survey):
    work = Work.objects.get(key="dean2012large")
    author = work.authorships.first().author
    response = client.get(f"/authors/{author.pk}/")
    assert response.status_code == 200
    assert b"Large Scale Distributed Deep Networks" in response.content


@pytest.mark.django_db
def test_it_shows_the_category_tree_and_the_numbers(client, survey):
    categories = client.get("/categories/")
    assert categories.status_code == 200
    assert b"7.3.2" in categories.content
    numbers = client.get("/numbers/")
    assert numbers.status_code == 200
    body = numbers.content.decode()
    assert "240" in body and "269" in body
    assert numbers.context["timeline"]["data"]
    assert 'data-figure="timeline-figure"' in body


@pytest.mark.django_db
def test_it_renders_the_works_page_in_constant_queries(client, django_assert_num_queries):
    ops = make_category("ops")
    for index in range(40):
        work = make_work(f"w{index}", authors=("A. B", f"C. {index}"), survey_ref=index + 1)
        make_assignment(work, ops)
    # 1 the catalogue version, read once per request (explorer/web/middleware.py), that keys the
    # response cache and what the page keeps (catalogue/version.py): unfiltered, its
    # 2-3 facets (years x entry types with the flags and the number of works; evidence),
    # 4-5 category tree (nodes, then the (category, work) pairs); 6 and 7 the options of the
    # level and category selects; 8 the page of works, 9 authorships+authors; the linked views,
    # kept per version too: 10 the levels, 11 the selected keys, 12-13 the citation graph
    # (works, citations)
    with django_assert_num_queries(13):
        assert client.get("/works/?page_size=5").status_code == 200
    clear_caches()
    with django_assert_num_queries(13):
        assert client.get("/works/?page_size=40").status_code == 200
    # Kept for the next reader: the version, the page of works and its authors.
    with django_assert_num_queries(3):
        assert client.get("/works/?page_size=20&page=2").status_code == 200
