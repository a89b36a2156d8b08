"""Issue 46: the planner on the runs people plan. The roofline under every default efficiency,
a device that brings its usual node, the free search's uneven stages, the smallest change when
nothing fits, the sequence-parallel switch, and the published runs held out."""

import pytest

from explorer.planner.accuracy.calibration import accuracy
from explorer.planner.accuracy.calibration.fit import efficiency_at
from explorer.planner.accuracy.calibration.published import (
    measured_step,
    published_runs,
    zero_stage,
)
from explorer.planner.nodes import NODES
from explorer.planner.roofline import (
    CEILINGS,
    FP8_MEASURED_BOTH,
    FP8_OVER_BF16,
    ceiling,
    roofline,
)
from explorer.workloads.transformers.shapes import PRESETS

LLAMA_405B = "network=llama3.1-405b&device=h100-sxm&P=1024"


def test_the_roofline_never_exceeds_the_measured_matmul_ceiling():
    gpt3 = PRESETS["gpt3-175b"].config
    for slug, kind in CEILINGS:
        precision = "fp8" if kind == "fp8" else "bf16-mixed"
        fraction, source = ceiling(slug, precision)
        assert 0 < fraction <= 1 and "stas00/ml-engineering/blob/744d01e" in source
        for attention in ("standard", "flash"):
            value = roofline(gpt3, slug, precision, "selective", attention, 1e15)["value"]
            assert 0 < value <= fraction
    assert ceiling("tpu-v5p", "bf16-mixed") == (1.0, ceiling("no-such", "fp8")[1])


def test_fp8_on_a_device_measured_only_in_bf16_takes_its_bf16_fraction_not_its_peak():
    # MI300X: the table has no FP8 row; its BF16 row is 668.4 of 1300 TFLOP/s. Of the devices
    # measured in both precisions, FP8 reaches 0.88-1.04 of the BF16 fraction.
    fraction, source = ceiling("mi300x", "fp8")
    bf16, _ = ceiling("mi300x", "bf16-mixed")
    assert fraction == pytest.approx(bf16 * FP8_OVER_BF16)
    assert 0.95 < FP8_OVER_BF16 < 1.0 and len(FP8_MEASURED_BOTH) == 7
    assert "no FP8 measurement" in source and "AMD MI300X, BF16" in source
    assert ceiling("h100-sxm", "fp8")[0] == pytest.approx(1402.6 / 1979)  # its own row
    assert ceiling("l40s", "fp8")[0] == 1.0  # measured in neither: its peak, said so


def test_the_roofline_charges_the_scores_and_the_norms_repeated_without_sequence_parallelism():
    gpt3 = PRESETS["gpt3-175b"].config

    def value(**given):
        arguments = {"recompute": "selective", "attention": "standard", "replicated": 1.0}
        arguments |= given
        return roofline(
            gpt3,
            "a100-sxm4-80gb",
            "bf16-mixed",
            arguments["recompute"],
            arguments["attention"],
            312e12,
            arguments["replicated"],
        )["value"]

    assert value(attention="flash") > value()  # the s x s softmax stays on chip
    assert value(replicated=8.0) < value()  # eight tensor-parallel ranks repeat the norms


def test_a_stack_is_a_fraction_of_the_roofline_and_the_decile_a_slower_one():
    row = {"value": 0.8, "beta": 0, "spread": {"q10": 0.85, "q50": 1.0, "q90": 1.1}}
    assert efficiency_at(row, None) == 0.8
    assert efficiency_at(row, None, stack="decile") == pytest.approx(0.68)


def test_no_default_efficiency_goes_past_the_peak(client, survey):
    for query in (LLAMA_405B, "network=gpt3-175b", "network=bert-large&device=a100-sxm4-80gb"):
        found = client.get(f"/api/planner/?{query}").json()["efficiency"]
        assert 0 < found["value"] <= found["roofline"]["value"] <= 1, query
        assert 0 < found["of_roofline"] <= 1
    for row in accuracy()["predictions"]:
        assert row["mfu"] is None or 0 < row["mfu"] <= 1, row["system_id"]


def test_a_device_brings_its_usual_node_with_the_sources(client, survey):
    document = client.get("/api/planner/?network=llama2-70b&device=h100-sxm&P=1024").json()
    machine, inputs = document["machine"], document["inputs"]
    assert inputs["devices_per_node"] == 8 and inputs["bandwidth_gbs"] == 50.0
    assert machine["sources"]["devices_per_node"] == NODES["h100-sxm"].per_node_source
    assert "ConnectX-7" in machine["sources"]["bandwidth_gbs"]
    assert document["layouts"]["fitting"] > 0
    given = client.get(
        "/api/planner/?network=llama2-70b&device=h100-sxm&P=1024&devices_per_node=4"
    ).json()
    assert given["inputs"]["devices_per_node"] == 4  # the user's value wins


def test_llama_405b_on_1024_h100_finds_a_layout_that_fits_given_only_the_device(client, survey):
    document = client.get(f"/api/planner/?{LLAMA_405B}").json()
    best = document["strategies"][0]
    assert best["fits"]
    # ZeRO pinned at stage 1: the pipeline must split 126 layers, on uneven stages.
    piped = client.get(f"/api/planner/?{LLAMA_405B}&zero=1").json()["strategies"][0]
    assert piped["fits"] and piped["layout"]["pp"] in (16, 32, 64)
    assert "Uneven stages: 126 layers" in " ".join(piped["notes"])
    first = document["layouts"]["rows"][0]
    assert (first["tp"], first["pp"], first["dp"]) == tuple(
        best["layout"][name] for name in ("tp", "pp", "dp")
    )  # the strategies and the layouts table agree
    assert first["fits"] and document["layouts"]["to_fit"] is None


