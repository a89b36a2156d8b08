"""A hub per taxonomy node: the page and its JSON twin, on a small catalogue and on the survey."""

import pytest

from tests.helpers import (
    make_assignment,
    make_category,
    make_citation,
    make_cost_model,
    make_technique,
    make_work,
)

DEPTH_VARIABLES = [
    {"name": "C", "meaning": "channels", "default": 4, "min": 1, "max": 4096, "unit": ""}
]


def make_catalogue():
    """§5 with §5.2 (two sub-categories) and a sibling §5.3: works, a technique, a citation."""
    ops = make_category("ops", name="Operators", section="5")
    fc = make_category("ops-fc", parent=ops, name="Fully connected", section="5.2")
    gemm = make_category("ops-fc-gemm", parent=fc, name="GEMM", section="5.2", status="recalled")
    make_category("ops-conv", parent=ops, name="Convolution", section="5.3", order=2)
    technique = make_technique("fully-connected", gemm, name="Fully connected")
    make_cost_model(technique, eval="forward", label="FC work", formula="N*C")
    make_cost_model(
        technique,
        eval="forward",
        quantity="depth",
        label="FC depth",
        formula="log2(C)",
        variables=DEPTH_VARIABLES,
        status="recalled",
    )
    inside = make_work("inside2015", title="Inside", survey_ref=1)
    make_assignment(inside, gemm, "partial")
    later = make_work(
        "later2020", title="Later", year=2020, era="after", source_url="https://example.org/l"
    )
    assignment = make_assignment(later, fc, "curated-after-survey")
    assignment.source_note = "extends §5.2"
    assignment.save()
    outside = make_work("outside2010", title="Outside", year=2010, survey_ref=2)
    make_citation(inside, outside)
    return fc


@pytest.mark.django_db
def test_it_answers_a_hub_as_one_json_document(client):
    make_catalogue()
    response = client.get("/api/categories/ops-fc/")
    assert response.status_code == 200
    base = "http://testserver"

    def node(slug, name, section, count, status="confirmed"):
        return {
            "slug": slug,
            "name": name,
            "section": section,
            "status": status,
            "extends": "",
            "description": "",
            "work_count": count,
            "url": f"{base}/api/categories/{slug}/",
            "html_url": f"{base}/categories/{slug}/",
        }

    model = {
        "asymptotic": False,
        "eval": "forward",
        "section": "4.2, Table 4",
    }
    document = response.json()
    work_model, depth_model = document["techniques"][0]["cost_models"]
    assert work_model["mathml"].startswith('<math display="inline">')
    assert document == {
        **node("ops-fc", "Fully connected", "5.2", 2),
        "status_label": "confirmed",
        "breadcrumbs": [node("ops", "Operators", "5", 2)],
        "siblings": [node("ops-conv", "Convolution", "5.3", 0)],
        "children": [node("ops-fc-gemm", "GEMM", "5.2", 1, status="recalled")],
        "techniques": [
            {
                "slug": "fully-connected",
                "name": "Fully connected",
                "category": "ops-fc-gemm",
                "summary": "A technique.",
                "cost_models": [
                    {
                        **model,
                        "id": work_model["id"],
                        "label": "FC work",
                        "quantity": "work",
                        "formula": "N*C",
                        "mathml": work_model["mathml"],
                        "status": "confirmed",
                        "status_label": "confirmed",
                        "evaluate_url": f"{base}/api/cost-models/{work_model['id']}/evaluate/",
                    },
                    {
                        **model,
                        "id": depth_model["id"],
                        "label": "FC depth",
                        "quantity": "depth",
                        "formula": "log2(C)",
                        "mathml": depth_model["mathml"],
                        "status": "recalled",
                        "status_label": "recalled (unconfirmed)",
                        "evaluate_url": f"{base}/api/cost-models/{depth_model['id']}/evaluate/",
                    },
                ],
            }
        ],
        "wd_points": [
            # N*C at N=32, C=3; log2(C) at C=4: each formula at its own declared defaults
            {"label": "Fully connected, forward", "work": 96.0, "depth": 2.0, "confirmed": False}
        ],
        "cost_plots": [],  # the survey's techniques are drawn as work against depth
        "demos": [
            {
                "slug": "fc-gemm",
                "title": "Fully-connected layer as GEMM: work and reduction depth",
                "html_url": f"{base}/demos/fc-gemm/",
            }
        ],
        "works": {
            "survey": {
                "count": 1,
                "shown": 1,
                "results": [
                    {
                        "key": "inside2015",
                        "title": "Inside",
                        "year": 2017,
                        "survey_ref": 1,
                        "assignments": [{"category": "ops-fc-gemm", "evidence": "partial"}],
                        "html_url": f"{base}/works/inside2015/",
                    }
                ],
            },
            "after": {
                "count": 1,
                "shown": 1,
                "results": [
                    {
                        "key": "later2020",
                        "title": "Later",
                        "year": 2020,
                        "survey_ref": None,
                        "assignments": [{"category": "ops-fc", "evidence": "curated-after-survey"}],
                        "html_url": f"{base}/works/later2020/",
                    }
                ],
            },
            "curated": {"count": 0, "shown": 0, "results": []},
        },
        "citations": {
            "internal": 0,
            "outgoing": 1,
            "incoming": 0,
            "neighbours": [
                {
                    "key": "outside2010",
                    "title": "Outside",
                    "era": "survey",
                    "cites_section": 0,
                    "cited_by_section": 1,
                    "html_url": f"{base}/works/outside2010/",
                }
            ],
            "coverage_note": (
                "Citation coverage is partial: a missing edge does not mean that a work does "
                "not cite another."
            ),
        },
        "results": [],
        "mlperf": [],
        "links": {
            "works": f"{base}/works/?category=ops-fc",
            "works_after": f"{base}/works/?category=ops-fc&era=after",
            "graph": f"{base}/graph/?category=ops-fc",
            "snowball": f"{base}/snowball/?seeds=inside2015&direction=both&rounds=1",
            "planner": f"{base}/planner/",
            "techniques": f"{base}/techniques/",
            "costs": f"{base}/costs/",
            "api": f"{base}/api/categories/ops-fc/",
        },
    }


