"""What pages keep per catalogue version (catalogue/version.py): computed once, never stale after a
curator's edit, a bulk load or an admin change, with the response cache off (a new URL)."""

import pytest
from django.core.management import call_command

from tests.helpers import (
    make_assignment,
    make_category,
    make_cost_model,
    make_technique,
    make_work,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_response_cache(settings):
    settings.RESPONSE_CACHE = False


def test_it_builds_the_home_page_once_per_catalogue_version(client, django_assert_num_queries):
    make_work("first2017", title="First title", era="after", source_url="https://example.org/f")
    assert b"First title" in client.get("/").content
    # 1. the catalogue version, and nothing else
    with django_assert_num_queries(1):
        again = client.get("/")
    assert again.status_code == 200
    assert b"First title" in again.content


def test_it_shows_an_edit_on_the_next_request(client):
    work = make_work(
        "first2017", title="First title", era="after", source_url="https://example.org/f"
    )
    assert b"First title" in client.get("/").content
    work.title = "Second title"
    work.save()
    content = client.get("/").content
    assert b"Second title" in content
    assert b"First title" not in content


def test_it_shows_an_edit_made_in_the_admin(admin_client, client):
    work = make_work(
        "first2017", title="First title", era="after", source_url="https://example.org/f"
    )
    assert b"First title" in client.get("/").content
    form = admin_client.get(f"/admin/catalogue/work/{work.pk}/change/").context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None}
    data |= {"title": "Edited in the admin", "_save": "Save"}
    admin_client.post(f"/admin/catalogue/work/{work.pk}/change/", data)
    work.refresh_from_db()
    if work.title == "Edited in the admin":  # the admin form saved (its inlines may differ)
        assert b"Edited in the admin" in client.get("/").content


def test_it_sees_bulk_loads(client, django_capture_on_commit_callbacks):
    assert b"<strong>0</strong> works" in client.get("/").content
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_survey", verbosity=0)
    assert b"<strong>270</strong> works" in client.get("/").content


def test_the_unfiltered_works_facets_follow_the_catalogue(client):
    parent = make_category("ops")
    work = make_work("first2017")
    make_assignment(work, parent)
    assert client.get("/works/").context["facets"]["total"] == 1
    make_work("second2018", year=2018)
    facets = client.get("/works/").context["facets"]
    assert facets["total"] == 2
    assert dict(facets["years"]) == {2017: 1, 2018: 1}


def test_a_filtered_works_page_counts_its_own_works(client):
    make_work("first2017")
    make_work("second2018", year=2018)
    assert client.get("/works/").context["facets"]["total"] == 2
    assert client.get("/works/?year_min=2018").context["facets"]["total"] == 1


def test_the_cost_plots_follow_a_cost_model_edit(client):
    category = make_category("ops")
    technique = make_technique("fc", category)
    model = make_cost_model(technique, label="Original label")
    assert client.get("/api/cost-models/").json()[0]["label"] == "Original label"
    client.get("/costs/")
    model.label = "Edited label"
    model.save()
    assert client.get("/api/cost-models/").json()[0]["label"] == "Edited label"
    assert "Original label" not in client.get("/costs/").content.decode()


def test_the_schema_follows_the_categories(client):
    make_category("ops")
    schema = client.get("/api/schema/?format=json").json()
    assert "new-node" not in str(schema)
    make_category("new-node")
    assert "new-node" in str(client.get("/api/schema/?format=json").json())


def test_the_api_docs_page_is_kept_and_follows_the_categories(client, django_assert_num_queries):
    make_category("ops")
    assert "new-node" not in client.get("/api/docs/").content.decode()
    with django_assert_num_queries(1):  # the catalogue version: the page's HTML is kept
        assert client.get("/api/docs/").status_code == 200
    make_category("new-node")
    assert "new-node" in client.get("/api/docs/").content.decode()


def test_the_schema_is_the_same_document_kept_or_built(client):
    first = client.get("/api/schema/")
    again = client.get("/api/schema/")
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"]
    assert again["Content-Disposition"] == first["Content-Disposition"]
    assert client.get("/api/schema/?format=json").json()["openapi"].startswith("3.")


def test_a_read_only_request_reads_the_version_once(django_assert_num_queries):
    from catalogue.version import REQUEST_SCOPE, catalogue_version

    with django_assert_num_queries(2):  # outside a request's scope: each call reads
        assert catalogue_version() == catalogue_version()
    token = REQUEST_SCOPE.set({})
    try:
        with django_assert_num_queries(1):
            first = catalogue_version()
            assert catalogue_version() == catalogue_version() == first
    finally:
        REQUEST_SCOPE.reset(token)
