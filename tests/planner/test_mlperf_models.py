"""Issue 38's MLPerf models and layout axis: MLPerf's GPT-3 175B and Llama 2 70B LoRA presets,
DeepSeek-V3 (shared experts, dense first layers, MLA approximated), experts that do not divide,
context parallelism; each formula against values computed by hand."""

import time

import numpy as np
import pytest

from explorer.planner.layouts.step import _expert_imbalance, expert_parallel
from explorer.workloads.formulas import fixture_formulas
from explorer.workloads.network_model import transformer_step
from explorer.workloads.transformers.mlperf import MLPERF_BENCHMARKS
from explorer.workloads.transformers.shapes import (
    PRESETS,
    TransformerConfig,
    active_parameters,
    adapter_layer,
    mla_attention,
    parameter_parts,
    parameters,
    trainable_parameters,
)

FORMULAS = fixture_formulas()
A100 = "/api/planner/?machine=a100-cluster"


def test_mlperf_gpt3_is_the_references_shape():
    config = PRESETS["gpt3-175b-mlperf"].config
    assert (config.layers, config.hidden, config.heads, config.seq_len, config.vocab) == (
        96,
        12288,
        96,
        2048,
        50257,
    )
    assert parameters(config) == 174_604_259_328  # -0.23 % of "175B"
    assert (
        "aa344c7fb900e82ed19fb94aebfed50c63ab2204" in PRESETS["gpt3-175b-mlperf"].sources["layers"]
    )


def test_lora_adapters_are_rank_r_pairs_on_qkv_and_o():
    config = PRESETS["llama2-70b-lora"].config
    # qkv: 16·(8192 + 8192 + 2·8·128) = 294,912; o: 16·(8192 + 8192) = 262,144; per layer 557,056.
    assert adapter_layer(config) == 557_056
    assert trainable_parameters(config) == 80 * 557_056 == 44_564_480
    base = parameters(PRESETS["llama2-70b"].config)
    assert base == 68_976_648_192
    assert parameters(config) == base + 44_564_480
    assert config.seq_len == 8192 and config.lora_rank == 16


def test_lora_flops_skip_the_bases_weight_gradients():
    # Two layers of h 8, a 2 heads, s 4, V 10, ffn 16, no biases; LoRA rank 2; B = 3.
    # p = attention 2·8² + 2·8·8 = 256 + MLP 2·8·16 = 256 → 512; p_a = 2·(4·8 + 2·8) = 96.
    base = TransformerConfig(
        2, 8, 2, 4, 10, ffn_hidden=16, bias=False, tied=False, learned_positions=False
    )
    lora = TransformerConfig(**{**base.__dict__, "lora_rank": 2})
    assert adapter_layer(lora) == 96
    # Full training: 2·B·s·l·p·3 + 4·B·s²·h·l·3 + 6·B·s·h·V = 73,728 + 9,216 + 5,760.
    assert transformer_step(base, 3, "none", FORMULAS)[1].hardware == 88_704
    # LoRA: 2·B·s·l·(p·2 + p_a·3) + 4·B·s²·h·l·3 + 4·B·s·h·V = 62,976 + 9,216 + 3,840.
    assert transformer_step(lora, 3, "none", FORMULAS)[1].hardware == 76_032
    # Full recomputation: one more forward (m = 4: the base 3 passes, the adapters 4).
    # 2·3·4·2·(512·3 + 96·4) + 4·3·16·8·2·4 + 4·3·4·8·10 = 92,160 + 12,288 + 3,840.
    assert transformer_step(lora, 3, "full", FORMULAS)[1].hardware == 108_288


def test_lora_memory_keeps_gradients_and_optimizer_state_for_the_adapters_only(client, survey):
    query = "&network=llama2-70b-lora&tp=1&pp=1&dp=8&zero=0"
    strategies = client.get(A100 + query).json()["strategies"]
    best = next(s for s in strategies if s["slug"] == "3d")
    memory = best["memory_per_node"]
    assert memory["weights"] == pytest.approx(69_021_212_672 * 2)  # base and adapters, bf16
    assert memory["gradients"] == pytest.approx(44_564_480 * 2)
    assert memory["optimizer_state"] == pytest.approx(44_564_480 * 12)  # Adam's K = 12
    full = client.get(A100 + "&network=llama2-70b&seq_len=8192&tp=1&pp=1&dp=8&zero=0&P=8")
    full_3d = next(s for s in full.json()["strategies"] if s["slug"] == "3d")
    full_data = full_3d["communication"]["data_total"]
    # Only the adapters' 44.6M gradients cross the network, not the base's 69B.
    assert best["communication"]["data_total"] < full_data / 500
    assert any(m["label"].startswith("LoRA: the base") for m in best["cost_models"])


def test_deepseek_v3_counts_671b_total_and_37b_active():
    config = PRESETS["deepseek-v3"].config
    # MLA per layer: 7168·1536 + 1536 + 1536·128·192 + 7168·576 + 512 + 512·128·256
    # + 128·128·7168 = 187,107,328.
    assert mla_attention(7168, 128, 1536, 512, 128, 64, 128) == 187_107_328
    assert config.moe_layers == 58 and config.dense_layers == 3
    parts = parameter_parts(config)
    assert parts["mlp"] == 3 * 3 * 7168 * 18432  # the three dense layers
    assert parts["shared_experts"] == 58 * 3 * 7168 * 2048
    assert parts["experts"] == 58 * (256 * 3 * 7168 * 2048 + 7168 * 256)  # experts, router
    assert parameters(config) == 671_026_404_352  # +0.004 % of 671B
    assert active_parameters(config) == 37_449_178_112  # +1.2 % of 37B


