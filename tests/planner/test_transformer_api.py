"""/api/planner/ and /planner/ for transformers (issue 26): presets, layouts, time to train."""

import re

import pytest

from explorer.planner.machine import PRESETS as MACHINES
from explorer.workloads.transformers.shapes import PRESETS

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
    "time_to_train",
    "tokens_per_second",
    "achieved_flops_per_device",
    "mfu",
    "layout",
    "communication",
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
GPT3 = "/api/planner/?network=gpt3-175b&machine=a100-cluster&P=1024&efficiency=0.5"


def test_it_answers_the_documented_json_shape_for_a_transformer(client, survey):
    response = client.get(GPT3)
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
        "layouts",
        "sweep",
        "efficiency",
        "page_url",
        "api_url",
        "accuracy",
    }
    inputs = document["inputs"]
    assert (inputs["batch"], inputs["seq_len"], inputs["tokens"]) == (1536, None, 300e9)
    assert (inputs["precision"], inputs["optimizer"], inputs["recompute"]) == (
        "bf16-mixed",
        "adam",
        "selective",
    )
    network = document["network"]
    assert {k: network[k] for k in ("slug", "kind", "parameters", "batch", "seq_len")} == {
        "slug": "gpt3-175b",
        "kind": "transformer",
        "parameters": 174_604_259_328,
        "batch": 1536,
        "seq_len": 2048,
    }
    assert network["flops_per_step"] == pytest.approx(3.4168e18, rel=1e-3)
    assert network["megatron_flops_per_step"] == pytest.approx(3.3860e18, rel=1e-3)
    assert network["comparison"][0] | {"relative_difference": None} == {
        "quantity": "parameters",
        "computed": 174_604_259_328,
        "paper": 175e9,
        "paper_text": "175B parameters",
        "source": "https://labindex.ai/outputs/openai/gpt-3",
        "relative_difference": None,
        "within_tolerance": True,
        "reason": "Counted from the configuration with every bias and norm; the paper rounds.",
    }
    best = document["strategies"][0]
    assert best["slug"] == "3d" and best["rank"] == 1 and best["fits"]
    assert set(best) == STRATEGY_KEYS
    assert set(best["communication"]) == {
        "tensor",
        "pipeline",
        "data",
        "data_total",
        "expert",
        "context",
    }
    # The gradient exchange is overlapped with the last micro-batch's backward pass.
    assert best["exposed_communication_time"] == best["communication_time"]
    assert best["communication_time"] < best["total_communication_time"]
    assert best["total_communication_time"] - best["communication_time"] == pytest.approx(
        best["communication"]["data_total"] - best["communication"]["data"]
    )
    assert set(best["unconfirmed_parts"]) == {"compute", "communication", "idle"}
    sensitivity = document["sensitivity"]
    assert set(sensitivity) == {"best", "best_layout", "factors", "terms", "note"}
    assert sensitivity["best"] == "3d"
    layout = best["layout"]
    cp = f" × cp {layout['cp']}" if layout["cp"] > 1 else ""
    assert sensitivity["best_layout"] == (
        f"dp {layout['dp']} × tp {layout['tp']} × pp {layout['pp']}{cp}"
    )
    assert sensitivity["factors"] == [2.0, 0.5]
    assert set(best["memory_per_node"]) == {
        "weights",
        "gradients",
        "optimizer_state",
        "activations",
        "buffers",
        "total",
    }
    assert best["time_to_train"] == pytest.approx(300e9 / best["tokens_per_second"])
    assert best["step_time"] == pytest.approx(
        best["compute_time"] + best["communication_time"] + best["idle_time"]
    )
    assert 0 < best["mfu"] < 0.5
    layouts = document["layouts"]
    assert layouts["rows"][0]["loses_by"] == {
        "kind": "best",
        "text": "the fastest layout that fits",
    }
    assert {k: best["layout"][k] for k in ("tp", "pp", "dp")} == {
        k: layouts["rows"][0][k] for k in ("tp", "pp", "dp")
    }
    assert layouts["evaluated"] == len(layouts["rows"])
    assert (
        layouts["rows"][0]["total_communication_time"] >= layouts["rows"][0]["communication_time"]
    )
    statuses = {m["label"]: m["status"] for m in best["cost_models"]}
    assert statuses["Transformer training FLOPs per step (generalised)"] == "derived"
    assert all(m["id"] for m in best["cost_models"] if m["technique"])


def test_a_pinned_layout_is_the_only_one(client, survey):
    response = client.get(GPT3 + "&tp=8&pp=8&dp=16")
    layouts = response.json()["layouts"]
    assert [(r["tp"], r["pp"], r["dp"]) for r in layouts["rows"]] == [(8, 8, 16)]


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        (
            "&tp=8&pp=8&dp=8",
            {"non_field_errors": ["tp·cp·pp·dp must equal P (1024): got [8, 8, 8]"]},
        ),
        ("&recompute=some", None),
        ("&layers=0", None),
    ],
)
def test_it_refuses_bad_transformer_input(client, survey, query, errors):
    response = client.get(GPT3 + query)
    assert response.status_code == 400
    if errors is not None:
        assert response.json()["errors"] == errors


