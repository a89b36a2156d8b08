"""Shapes of today's transformers (issue 46 item 5): head_dim other than hidden/heads, the
parallel attention + MLP block, replicated key/value heads, and recomputation as a search axis.
Pure functions first, then /api/planner/."""

from dataclasses import replace

import numpy as np
import pytest

from explorer.planner.layouts.step import replicated_kv, tensor_allreduces
from explorer.planner.machine import Inputs
from explorer.planner.roofline import _per_token_layer
from explorer.planner.transformers.plan import recompute_modes
from explorer.workloads.transformers.config import TransformerConfig
from explorer.workloads.transformers.shapes import (
    attention_layer,
    check,
    config_for,
    flops_values,
    parameter_parts,
)

# Gemma 7B's shape (hidden 3072, 16 heads of 256: an attention width of 4096, not 3072).
WIDE_HEADS = TransformerConfig(
    28, 3072, 16, 8192, 256000, ffn_hidden=24576, head_size=256, gated=True, bias=False
)
GPT = TransformerConfig(24, 2048, 16, 2048, 50000)


def test_head_dim_defaults_to_hidden_over_heads_and_changes_nothing_there():
    assert GPT.head_dim == 128 and GPT.attention_width == 2048 and GPT.kv_width == 2048
    same = replace(GPT, head_size=128)
    assert attention_layer(same) == attention_layer(GPT)
    assert flops_values(same, 8, "selective") == flops_values(GPT, 8, "selective")
    assert config_for("transformer", {"head_dim": 96}).head_size == 96


def test_head_dim_sizes_the_projections_and_the_attention_core():
    h, width = 3072, 16 * 256
    assert attention_layer(WIDE_HEADS) == 2 * h * width + 2 * h * width  # q, o; k, v (16 heads)
    parts = parameter_parts(WIDE_HEADS)
    # attention, gated MLP and two RMSNorms a layer, and the final norm
    assert parts["attention"] + parts["mlp"] + parts["norms"] == (
        28 * (4 * h * width + 3 * h * 24576 + 2 * h) + h
    )
    # The core's 4·B·s²·h becomes 4·B·s²·a·d: carried by n.
    assert flops_values(WIDE_HEADS, 1, "none")["n"] == pytest.approx(3 * width / h)
    work = _per_token_layer(WIDE_HEADS, "none", "flash")
    assert work["core"] == 3 * 4 * 8192 * width
    assert check(WIDE_HEADS) is None
    assert check(TransformerConfig(2, 3072, 7, 128, 10))[1] == "heads"  # no head_dim: refused


def test_a_parallel_block_has_one_norm_and_one_allreduce_fewer_forward():
    parallel = replace(GPT, parallel_block=True)
    assert parameter_parts(GPT)["norms"] - parameter_parts(parallel)["norms"] == 24 * 2 * 2048
    assert tensor_allreduces(GPT, "selective") == 4 and tensor_allreduces(parallel, "none") == 3
    assert tensor_allreduces(GPT, "full") == 6 and tensor_allreduces(parallel, "full") == 4
    moved = _per_token_layer(GPT, "none", "flash")["memory_values"]
    assert _per_token_layer(parallel, "none", "flash")["memory_values"] < moved


def test_key_value_heads_replicated_beyond_their_count_are_counted_in_full():
    llama = TransformerConfig(80, 8192, 64, 4096, 32000, kv_heads=8, bias=False)
    tp = np.array([1.0, 4.0, 8.0, 16.0, 32.0])
    extra = replicated_kv(llama, tp)
    assert list(extra[:3]) == [0.0, 0.0, 0.0]  # tp ≤ kv_heads: each rank holds kv/tp heads
    head = 2 * 8192 * 128  # one key and one value head's projections
    assert extra[3] == pytest.approx(head * (1 - 8 / 16))  # a whole head, not half of one
    assert extra[4] == pytest.approx(head * (1 - 8 / 32))


def test_recomputation_left_free_is_searched_where_it_changes_something():
    free = Inputs(network="gpt3-175b", recompute="selective", recompute_free=True)
    assert recompute_modes(free) == ["selective", "none", "full"]
    flash = replace(free, attention="flash")  # none and selective are the same there
    assert recompute_modes(flash) == ["selective", "full"]
    assert recompute_modes(replace(free, recompute_free=False)) == ["selective"]