def test_experts_that_do_not_divide_are_sharded_and_their_imbalance_counted():
    dp = np.array([256.0, 32.0, 1.0, 6.0])
    assert list(expert_parallel(dp, 257)) == [256, 32, 1, 6]
    assert list(expert_parallel(np.array([64.0, 512.0]), 128)) == [64, 128]
    config = TransformerConfig(2, 64, 4, 16, 100, experts=257, top_k=2)
    uneven = _expert_imbalance(config, np.array([256.0, 257.0]))
    parts = parameter_parts(config)
    routed = parts["experts"] / 257 * 2
    share = routed / (parts["attention"] + routed)
    # ceil(257/256) = 2 experts on one device: 2·256/257 of the mean expert work.
    assert uneven[0] == pytest.approx(1 + share * (2 * 256 / 257 - 1))


def test_257_experts_are_sharded_through_the_api(client, survey):
    query = "&network=transformer&experts=257&top_k=2&P=256&batch=512&tp=1&pp=1"
    pinned = client.get(A100 + query + "&ep=256").json()["strategies"][0]
    assert pinned["layout"]["expert_parallel"] == 256
    # Left free, ep is searched (issue 46): the fastest that fits, never slower than ep = 256.
    best = client.get(A100 + query).json()["strategies"][0]
    assert best["layout"]["expert_parallel"] in (1, 2, 4, 8, 16, 32, 64, 128, 256)
    assert best["step_time"] <= pinned["step_time"]


def test_context_parallelism_splits_activations_and_sends_kv_round_a_ring(client, survey):
    query = "&network=llama2-70b-lora&P=64&batch=64&tp=1&pp=1&zero=3"
    one = client.get(A100 + query + "&cp=1").json()
    # The ring exposed (overlap_context=false) to read its formula; by default Transformer
    # Engine's ring hides it behind the attention (issue 46).
    two = client.get(A100 + query + "&cp=2&overlap_context=false").json()
    hidden = client.get(A100 + query + "&cp=2").json()["strategies"][0]
    a, b = one["strategies"][0], two["strategies"][0]
    assert b["layout"]["cp"] == 2 and b["layout"]["dp"] == 32
    assert b["memory_per_node"]["activations"] == pytest.approx(
        a["memory_per_node"]["activations"] / 2
    )
    inputs = two["inputs"]
    # Per layer and micro-batch: 3 · (cp − 1) hops of 2·b·(s/cp)·kv·head_dim/t values in bf16,
    # inside the node (t·cp = 2 ≤ 8): 2·1·4096·8·128·2 = 16,777,216 bytes a hop.
    hop = inputs["intra_latency_us"] * 1e-6 + 16_777_216 / (inputs["intra_bandwidth_gbs"] * 1e9)
    micro = 64 / (32 * 1)
    assert b["communication"]["context"] == pytest.approx(80 * micro * 3 * 1 * hop)
    assert a["communication"]["context"] == 0
    assert hidden["communication"]["context"] < b["communication"]["context"]
    derivations = {d["quantity"] for d in b["derivations"]}
    assert "context-parallel communication (ring attention)" in derivations


def test_the_search_tries_cp_only_where_the_sequence_splits_in_long_chunks(client, survey):
    rows = client.get(A100 + "&network=gpt3-175b").json()["layouts"]["rows"]
    assert {row["cp"] for row in rows} == {1}  # 2048 tokens: no chunk of 4096
    query = "&network=llama3.1-405b&device=h100-sxm&P=16384&seq_len=131072&batch=128"
    started = time.perf_counter()
    response = client.get(A100 + query)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200 and elapsed < 1.0
    rows = response.json()["layouts"]["rows"]
    assert {row["cp"] for row in rows} == {1, 2, 4, 8, 16}
    assert rows[0]["cp"] == 16


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("&network=llama3.1-8b&cp=3", "cp"),  # does not divide P = 1024
        ("&network=llama3.1-8b&cp=8192&P=8192", "cp"),  # 2·cp does not divide s = 8192
        ("&network=llama3.1-8b&cp=0", "cp"),
        ("&network=llama2-70b&lora_rank=10000", "lora_rank"),
        ("&network=llama2-70b&lora_rank=-1", "lora_rank"),
        ("&network=llama2-70b&shared_experts=1", "shared_experts"),
        ("&network=transformer&experts=8&dense_layers=48", "dense_layers"),
        ("&network=resnet-50&cp=2", "cp"),
    ],
)
def test_bad_model_and_layout_values_are_400s_naming_the_parameter(
    client, survey, query, parameter
):
    response = client.get(A100 + query)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert parameter in errors, errors
    assert parameter in " ".join(errors[parameter])


def test_a_preset_maps_from_mlperf_benchmark_names():
    # The `predict` helper maps MLPerf's llama2_70b_lora and gpt3 to these planner presets.
    assert MLPERF_BENCHMARKS == {"gpt3": "gpt3-175b-mlperf", "llama2_70b_lora": "llama2-70b-lora"}
    assert all(slug in PRESETS for slug in MLPERF_BENCHMARKS.values())
    assert PRESETS["llama2-70b-lora"].config.frozen
    assert PRESETS["gpt3-175b-mlperf"].defaults["batch"] == 1536