def test_a_configuration_of_your_own_with_experts(client, survey):
    url = (
        "/api/planner/?network=transformer&layers=4&hidden=256&heads=8&seq_len=128&vocab=1000"
        "&experts=8&top_k=2&P=16&batch=64&machine=a100-cluster"
    )
    document = client.get(url).json()
    expert = next(s for s in document["strategies"] if s["slug"] == "expert")
    assert expert["applicable"] and expert["layout"]["expert_parallel"] > 1
    assert expert["communication"]["expert"] > 0


@pytest.mark.parametrize("slug", list(PRESETS))
def test_every_preset_plans(client, survey, slug):
    response = client.get(f"/api/planner/?network={slug}&machine=a100-cluster")
    assert response.status_code == 200
    assert response.json()["network"]["comparison"][0]["within_tolerance"]


@pytest.mark.parametrize("machine", list(MACHINES))
def test_a_transformer_plans_on_every_machine_preset(client, survey, machine):
    """Machines with one level of network leave the link inside a node empty (it is then the
    link between nodes): a transformer plans there too."""
    response = client.get(f"/api/planner/?network=gpt2-xl&machine={machine}&P=8&batch=64")
    assert response.status_code == 200, response.content[:400]
    document = response.json()
    assert document["machine"]["intra_L"] >= 0
    assert any(s["applicable"] for s in document["strategies"])


def test_the_page_shows_the_layouts_and_days(client, survey):
    response = client.get("/planner/?network=megatron-1t&machine=a100-cluster&efficiency=0.5")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="layout-table"' in page
    assert "days" in page
    assert 'id="sensitivity-table"' in page and "Best layout if ×2" in page
    assert "Megatron-LM 2021&#x27;s largest GPT" in page or "Megatron-LM 2021's largest" in page


def test_the_api_is_fast_enough_for_p_4096(client, survey):
    response = client.get("/api/planner/?network=gpt3-175b&machine=a100-cluster&P=4096&batch=4096")
    assert response.status_code == 200
    assert response.json()["layouts"]["evaluated"] > 20


def test_the_api_searches_the_layouts_of_65536_devices(client, survey):
    query = "network=gpt3-175b&machine=a100-cluster&P=65536&batch=65536"
    document = client.get(f"/api/planner/?{query}").json()
    assert document["inputs"]["P"] == 65536 and document["layouts"]["evaluated"] > 20
    best = document["layouts"]["rows"][0]
    assert best["rank"] == 1 and best["tp"] * best["pp"] * best["dp"] * best["cp"] == 65536
    assert client.get(f"/api/planner/?{query}&P=65537").status_code == 400


def test_the_form_may_send_every_choice_over_a_presets_defaults(client, survey):
    url = "/planner/?network=gpt3-175b&machine=a100-cluster&precision=fp32&optimizer=adam"
    assert client.get(url).status_code == 200


def test_a_pinned_pipeline_may_have_uneven_stages_paced_by_the_most_loaded(client, survey):
    # 126 layers on 16 stages (Llama 3 405B's split): stages of 8 and 7 layers; the step waits
    # for a stage of 8, so compute is that of 128 layers' share; 2 stages of 63 are even.
    shape = "network=transformer&layers=126&hidden=2048&heads=16&P=64&batch=64&tp=1&cp=1"
    uneven = client.get(f"/api/planner/?{shape}&pp=16").json()["layouts"]["rows"][0]
    even = client.get(f"/api/planner/?{shape}&pp=2").json()["layouts"]["rows"][0]
    assert (uneven["pp"], uneven["dp"], uneven["rank"]) == (16, 4, 1)
    assert uneven["compute_time"] / even["compute_time"] == pytest.approx(8 * 16 / 126)
    # The free search tries uneven stages too (issue 46), and says so in the strategy's notes.
    searched = client.get(f"/api/planner/?{shape}").json()
    assert any(row["pp"] == 16 and row["rank"] for row in searched["layouts"]["rows"])
    pinned = client.get(f"/api/planner/?{shape}&pp=16&strategy=3d").json()["strategies"][0]
    assert "Uneven stages: 126 layers on 16 stages, at most 8 on a stage" in " ".join(
        pinned["notes"]
    )


def test_a_custom_transformer_may_have_a_gated_mlp(client, survey):
    # Llama 3.1 405B's shapes as a configuration of your own: 294.0B without the gate (the issue's
    # count), 403.9B with it; the rest (biases, tied embedding, learned positions) GPT-2's.
    shape = (
        "machine=a100-cluster&network=transformer&layers=126&hidden=16384&heads=128&kv_heads=8"
        "&ffn_hidden=53248"
        "&vocab=128256&seq_len=8192&P=16384&batch=2048&tp=8&pp=16&dp=128"
    )
    plain = client.get(f"/api/planner/?{shape}").json()
    gated = client.get(f"/api/planner/?{shape}&gated=true").json()
    assert gated["inputs"]["gated"] is True and plain["inputs"]["gated"] is None
    assert round(plain["network"]["parameters"] / 1e9, 1) == 294.0
    assert round(gated["network"]["parameters"] / 1e9, 1) == 403.9
    bad = client.get(f"/api/planner/?{shape}&gated=yes")
    assert bad.status_code == 400 and list(bad.json()["errors"]) == ["gated"]