@pytest.mark.django_db
def test_it_answers_an_unknown_hub_and_an_unknown_parameter_in_the_error_shape(client):
    make_catalogue()
    assert client.get("/api/categories/nothing/").json() == {
        "status": 404,
        "code": "not_found",
        "detail": "No category 'nothing'.",
        "errors": {},
    }
    response = client.get("/api/categories/ops/?era=all")
    assert response.status_code == 400
    assert response.json()["errors"] == {"era": ["unknown parameter 'era' (allowed: none)"]}
    assert client.get("/categories/nothing/").status_code == 404


@pytest.mark.django_db
def test_it_shows_the_hub_page_with_everything_it_gathers(client):
    make_catalogue()
    html = client.get("/categories/ops-fc/").content.decode()
    assert '<nav class="breadcrumbs"' in html and 'href="/categories/ops/"' in html
    assert 'href="/categories/ops-fc-gemm/"' in html and 'href="/categories/ops-conv/"' in html
    assert "<math" in html and '<code class="formula-text">N*C</code>' in html
    assert '<svg class="wd-plot"' in html
    assert 'href="/demos/fc-gemm/"' in html
    assert 'href="/works/inside2015/"' in html and "partial evidence" in html
    assert 'href="/works/later2020/"' in html and "after the survey" in html
    assert 'href="/works/outside2010/"' in html  # the most linked neighbour
    assert 'href="/snowball/?seeds=inside2015&amp;direction=both&amp;rounds=1"' in html
    assert 'href="/planner/"' in html and 'href="/api/categories/ops-fc/"' in html


@pytest.mark.django_db
def test_it_reads_a_hub_in_a_constant_number_of_queries(client, django_assert_num_queries):
    fc = make_catalogue()
    # 1 the catalogue version (read once per request: it keys the response cache and the hub kept
    # per version), 2-3 the tree and its counts, 4-5 the techniques and their cost models, then
    # per era the works, their authors and assignments (6-11; the works added by curators, none
    # here: 12), 13-14 the edges and the section's work ids, 15 the neighbours, 16 the measured
    # results of its techniques, 17 the MLPerf benchmarks of its techniques; the page's timeline
    # of its works (18-19 the category's subtree, 20 their years, 21 the levels, 22 their keys,
    # 23-24 the citation graph). Built once per catalogue version: a new URL then costs the
    # version read.
    with django_assert_num_queries(24):
        assert client.get("/categories/ops-fc/").status_code == 200
    with django_assert_num_queries(1):
        assert client.get("/categories/ops-fc/?new-url").status_code == 200
    for index in range(5):
        work = make_work(f"more{index}", survey_ref=10 + index)
        make_assignment(work, fc, "topic-inferred")
        make_citation(work, work.__class__.objects.get(key="outside2010"))
    with django_assert_num_queries(24):  # a new catalogue version: built again
        assert client.get("/categories/ops-fc/?again").status_code == 200
    with django_assert_num_queries(17):
        assert client.get("/api/categories/ops-fc/").status_code == 200
    with django_assert_num_queries(1):  # the response cache's version read answers the rest
        assert client.get("/api/categories/ops-fc/").status_code == 200


