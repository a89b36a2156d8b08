"""/api/planner/ and /planner/: the JSON document, bad input, query counts, links."""

import re

import pytest

from catalogue.models import CostModel
from explorer.planner.machine import BOUNDS

STRATEGY_KEYS = {
    "slug",
    "name",
    "rank",
    "applicable",
    "step_time",
    "compute_time",
    "communication_time",
    "exposed_communication_time",
    "total_communication_time",
    "idle_time",
    "memory_per_node",
    "fits",
    "reason",
    "speedup",
    "efficiency",
    "cost_models",
    "unconfirmed",
    "unconfirmed_numbers",
    "unconfirmed_parts",
    "notes",
    "techniques",
    "demos",
    "derivations",
    "links",
}


def test_it_answers_the_documented_json_shape(client, survey):
    # At the peak (efficiency=1): the ranking of the survey's formulas as they stand.
    response = client.get("/api/planner/?network=resnet-50&P=16&batch=256&efficiency=1")
    assert response.status_code == 200
    document = response.json()
    assert set(document) == {
        "inputs",
        "machine",
        "network",
        "single_node_time",
        "ranking_note",
        "strategies",
        "sensitivity",
        "sweep",
        "efficiency",
        "page_url",
        "api_url",
        "accuracy",
    }
    network = document["network"]
    assert network["slug"] == "resnet-50"
    assert network["parameters"] == 25_557_032
    assert network["forward_multiply_adds"] == 3_857_973_248
    assert network["paper"]["forward_multiply_adds"] == 3_800_000_000
    assert network["paper"]["parameters"] is None
    assert network["paper"]["work"] == "he2016deep"
    assert [s["slug"] for s in document["strategies"]] == [
        "hybrid",
        "data-rabenseifner",
        "data-ring",
        "zero-1",
        "zero-2",
        "zero-3",
        "data-butterfly",
        "data-tree",
        "data-ps",  # not overlapped: behind the overlapped tree allreduce
        "pipeline",
        "pipeline-1f1b",
        "pipeline-interleaved",
        "model-layer-split",
    ]
    for strategy in document["strategies"]:
        assert set(strategy) == STRATEGY_KEYS
        assert set(strategy["memory_per_node"]) == {
            "weights",
            "gradients",
            "optimizer_state",
            "activations",
            "buffers",
            "total",
        }
    assert document["page_url"] == "/planner/?network=resnet-50&P=16&batch=256&efficiency=1"
    assert document["api_url"] == "/api/planner/?network=resnet-50&P=16&batch=256&efficiency=1"


def test_it_cites_every_formula_by_its_catalogue_id_and_status(client, survey):
    document = client.get("/api/planner/?network=alexnet&P=8").json()
    tree = next(s for s in document["strategies"] if s["slug"] == "data-tree")
    model = CostModel.objects.get(technique__slug="allreduce-tree")
    cited = next(m for m in tree["cost_models"] if m["label"] == "Tree allreduce: time")
    assert cited == {
        "id": model.pk,
        "technique": "allreduce-tree",
        "label": "Tree allreduce: time",
        "formula": "2*log2(P)*(L + gamma*m*G)",
        "status": "confirmed",
        "section": "2.5",
        "works": ["culler1993logp"],
    }
    assert tree["links"]["demos"] == [
        {"slug": "allreduce-vs-ps", "url": "/demos/allreduce-vs-ps/"},
        {"slug": "data-parallel", "url": "/demos/data-parallel/"},
    ]
    assert {
        "slug": "allreduce-tree",
        "name": "Tree allreduce",
        "url": "/techniques/#technique-allreduce-tree",
        "section_url": "/categories/bg-algorithms/",
    } in tree["links"]["techniques"]


def test_it_uses_a_curators_formula_from_the_catalogue(client, survey):
    url = "/api/planner/?network=alexnet&P=8&strategy=data-tree&overlap=false"
    before = client.get(url).json()
    model = CostModel.objects.get(technique__slug="allreduce-tree")
    model.formula = "4*log2(P)*(L + gamma*m*G)"
    model.save()  # as the admin does: the catalogue's version moves, cached answers expire
    after = client.get(url).json()
    [old], [new] = before["strategies"], after["strategies"]
    assert new["communication_time"] == pytest.approx(2 * old["communication_time"])


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ("P=0", {"P": ["P (nodes (processors)) must be an integer between 1 and 65536"]}),
        (
            "bandwidth_gbs=0",
            {
                "bandwidth_gbs": [
                    "bandwidth_gbs (link bandwidth 1/G) must be a number between 0.001 and 10000"
                ]
            },
        ),
        (
            "network=lenet",
            {
                "network": [
                    "must be one of alexnet, vgg-16, resnet-50, resnet-101, googlenet, "
                    "network-in-network, bert-large, "
                    "gpt2-xl, gpt3-175b, "
                    "megatron-1t, llama2-7b, llama2-70b, llama3.1-8b, llama3.1-405b, "
                    "deepspeed-moe-52b, gpt3-175b-mlperf, llama2-70b-lora, deepseek-v3, "
                    "transformer "
                    "(got 'lenet')"
                ]
            },
        ),
        (
            "strategy=zero",
            {"strategy": ["Select a valid choice. zero is not one of the available choices."]},
        ),
        (
            "batch=4&micro_batches=8",
            {
                "micro_batches": [
                    "micro_batches must be at most batch (4): a micro-batch holds at least one "
                    "sample"
                ]
            },
        ),
        ("P=1e400", {"P": ["P (nodes (processors)) must be an integer between 1 and 65536"]}),
        ("P=4&P=8", {"P": ["P is given 2 times; give it once"]}),
    ],
)
def test_it_refuses_bad_input_with_a_400_naming_the_parameter(client, survey, query, errors):
    response = client.get(f"/api/planner/?{query}")
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["errors"]) == ("invalid", errors)
    page = client.get(f"/planner/?{query}")
    assert page.status_code == 400
    [messages] = errors.values()
    assert messages[0].split(" (")[0].split(";")[0] in page.content.decode()


