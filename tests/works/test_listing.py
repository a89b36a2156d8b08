"""The works list without a filter reads its rows with SQL compiled once (explorer/works/
listing.py): the same rows, in the same order, as the filter's queryset, on every page."""

import pytest

from catalogue.models import Work
from explorer.works.filters import WorkFilter
from explorer.works.listing import DefaultListing
from explorer.works.serializers import WORK_ROW_FIELDS
from tests.helpers import make_work


def rows_through_the_filter(start: int, stop: int) -> list[dict]:
    works = WorkFilter({}, queryset=Work.objects.all())
    assert works.is_valid()
    return list(works.qs.values(*WORK_ROW_FIELDS)[start:stop])


@pytest.mark.parametrize("page_size", [1, 7, 50, 500])
def test_every_page_has_the_filters_rows_in_its_order(survey, page_size):
    listing = DefaultListing(WORK_ROW_FIELDS)
    total = Work.objects.in_survey().count()
    for start in range(0, total + page_size, page_size):
        stop = start + page_size
        assert listing[start:stop] == rows_through_the_filter(start, stop)


def test_flags_are_booleans_whatever_the_database(db):
    make_work("cut", authors=("A. B",), survey_ref=1)
    Work.objects.filter(key="cut").update(authors_truncated=True)
    make_work("whole", authors=("C. D",), survey_ref=2)
    rows = DefaultListing(WORK_ROW_FIELDS)[0:10]
    assert [(row["key"], row["authors_truncated"]) for row in rows] == [
        ("cut", True),
        ("whole", False),
    ]


def test_the_list_without_a_filter_answers_as_before(client, db, django_assert_num_queries):
    for index in range(12):
        make_work(f"w{index:02}", authors=("X. Y",), survey_ref=index + 1)
    make_work("later", era="after", source_url="https://example.org/later")
    client.get("/api/works/?page_size=5")  # the count, kept per catalogue version
    # 1 the catalogue version (read once per request: the response cache's key and the kept
    # count's), 2 the page, 3 its authors, 4 its categories
    with django_assert_num_queries(4):
        document = client.get("/api/works/?page_size=5&page=3").json()
    assert document["count"] == 12
    assert [work["key"] for work in document["results"]] == ["w10", "w11"]
    assert client.get("/api/works/?page=2").status_code == 404
