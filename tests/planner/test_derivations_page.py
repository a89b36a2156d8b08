"""The planner's page sends each strategy's derivation only when it is opened: a folded section
that links to (and, with JavaScript, fetches) the derivations page of the same plan."""

import re

import pytest

pytestmark = pytest.mark.django_db


def test_the_page_links_each_strategy_to_its_derivation_instead_of_sending_it(client, survey):
    page = client.get("/planner/?network=vgg-16&P=32").content.decode()
    assert 'class="numbers derivations"' not in page.split('id="network"')[0]
    sources = re.findall(r'<details id="derivation-([\w-]+)" data-src="([^"]+)"', page)
    ring = "/planner/derivations/?network=vgg-16&amp;P=32&amp;strategy=data-ring"
    assert ("data-ring", ring) in sources
    assert len(sources) == page.count('<tr data-strategy="')


def test_the_derivations_page_shows_one_strategy_with_its_formulas(client, survey):
    response = client.get("/planner/derivations/?network=vgg-16&P=32&strategy=data-tree")
    assert response.status_code == 200
    page = response.content.decode()
    assert page.count('class="derivation"') == 1
    assert 'id="derivation-body-data-tree"' in page
    assert "2*log2(32)*(" in page and "confirmed" in page
    assert 'href="/planner/?network=vgg-16&amp;P=32"' in page  # back to the plan


def test_the_derivations_page_without_a_strategy_shows_them_all(client, survey):
    page = client.get("/planner/derivations/?network=alexnet").content.decode()
    plan = client.get("/api/planner/?network=alexnet").json()
    assert page.count('class="derivation"') == len(plan["strategies"])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("P=0", "/planner/?P=0"),  # the page says what is wrong above its form
        ("strategy=no-such", "/planner/?strategy=no-such"),
    ],
)
def test_the_derivations_page_sends_a_bad_query_to_the_planner(client, survey, query, expected):
    response = client.get(f"/planner/derivations/?{query}")
    assert response.status_code == 302
    assert response["Location"] == expected
    assert client.get(expected).status_code == 400


def test_a_transformer_page_links_each_layout_family_to_its_derivation(client, survey):
    page = client.get("/planner/?network=gpt3-175b&P=64").content.decode()
    plan = client.get("/api/planner/?network=gpt3-175b&P=64").json()
    assert 'class="numbers derivations"' not in page.split('id="network"')[0]
    sources = dict(re.findall(r'<details id="derivation-([\w-]+)" data-src="([^"]+)"', page))
    applicable = [s["slug"] for s in plan["strategies"] if s["applicable"]]
    assert list(sources) == applicable and len(applicable) < len(plan["strategies"])
    zero = "/planner/derivations/?network=gpt3-175b&amp;P=64&amp;strategy=zero-3"
    assert sources["zero-3"] == zero


def test_a_transformer_derivation_shows_its_numbers_and_cost_models(client, survey):
    plan = client.get("/api/planner/?network=gpt3-175b&P=64").json()
    zero = next(s for s in plan["strategies"] if s["slug"] == "zero-3")
    page = client.get("/planner/derivations/?network=gpt3-175b&P=64&strategy=zero-3")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('class="derivation"') == 1 and 'id="derivation-body-zero-3"' in html
    assert html.count("<tr><td>") == len(zero["derivations"])
    model = next(m for d in zero["derivations"] for m in d["cost_models"] if m["id"])
    assert f'href="/api/cost-models/{model["id"]}/evaluate/"' in html
    every = client.get("/planner/derivations/?network=gpt3-175b&P=64").content.decode()
    assert every.count('class="derivation"') == sum(s["applicable"] for s in plan["strategies"])