def test_it_refuses_a_misspelt_parameter_naming_it(client, survey):
    response = client.get("/api/planner/?bandwith_gbs=0.1&strategy=hybrid&strategy=data-ring")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert list(body["errors"]) == ["bandwith_gbs"]
    [message] = body["errors"]["bandwith_gbs"]
    assert message.startswith("unknown parameter 'bandwith_gbs' (allowed: P, allreduce, ")
    assert "bandwidth_gbs" in message
    assert client.get("/api/planner/?format=json&strategy=hybrid").status_code == 200
    assert client.get("/planner/?bandwith_gbs=0.1").status_code == 400


def test_it_answers_503_when_the_catalogue_lacks_a_formula(client, survey):
    CostModel.objects.filter(technique__slug="pipelining").delete()
    response = client.get("/api/planner/")
    assert response.status_code == 503
    body = response.json()
    assert (body["code"], body["errors"]) == ("unavailable", {})  # about no parameter
    assert "Pipelining: idle (bubble) fraction of a step" in body["detail"]


@pytest.mark.parametrize("url", ["/api/planner/?network=vgg-16", "/planner/?network=alexnet&P=64"])
def test_it_answers_in_a_constant_number_of_queries(client, survey, url, django_assert_num_queries):
    # The catalogue's version (the response cache's key), the cost models, their works and their
    # techniques' works, the strategies' techniques and their works; the MLPerf systems of the
    # measured runs like the plan (their score pages), once per catalogue version.
    with django_assert_num_queries(7):
        assert client.get(url).status_code == 200
    with django_assert_num_queries(1):  # the same answer again: from the response cache
        assert client.get(url).status_code == 200


def test_it_shows_the_ranked_table_with_bars_derivations_and_the_paper(client, survey):
    html = client.get("/planner/?network=vgg-16&P=4&memory_gb=2").content.decode()
    assert '<tr data-strategy="hybrid">' in html
    assert 'class="bar"' in html and 'class="compute" style="width:' in html
    assert "does not fit" in html
    assert 'id="derivation-pipeline"' in html
    assert "138 (millions), Table 2, configuration D" in html
    assert "+0.3 %" in html  # 138,357,544 against 138 million
    assert 'data-figure="planner-figure"' in html
    # Each technique a strategy stands on leads to its section's hub.
    assert (
        '<a href="/techniques/#technique-allreduce-tree">Tree allreduce</a> '
        '(<a href="/categories/bg-algorithms/">its section</a>)'
    ) in html


@pytest.mark.parametrize(
    ("page", "link"),
    [
        ("/costs/", "/planner/?network=alexnet&amp;P=8"),
        ("/techniques/", "/planner/?network=vgg-16&amp;P=4&amp;micro_batches=16#strategies"),
        (
            "/demos/pipeline-bubble/",
            "/planner/?network=vgg-16&amp;P=4&amp;micro_batches=16#strategies",
        ),
        (
            "/demos/hybrid-one-weird-trick/",
            "/planner/?network=alexnet&amp;P=8&amp;batch=1024#strategies",
        ),
    ],
)
def test_it_is_linked_prefilled_from_costs_techniques_and_demos(client, survey, page, link):
    assert f'href="{link}"' in client.get(page).content.decode()


def test_it_takes_precision_and_optimizer_and_shows_the_bytes_per_value(client, survey):
    query = "network=vgg-16&P=8&precision=fp16-mixed&optimizer=adam&efficiency=0.5"
    document = client.get(f"/api/planner/?{query}").json()
    assert document["machine"]["bytes_per_value"] == {
        "weights": 2,
        "gradients": 2,
        "optimizer_state": 12,
        "messages": 2,
        "activations": 2,
    }
    assert document["machine"]["efficiency"] == 0.5
    assert document["inputs"]["precision"] == "fp16-mixed"
    zero3 = next(s for s in document["strategies"] if s["slug"] == "zero-3")
    assert zero3["memory_per_node"]["buffers"] == 4 * 102_764_544
    html = client.get(f"/planner/?{query}").content.decode()
    assert 'id="efficiency-assumption"' in html
    assert "optimizer state K = 12 per parameter" in html
    assert '<option value="adam" selected>' in html
    bad = client.get("/api/planner/?precision=int4")
    assert bad.status_code == 400