GPT3 = "/api/planner/?network=gpt3-175b&machine=a100-cluster&P=1024&efficiency=0.5"


def test_the_search_tries_each_recomputation_and_says_which_it_chose(client, survey):
    document = client.get(GPT3).json()
    assert document["inputs"]["recompute_free"] is True
    rows = document["layouts"]["rows"]
    assert {row["recompute"] for row in rows} <= {"none", "selective", "full"}
    best = document["strategies"][0]
    assert best["layout"]["recompute"] == rows[0]["recompute"]
    assert "searched among selective, none, full" in best["notes"][0]
    pinned = client.get(GPT3 + "&recompute=selective").json()
    assert pinned["inputs"]["recompute_free"] is False
    assert {row["recompute"] for row in pinned["layouts"]["rows"]} == {"selective"}
    assert "searched" not in pinned["strategies"][0]["notes"][0]
    # The search's best is never slower than the pinned recomputation's.
    assert best["step_time"] <= pinned["strategies"][0]["step_time"] * (1 + 1e-12)


def test_a_sourced_recomputation_is_the_presets_not_searched(client, survey):
    lora = client.get("/api/planner/?network=llama2-70b-lora&machine=a100-cluster").json()
    assert lora["inputs"]["recompute"] == "full" and lora["inputs"]["recompute_free"] is False


def test_head_dim_and_the_parallel_block_as_inputs(client, survey):
    base = (
        "/api/planner/?network=transformer&machine=a100-cluster&layers=24&hidden=2048&heads=16"
        "&P=64&tp=8&pp=1&dp=8&zero=1&recompute=selective"
    )

    def best(query: str) -> dict:
        document = client.get(base + query).json()
        return document | {"3d": next(s for s in document["strategies"] if s["slug"] == "3d")}

    plain, wide = best(""), best("&head_dim=256")  # 16 heads of 256: twice the width
    assert wide["inputs"]["head_dim"] == 256 and plain["inputs"]["head_dim"] is None
    assert wide["network"]["parameters"] - plain["network"]["parameters"] == 24 * (
        2 * 2048 * 2048 * 2 + 2048 * 3  # q, k, v and o twice as wide, and their biases
    )
    assert wide["3d"]["compute_time"] > plain["3d"]["compute_time"]
    parallel = best("&parallel_block=true")
    assert parallel["inputs"]["parallel_block"] is True
    tensor = plain["3d"]["communication"]["tensor"]
    assert parallel["3d"]["communication"]["tensor"] == pytest.approx(tensor * 3 / 4)


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("network=transformer&head_dim=0", "head_dim"),
        ("network=transformer&head_dim=4097", "head_dim"),
        ("network=transformer&parallel_block=yes", "parallel_block"),
        ("network=resnet-50&head_dim=64", "head_dim"),
    ],
)
def test_a_bad_shape_is_a_400_naming_it(client, survey, query, parameter):
    response = client.get(f"/api/planner/?{query}")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [parameter]


def test_the_expert_parallel_size_left_free_is_searched(client, survey):
    from explorer.planner.transformers.plan import expert_sizes

    moe = TransformerConfig(24, 2048, 16, 2048, 50000, experts=16, expert_interval=2)
    assert expert_sizes(Inputs(P=64), moe) == [0, 1, 2, 4, 8, 16]
    assert expert_sizes(Inputs(P=64, ep=4), moe) == [0] and expert_sizes(Inputs(P=64), GPT) == [0]
    query = "/api/planner/?network=deepspeed-moe-52b&machine=a100-cluster&efficiency=0.5"
    free = client.get(query).json()
    best = next(s for s in free["strategies"] if s["slug"] == "3d")
    expert = next(d for d in best["derivations"] if d["quantity"].startswith("expert all-to-all"))
    assert "searched: 1, 2, 4, 8, 16, 32, 64, 128" in expert["substituted"]
    for ep in (1, 8, 128):
        pinned = client.get(f"{query}&ep={ep}").json()
        fitting = [s for s in pinned["strategies"] if s["slug"] == "3d" and s["fits"]]
        assert not fitting or best["step_time"] <= fitting[0]["step_time"] * (1 + 1e-12)
