"""The site's navigation: four groups on every page, the current page marked for screen readers,
every link leading somewhere."""

import re

import pytest

from explorer.templatetags.nav_tags import NAV, nav_groups
from tests.helpers import make_work

pytestmark = pytest.mark.django_db


def nav_of(html: str) -> str:
    return re.search(r'<nav id="site-nav".*?</nav>', html, re.S).group(0)


def test_it_groups_the_pages_the_same_way_on_every_page(client):
    make_work("smith2017deep")
    navs = {nav_of(client.get(url).content.decode()) for url in ("/works/", "/costs/")}
    labels = re.findall(r'class="nav-toggle"[^>]*>([^<]+)<', navs.pop())
    assert labels == ["The survey", "Techniques and models", "Evidence", "API and curators"]


def test_it_marks_the_current_page_and_the_group_of_the_pages_below_it(client):
    make_work("smith2017deep")
    nav = nav_of(client.get("/works/").content.decode())
    assert re.findall(r"aria-current=\"page\">([^<]+)<", nav) == ["Works"]
    below = nav_of(client.get("/works/smith2017deep/").content.decode())
    assert "aria-current" not in below
    assert re.findall(r'class="nav-group current">\s*<button[^>]*>([^<]+)<', below) == [
        "The survey"
    ]
    home = client.get("/").content.decode()
    assert '<a class="brand" href="/" aria-current="page">' in home
    assert "aria-current" not in nav_of(home)


def test_it_names_the_disclosure_buttons_menus_and_their_lists(client):
    nav = nav_of(client.get("/results/").content.decode())
    assert '<nav id="site-nav" class="site-nav" aria-label="Site">' in nav
    assert (
        '<button type="button" class="nav-toggle" aria-expanded="false" '
        'aria-controls="nav-evidence">Evidence</button>'
    ) in nav
    assert '<ul id="nav-evidence" aria-labelledby="nav-evidence-label">' in nav


def test_every_link_of_the_navigation_answers(admin_client, survey):
    groups = nav_groups("")
    assert [len(group.links) for group in groups] == [len(links) for _, _, links in NAV]
    for link in (link for group in groups for link in group.links):
        assert admin_client.get(link.url).status_code == 200, link


def test_it_marks_the_group_of_a_whole_namespace_but_not_its_neighbours():
    def current(view_name: str) -> list[str]:
        return [group.slug for group in nav_groups(view_name) if group.current]

    assert current("results:results") == ["evidence"]
    assert current("results:a-page-added-later") == ["evidence"]  # MLPerf's, under /results/
    assert current("planner:derivations") == ["techniques"]
    assert current("planner:accuracy") == ["evidence"]  # evidence about the planner
    assert current("hubs:hub") == ["survey"]
    assert current("graph:data-quality") == ["evidence"]
    assert current("graph:graph") == ["survey"]
    assert current("") == [] and current("api-root") == []
