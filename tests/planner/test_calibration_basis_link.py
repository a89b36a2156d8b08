"""The efficiency's basis names the page that states the fitted model once (not its 2 KB
formula in every prediction), and the pages that show a basis link that page."""

import re

import pytest

from explorer.templatetags.explorer_tags import site_paths


def test_site_paths_link_only_paths_of_this_site():
    text = "at 32 samples/s per device; the model: /planner/accuracy/#model <b>"
    assert site_paths(text) == (
        "at 32 samples/s per device; the model: "
        '<a href="/planner/accuracy/#model">/planner/accuracy/#model</a> &lt;b&gt;'
    )
    assert "<a" not in site_paths("https://example.org/planner/x and bytes/FLOP")


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/planner/?network=resnet-50&P=32", "/results/"])
def test_a_basis_links_the_model_stated_once(client, survey, url):
    html = client.get(url).content.decode()
    assert 'the model: <a href="/planner/accuracy/#model">' in html
    assert "b_ref / b" not in html  # the formula itself is on the accuracy page only
    accuracy = client.get("/planner/accuracy/").content.decode()
    assert re.search(r'<section id="model">.*b_ref / b', accuracy, re.S)