@pytest.mark.django_db
def test_it_links_every_node_of_the_survey_to_its_hub(client, survey):
    categories = client.get("/categories/").content.decode()
    tree = client.get("/api/categories/?era=all").json()
    stack = list(tree)
    while stack:
        node = stack.pop()
        stack.extend(node["children"])
        assert f'href="/categories/{node["slug"]}/"' in categories or node["extends"], node
        assert client.get(f"/categories/{node['slug']}/").status_code == 200


@pytest.mark.django_db
def test_it_links_into_the_hubs_from_works_techniques_demos_and_home(client, survey):
    work = client.get("/works/dean2012large/").content.decode()
    assert 'href="/categories/net-hybrid/"' in work
    techniques = client.get("/techniques/").content.decode()
    assert 'href="/categories/net-pipe/"' in techniques
    demo = client.get("/demos/pipeline-bubble/").content.decode()
    assert 'href="/categories/net-pipe/"' in demo
    facets = client.get("/works/").content.decode()
    assert 'href="/categories/ops-conv/"' in facets
    home = client.get("/").content.decode()
    for slug in ("ops", "net", "train", "bg", "ops-conv", "net-data", "net-model"):
        assert f'href="/categories/{slug}/"' in home


@pytest.mark.django_db
def test_it_gathers_pipelining_with_its_planner_link_and_later_works(client, survey):
    html = client.get("/categories/net-pipe/").content.decode()
    assert 'href="/demos/pipeline-bubble/"' in html
    assert "plan a pipeline for a whole network" in html
    assert 'class="formula"' in html


@pytest.mark.django_db
def test_a_hub_shows_a_curators_edit_at_once(client):
    """Kept per catalogue version, never stale: an edit moves the version."""
    from catalogue.models import CostModel

    make_catalogue()
    assert "FC work" in client.get("/categories/ops-fc/").content.decode()
    assert "FC work" in client.get("/api/categories/ops-fc/").content.decode()
    CostModel.objects.get(label="FC work").delete()
    model = CostModel.objects.get(label="FC depth")
    model.formula = "log2(C) + 1"
    model.save()
    page = client.get("/categories/ops-fc/?after-the-edit").content.decode()
    document = client.get("/api/categories/ops-fc/?format=json").json()
    assert "FC work" not in page and "log2(C) + 1" in page
    assert ["FC depth"] == [m["label"] for t in document["techniques"] for m in t["cost_models"]]


@pytest.mark.parametrize(
    ("slug", "technique", "plots", "planner"),
    [
        ("after-net-tensor", "tensor-parallelism", 1, "network=gpt3-175b&amp;machine=a100-cluster"),
        ("after-net-sequence", "sequence-parallelism", 2, "network=gpt3-175b&amp;machine=a100"),
        ("after-net-expert", "expert-parallelism", 2, "network=deepspeed-moe-52b&amp;machine"),
    ],
)
def test_the_hubs_after_the_survey_show_formulas_plots_and_the_planner(
    client, survey, slug, technique, plots, planner
):
    html = client.get(f"/categories/{slug}/").content.decode()
    assert f'id="technique-{technique}"' in html
    assert html.count('class="wd-plot cost-plot"') == plots
    assert f"/planner/?{planner}" in html
    document = client.get(f"/api/categories/{slug}/").json()
    assert len(document["cost_plots"]) == plots
    for plot in document["cost_plots"]:
        assert plot["technique"] == technique and len(plot["xs"]) >= 2
        assert all(len(curve["values"]) == len(plot["xs"]) for curve in plot["curves"])
    if technique == "tensor-parallelism":
        assert 'href="/demos/tensor-parallel/"' in html
        (plot,) = document["cost_plots"]
        # 4·b·s·h at b = 1, s = 2048 against h: the catalogue's defaults.
        assert plot["variable"] == "h"
        assert plot["curves"][0]["values"] == [4 * 2048 * h for h in plot["xs"]]


def test_a_hub_says_which_era_its_neighbours_counts_count(client, survey):
    """Issue 44: the header counts by era ("1 work in the survey +10 after"), the lists beside
    it count every era; each says so."""
    html = client.get("/categories/net-pipe/").content.decode()
    assert "in the survey</span>" in html and "after the survey</span>" in html
    beside = html[html.index('id="siblings"') :]
    assert "Counts: works of every era" in beside[: beside.index("<ul")]