def test_when_nothing_fits_it_names_the_smallest_change_that_would(client, survey):
    query = "network=llama3.1-405b&device=h100-sxm&P=64&zero=1&recompute=selective"
    document = client.get(f"/api/planner/?{query}").json()
    assert document["layouts"]["fitting"] == 0
    change = document["layouts"]["to_fit"]
    assert change["query"] == {"zero": "3"} or change["query"] == {"P": "512"}
    assert change["layout"]["tp"] == 8
    assert change["memory_per_device"] <= 80e9


def test_sequence_parallelism_can_be_switched_off(client, survey):
    query = "network=gpt3-175b&machine=a100-cluster&tp=8&pp=16&dp=8&device=a100-sxm4-80gb"
    on = client.get(f"/api/planner/?{query}").json()
    off = client.get(f"/api/planner/?{query}&sequence_parallel=false").json()
    assert on["layouts"]["rows"][0]["sequence_parallel"] is True
    assert off["layouts"]["rows"][0]["sequence_parallel"] is False
    assert off["efficiency"]["roofline"]["value"] < on["efficiency"]["roofline"]["value"]
    bad = client.get(f"/api/planner/?{query}&sequence_parallel=maybe")
    assert bad.status_code == 400 and "sequence_parallel" in bad.json()["errors"]


def test_the_published_runs_are_held_out_and_judged_at_the_default():
    published = accuracy()["published"]
    runs = {run["id"]: run for run in published["runs"]}
    assert set(runs) == {run["id"] for run in published_runs()}
    table_1 = [run for key, run in runs.items() if key.startswith("megatron2021-t1-")]
    assert len(table_1) == 10 and all(run["ratio"] for run in table_1)
    within = sum(abs(run["ratio"] - 1) <= 0.15 for run in table_1)
    assert within == published["summary"]["papers"]["Narayanan et al. 2021 (SC21)"]["within_15"]
    for run in runs.values():
        assert run["reason"] or (run["measured_step_s"] > 0 and run["predicted_step_s"] > 0)


def test_a_papers_figure_becomes_a_step_time_as_the_paper_counts_it():
    network = {"tokens_per_step": 1000.0, "flops_per_step": 8e15, "model_flops_per_step": 6e15}
    megatron = {"id": "megatron2021-x", "cluster": {"devices": 8}}
    found = measured_step(megatron | {"measured": {"tflops_per_device": 100}}, network)
    assert found[0] == pytest.approx(8e15 / (100e12 * 8)) and "hardware" in found[1]
    rate = {"id": "nemo-x", "cluster": {"devices": 8}, "measured": {"tokens_per_s_per_device": 50}}
    assert measured_step(rate, network)[0] == pytest.approx(1000 / 400)
    unknown = {"id": "opt-x", "cluster": {"devices": 8}, "measured": {"tflops_per_device": 147}}
    assert "states no step time" in measured_step(unknown, network)


def test_a_sharding_named_in_words_is_a_zero_stage():
    assert zero_stage("ZeRO stage 1 (in BF16_Optimizer)") == 1
    assert zero_stage("fsdp (optimizer states + gradients)") == 2
    assert zero_stage("FSDP (fully sharded)") == 3
    assert zero_stage(None) is None


def test_the_overlap_switches_hide_what_the_frameworks_hide(client, survey):
    query = "network=llama3.1-405b&device=h100-sxm&P=1024&tp=8&pp=16&dp=4&cp=2"

    def hidden(extra: str) -> tuple[float, float]:
        plan = client.get(f"/api/planner/?{query}{extra}").json()["strategies"][0]
        found = next(
            d for d in plan["derivations"] if d["quantity"] == "communication hidden behind compute"
        )
        return plan["step_time"], found["value"]

    default_step, default_hidden = hidden("")
    assert default_hidden > 0  # the context-parallel ring, as Transformer Engine overlaps it
    tensor_step, tensor_hidden = hidden("&overlap_tensor=true")
    assert tensor_hidden > default_hidden and tensor_step < default_step
    exposed_step, exposed_hidden = hidden("&overlap_context=false&overlap_zero3=false")
    assert exposed_hidden == 0 and exposed_step > default_step
    bad = client.get(f"/api/planner/?{query}&overlap_tensor=yes")
    assert bad.status_code == 400 and "overlap_tensor" in bad.json()["errors"]


def test_more_tensor_ranks_than_key_value_heads_replicate_them(client, survey):
    # Llama 2 70B has 8 key/value heads: tp = 16 replicates each on two ranks (Megatron-LM).
    query = "network=llama2-70b&machine=a100-cluster&P=64&devices_per_node=16"
    replicated = client.get(f"/api/planner/?{query}&tp=16").json()["strategies"][0]
    assert replicated["fits"] and replicated["layout"]["tp"] == 16
    # 12 ranks neither divide 8 heads nor are a multiple of them (on 12-device nodes).
    uneven = client.get(
        "/api/planner/?network=llama2-70b&machine=a100-cluster&P=48&devices_per_node=12&tp=12"
    ).json()
    assert "nor is a multiple of them" in uneven["strategies"][0]["reason"]


def test_the_expert_parallel_size_may_be_pinned(client, survey):
    query = "network=deepspeed-moe-52b&machine=a100-cluster&P=512"
    pinned = client.get(f"/api/planner/?{query}&ep=8").json()["strategies"][0]
    assert pinned["layout"]["expert_parallel"] == 8
    refused = client.get(f"/api/planner/?{query}&ep=7").json()["strategies"][0]
    assert "ep does not divide the data-parallel size" in refused["reason"]
    assert client.get(f"/api/planner/?{query}&ep=0").status_code == 400
