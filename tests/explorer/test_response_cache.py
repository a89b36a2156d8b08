"""The anonymous response cache: hits for repeated reads, never stale after a write, never for
curators, and cached API answers still throttled."""

import pytest
from django.core.management import call_command

from tests.helpers import make_category, make_work


@pytest.mark.django_db
def test_it_serves_a_repeated_read_from_the_cache(client, django_assert_num_queries):
    make_work("first2017", title="First title")
    first = client.get("/works/first2017/")
    # 1. the catalogue version, and nothing else
    with django_assert_num_queries(1):
        again = client.get("/works/first2017/")
    assert (first.status_code, again.status_code) == (200, 200)
    assert again["X-Cache"] == "hit"
    assert again.content == first.content
    assert again["Content-Security-Policy"] == first["Content-Security-Policy"]


@pytest.mark.django_db
def test_it_never_serves_a_page_older_than_the_last_write(client):
    work = make_work("first2017", title="First title")
    assert b"First title" in client.get("/works/first2017/").content
    work.title = "Second title"
    work.save()
    response = client.get("/works/first2017/")
    assert "X-Cache" not in response
    assert b"Second title" in response.content


@pytest.mark.django_db
def test_it_sees_bulk_loads(client, django_capture_on_commit_callbacks):
    assert client.get("/api/works/?page_size=1").json()["count"] == 0
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_survey", verbosity=0)
    assert client.get("/api/works/?page_size=1").json()["count"] == 270


@pytest.mark.django_db
def test_it_never_caches_for_curators(client, curator):
    make_category("ops")
    client.force_login(curator)
    client.get("/categories/")
    assert "X-Cache" not in client.get("/categories/")


@pytest.mark.django_db
def test_it_keeps_a_failed_request_out_of_the_cache(client):
    assert client.get("/works/?level=nope").status_code == 400
    assert "X-Cache" not in client.get("/works/?level=nope")


@pytest.mark.django_db
def test_it_can_be_switched_off(client, settings):
    settings.RESPONSE_CACHE = False
    make_work("first2017", title="First title")
    client.get("/works/first2017/")
    assert "X-Cache" not in client.get("/works/first2017/")


CACHED_PATHS = [
    "/",
    "/works/",
    "/works/smith2017deep/",
    "/categories/",
    "/authors/1/",
    "/numbers/",
    "/costs/",
    "/techniques/",
    "/graph/",
    "/snowball/",
    "/data-quality/",
    "/api/works/",
    "/api/works/smith2017deep/",
    "/api/works/smith2017deep/related/",
    "/api/categories/",
    "/api/authors/",
    "/api/authors/1/",
    "/api/citations/",
    "/api/techniques/",
    "/api/techniques/allreduce/",
    "/api/cost-models/",
    "/api/cost-models/1/",
    "/api/cost-models/1/evaluate/",
    "/api/costs/plots/wd-plane/",
    "/api/graph/",
    "/api/snowball/",
    "/api/data-quality/",
    "/api/export/",
]
UNCACHED_PATHS = [
    "/demos/",
    "/demos/allreduce/",
    "/api/demos/",
    "/api/demos/allreduce/",
    "/api/demos/allreduce/run/",
    "/api/",
    "/api/schema/",
    "/api/docs/",
    "/admin/",
    "/admin/catalogue/work/",
    "/no-such-page/",
]


@pytest.mark.parametrize(
    ("path", "cached"),
    [(path, True) for path in CACHED_PATHS] + [(path, False) for path in UNCACHED_PATHS],
)
def test_it_caches_exactly_the_catalogue_pages_and_their_json(rf, path, cached):
    from django.contrib.auth.models import AnonymousUser

    from explorer.web.middleware import is_cacheable

    request = rf.get(path)
    request.user = AnonymousUser()
    assert is_cacheable(request) is cached