def test_the_schema_states_the_joint_bounds(client, survey):
    schema = client.get("/api/schema/?format=json").json()
    parameters = {p["name"]: p for p in schema["paths"]["/api/planner/"]["get"]["parameters"]}
    assert "at most `batch`" in parameters["micro_batches"]["description"]
    assert "at most 8 × the bytes per value sent" in parameters["bits"]["description"]
    precisions = ["bf16-mixed", "fp16-mixed", "fp32", "fp8"]
    assert sorted(parameters["precision"]["schema"]["enum"]) == precisions
    assert sorted(parameters["recompute"]["schema"]["enum"]) == ["full", "none", "selective"]
    assert sorted(parameters["overlap"]["schema"]["enum"]) == ["false", "true"]
    assert "PyTorch DDP" in parameters["overlap"]["description"]
    for name in ("bucket_mb", "devices_per_node", "intra_latency_us", "intra_bandwidth_gbs"):
        assert parameters[name]["schema"]["minimum"] == BOUNDS[name].low
        assert parameters[name]["schema"]["maximum"] == BOUNDS[name].high
    assert "the last node may hold fewer" in parameters["devices_per_node"]["description"]


def test_each_strategy_counts_its_numbers_resting_on_unconfirmed_formulas(client, survey):
    document = client.get("/api/planner/?network=vgg-16&P=8").json()
    for strategy in document["strategies"]:
        counts = strategy["unconfirmed_numbers"]
        assert counts["numbers"] == len(strategy["derivations"])
        resting = [
            d
            for d in strategy["derivations"]
            if any(m["status"] not in ("confirmed", "standard") for m in d["cost_models"])
        ]
        assert counts["unconfirmed"] == len(resting)
    html = client.get("/planner/?network=vgg-16&P=8").content.decode()
    ring = next(s for s in document["strategies"] if s["slug"] == "data-ring")
    counts = ring["unconfirmed_numbers"]
    assert f"{counts['unconfirmed']} of its {counts['numbers']} numbers" in html


def test_the_page_form_names_each_input_once(client, survey):
    """The form groups its inputs by topic; an input in two groups is sent twice, and a
    parameter given twice is refused (a planner that answers only the address it was given)."""
    html = client.get("/planner/").content.decode()
    names = re.findall(r'<(?:input|select)[^>]* name="([^"]+)"', html)
    assert names and len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_its_default_efficiency_is_the_calibrated_one_and_an_explicit_one_overrides_it(
    client, survey
):
    from explorer.planner.accuracy.calibration import default_efficiency

    query = "network=resnet-50&machine=a100-cluster&P=64"
    document = client.get(f"/api/planner/?{query}").json()
    per_device = document["inputs"]["batch"] / 64  # samples per device per step
    expected = default_efficiency("a100-sxm4-80gb", "cnn", per_device)
    assert document["efficiency"]["value"] == expected["value"] < 1
    assert document["efficiency"]["runs"] == expected["runs"] > 0
    assert "MLPerf" in document["efficiency"]["basis"]
    assert document["machine"]["efficiency"] == expected["value"]
    given = client.get(f"/api/planner/?{query}&efficiency=1").json()
    assert given["efficiency"] == {
        "value": 1.0,
        "basis": "given (the efficiency input)",
        "runs": 0,
        "fit": "given",
    }
    assert given["machine"]["efficiency"] == 1.0
    html = client.get(f"/planner/?{query}").content.decode()
    assert "MLPerf" in html


def test_each_point_of_the_sweep_is_the_answer_at_that_p(client, survey):
    """The efficiency is calibrated for the batch per device, so it changes with P: each point
    of the sweep takes its own P's, and reads as the planner's answer at that P. A given
    efficiency holds for every point."""
    query = "network=resnet-50&machine=a100-cluster&batch=512&sweep_max=64&sweep_points=4"
    swept = client.get(f"/api/planner/?{query}&P=8").json()["sweep"]
    for index, p in enumerate(swept["P"]):
        alone = client.get(f"/api/planner/?{query}&P={p}").json()
        for strategy in alone["strategies"]:
            point = swept["strategies"][strategy["slug"]]["step_time"][index]
            assert _same_step(point, strategy["step_time"]), (p, strategy["slug"])
    given = client.get(f"/api/planner/?{query}&P=8&efficiency=0.5").json()["sweep"]
    at_four = client.get(f"/api/planner/?{query}&P=4&efficiency=0.5").json()
    index = given["P"].index(4)
    for strategy in at_four["strategies"]:
        point = given["strategies"][strategy["slug"]]["step_time"][index]
        assert _same_step(point, strategy["step_time"]), strategy["slug"]


def _same_step(point: float | None, alone: float | None) -> bool:
    """The same step time, or both None (the strategy does not apply at that P)."""
    return point is None and alone is None or point == pytest.approx(alone, rel=1e-12)
