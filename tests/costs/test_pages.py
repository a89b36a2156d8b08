"""The cost-model pages: /costs/ (W-D plots) and /techniques/. They render the real survey,
show the formulas' status, refuse bad parameters with a 400 page and run constant queries."""

import json

import pytest

from catalogue.models import Work
from explorer.costs.presets import PRESETS
from tests.helpers import make_category, make_cost_model, make_technique, make_work

pytestmark = pytest.mark.django_db


def figure(response, name: str) -> dict:
    """The figure dict that the page hands to plots.js in <script id="figure-NAME">."""
    page = response.content.decode()
    start = page.index(f'<script id="figure-{name}" type="application/json">')
    start = page.index(">", start) + 1
    return json.loads(page[start : page.index("</script>", start)])


def test_it_draws_the_four_plots_with_their_formulas_and_warnings(client, survey):
    response = client.get("/costs/")
    assert response.status_code == 200
    page = response.content.decode()
    for name in ("wd-plane", "parallelism", "brent", "allreduce-p", "allreduce-m"):
        assert f'<div class="plot" data-figure="figure-{name}"></div>' in page
        assert f'href="/api/costs/plots/{name}/"' in page
        assert figure(response, name)["data"]
    assert "vendor/plotly/plotly.min.js" in page and "js/costs.js" in page
    assert "<strong>doubtful</strong>" in page  # the Winograd work formula (FACTS.md §2.3)
    assert "doubtful formula: Winograd convolution (Table 6): work" in page
    assert page.count('<span class="flag">not confirmed</span>') >= 10
    assert "<strong>Not confirmed:</strong> Activation, input gradient: work;" in page
    assert '<code class="formula-text">2*log2(P)*(L + gamma*m*G)</code>' in page
    assert "krizhevsky2012imagenet" in page  # the preset's source


def test_it_cites_each_presets_network_paper_by_its_v2_reference(survey):
    for preset in PRESETS.values():
        work = Work.objects.get(key=preset.source.key)
        assert work.survey_ref == preset.source.ref, preset.slug


def test_it_keeps_the_plot_settings_in_the_address(client, survey):
    response = client.get("/costs/?preset=vgg16-conv3&N=8&sweep=C_in&op=conv-fft&P=64")
    assert response.status_code == 200
    assert (
        "custom layer from vgg16-conv3" in figure(response, "wd-plane")["layout"]["title"]["text"]
    )
    assert (
        "against input channels C_in" in figure(response, "parallelism")["layout"]["title"]["text"]
    )
    assert "FFT convolution (Table 6)" in figure(response, "brent")["layout"]["title"]["text"]
    assert "P = 64" in figure(response, "allreduce-m")["layout"]["title"]["text"]
    page = response.content.decode()
    assert 'href="/api/costs/plots/brent/?preset=vgg16-conv3&amp;N=8&amp;sweep=C_in' in page
    assert '<input type="number" name="N" value="8" placeholder="8"' in page


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("K=500", "K must be between 1 and 256 (got 500)"),
        ("N=abc", "N must be a whole number between 1 and 65536 (got &#x27;abc&#x27;)"),
        ("preset=lenet", "preset must be one of"),
        ("preset=alexnet-fc7&amp;K=3", "K does not apply to a fully connected layer"),
        ("colour=red", "unknown parameter &#x27;colour&#x27; (allowed: C_in, C_out,"),
        ("L=5", "L must be between 0 and 1 (got 5)"),
        ("H=4&W=4", "the kernel (K = 11) does not fit the padded input (4×4)"),
    ],
)
def test_it_answers_bad_parameters_with_a_400_page_and_a_message(client, survey, query, message):
    response = client.get(f"/costs/?{query.replace('&amp;', '&')}")
    assert response.status_code == 400
    page = response.content.decode()
    assert 'class="errors" role="alert"' in page
    assert message in page
    assert '<form method="get" action="/costs/"' in page  # the reader can fix it in place


def test_it_still_draws_the_plots_that_a_bad_parameter_does_not_touch(client, survey):
    response = client.get("/costs/?L=5")
    assert response.status_code == 400
    page = response.content.decode()
    assert 'data-figure="figure-wd-plane"' in page
    assert 'data-figure="figure-allreduce-p"' not in page


def test_it_renders_the_costs_page_in_three_queries(client, survey, django_assert_num_queries):
    # The catalogue version, read once per request (explorer/web/middleware.py), keys the response
    # cache and the cost models kept per version (catalogue/version.py); then 1 the cost models
    # with their techniques, 2 the models' works, 3 the techniques' works
    with django_assert_num_queries(4):
        assert client.get("/costs/?preset=resnet50-conv1").status_code == 200


def test_it_links_the_cost_pages_from_the_navigation_even_with_an_empty_catalogue(client, db):
    response = client.get("/costs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "No allreduce formulas in the catalogue" in page
    assert '<a href="/costs/" aria-current="page">Cost models</a>' in page
    assert '<a href="/techniques/">Techniques</a>' in page


# /techniques/ ------------------------------------------------------------------------------------


def test_it_lists_the_techniques_by_level_with_cost_models_works_and_demos(client, survey):
    response = client.get("/techniques/")
    assert response.status_code == 200
    sections = response.context["sections"]
    assert [s["category"].code for s in sections] == ["ops", "net", "train", "bg"]
    slugs = [t.slug for t in sections[0]["techniques"]]
    assert slugs == ["fully-connected", "conv-direct", "conv-im2col", "conv-fft", "conv-winograd"]
    # 29 from the survey, 4 after it (fixtures/after_techniques.json, issue 26).
    assert sum(len(s["techniques"]) for s in sections) == 29 + 4
    page = response.content.decode()
    assert '<a href="/demos/fc-gemm/">run the demo</a>' in page
    assert '<a href="/works/lavin2016fast/">' in page
    assert '<code class="formula-text">2*log2(P)*(L + gamma*m*G)</code>' in page
    assert 'class="status status-doubtful" title="Doubtful: as transcribed by S2' in page
    # A derived formula shows its derivation on the page, not only in a tooltip.
    assert '<small class="status-note">Derived here; the survey gives no formula' in page
    assert '<span class="flag">not confirmed</span>' in page


def test_it_renders_the_techniques_page_in_constant_queries(client, django_assert_num_queries):
    # One more query than the view itself makes: the catalogue version that keys the
    # response cache (explorer/web/middleware.py).
    ops = make_category("ops")
    conv = make_category("ops-conv", parent=ops)
    for index in range(3):
        technique = make_technique(f"technique-{index}", conv, demo_slug="a-demo")
        technique.works.add(make_work(f"work{index}", survey_ref=index + 1))
        make_cost_model(technique, label=f"Work {index}")
        make_cost_model(technique, label=f"Depth {index}", quantity="depth", status="recalled")
    # 1 top-level categories, 2 every category's parent (for the top-level ancestor),
    # 3 techniques with their categories, 4 their works, 5 their cost models
    with django_assert_num_queries(6):
        response = client.get("/techniques/")
    for index in range(3, 10):
        technique = make_technique(f"technique-{index}", conv)
        make_cost_model(technique, label=f"Work {index}")
    with django_assert_num_queries(6):
        assert client.get("/techniques/").status_code == 200
    assert response.status_code == 200
    assert response.content.decode().count('href="/demos/a-demo/"') == 3