def test_a_tensor_group_divides_the_nodes_devices(client, survey):
    # GPT-3's 96 heads divide by 3 and 6, but on 8-GPU nodes a group of 6 would span two nodes.
    query = "machine=a100-cluster&network=gpt3-175b&P=96&batch=96"
    rows = client.get(f"/api/planner/?{query}").json()["layouts"]["rows"]
    assert {row["tp"] for row in rows} <= {1, 2, 4, 8}
    refused = client.get(f"/api/planner/?{query}&tp=6")
    assert refused.status_code == 400
    assert refused.json()["errors"] == {
        "tp": [
            "tp (6) must divide devices_per_node (8): a tensor-parallel group stays inside one node"
        ]
    }


@pytest.mark.parametrize("query", ["network=gpt2-xl", "machine=goyal-2017&network=gpt2-xl&P=64"])
def test_the_3d_layout_is_never_slower_than_a_pipeline_it_evaluated(client, survey, query):
    # The search interleaves where it can; GPT-2 XL's pp = 2 is faster plain (issue 38).
    strategies = {s["slug"]: s for s in client.get(f"/api/planner/?{query}").json()["strategies"]}
    best = strategies["3d"]
    for slug in ("pipeline-1f1b", "pipeline-interleaved", "pipeline-gpipe", "data", "zero-1"):
        other = strategies[slug]
        if other["fits"]:
            assert best["fits"] and best["step_time"] <= other["step_time"] * (1 + 1e-12)


def test_a_preset_with_sizes_of_your_own_is_no_longer_the_papers_model(client, survey):
    query = "machine=a100-cluster&network=llama2-70b&layers=40&hidden=4096"
    network = client.get(f"/api/planner/?{query}").json()["network"]
    assert network["name"] == (
        "Transformer of your configuration: Llama 2 70B, grouped-query attention (Touvron et "
        "al. 2023) with layers 40 (not 80), hidden 4096 (not 8192)"
    )
    assert network["comparison"] == []
    paper = network["paper"]
    assert (paper["parameters"], paper["parameters_text"], paper["figures"]) == (None, "", {})
    assert "layers" not in paper["sources"] and "hidden" not in paper["sources"]
    assert paper["sources"]["vocab"] == PRESETS["llama2-70b"].sources["vocab"]  # kept
    page = client.get(f"/planner/?{query}")
    assert page.status_code == 200 and "against 70B" not in page.content.decode()
    same = client.get("/api/planner/?machine=a100-cluster&network=llama2-70b&layers=80").json()
    assert same["network"]["name"] == PRESETS["llama2-70b"].name  # its own size: still it
    assert same["network"]["comparison"][0]["paper"] == 70e9


def test_a_losing_layout_states_its_whole_step_difference_and_each_part(client, survey):
    rows = client.get(GPT3).json()["layouts"]["rows"]
    best = rows[0]
    loser = next(r for r in rows[1:] if r["loses_by"]["kind"] in ("communication", "bubble"))
    text = loser["loses_by"]["text"]
    difference = loser["step_time"] - best["step_time"]
    assert re.match(r"^\+[0-9.e+-]+ s per step \((communication|bubble|compute) [+−]", text)
    assert float(text[1:].split(" s per step")[0]) == pytest.approx(difference, rel=1e-3)


def test_flash_attention_keeps_no_attention_matrices_and_recomputes_them(client, survey):
    # Llama 3 405B at 16,384 GPUs without recomputation: the s x s matrices dominate (issue 38).
    query = "machine=a100-cluster&network=llama3.1-405b&device=h100-sxm&tp=8&pp=16&dp=128"
    query += "&recompute=none"
    standard = client.get(f"/api/planner/?{query}").json()
    flash = client.get(f"/api/planner/?{query}&attention=flash").json()
    selective = client.get(f"/api/planner/?{query[: -len('none')]}selective").json()
    row, fast, same = (d["layouts"]["rows"][0] for d in (standard, flash, selective))
    assert fast["memory_per_node"] < row["memory_per_node"] / 5
    assert fast["memory_per_node"] == pytest.approx(same["memory_per_node"], rel=1e-12)
    # The same FLOPs as selective recomputation, but the s x s softmax stays on chip: the
    # roofline prices no memory-bound score traffic, so its compute is faster.
    assert flash["network"]["flops_per_step"] == selective["network"]["flops_per_step"]
    assert fast["compute_time"] < same["compute_time"]
    assert flash["efficiency"]["roofline"]["value"] > selective["efficiency"]["roofline"]["value"]
    assert "arxiv.org/abs/2205.14135" in flash["machine"]["sources"]["attention"]
    assert "attention" not in standard["machine"]["sources"]
    assert client.get(f"/api/planner/?{query}&attention=fast").status_code == 400
