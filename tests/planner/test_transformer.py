"""Transformer networks from their configuration (pure): parameter counts beside each paper,
Megatron-LM 2021's FLOPs, Korthikanti et al.'s activation memory."""

import numpy as np
import pytest

from explorer.planner.layouts.step import activation_array
from explorer.planner.machine import Inputs
from explorer.workloads.agreement import TOLERANCE
from explorer.workloads.formulas import evaluate, fixture_formulas
from explorer.workloads.network_model import from_transformer
from explorer.workloads.transformers import shapes as transformer
from explorer.workloads.transformers.shapes import (
    PRESETS,
    active_parameters,
    flops_values,
    parameters,
)

FORMULAS = fixture_formulas()


def megatron_flops(c, batch: float, recompute: str) -> float:
    """The catalogue's Megatron-LM 2021 formula (a GPT layer)."""
    role = "transformer.flops.megatron" + ("_full" if recompute == "full" else "")
    values = {k: v for k, v in flops_values(c, batch, recompute).items() if k in "BslhV"}
    return float(evaluate(FORMULAS[role], values))


def training_flops(c, batch: float, recompute: str) -> float:
    return from_transformer(c, batch, recompute, FORMULAS).totals.flops_per_step


def six_nd(c, tokens: float) -> float:
    return float(evaluate(FORMULAS["transformer.six_nd"], {"N": active_parameters(c), "D": tokens}))


@pytest.mark.parametrize("slug", list(PRESETS))
def test_it_counts_each_presets_parameters_within_2_percent_of_its_paper(slug: str) -> None:
    preset = PRESETS[slug]
    difference = (parameters(preset.config) - preset.parameters_stated) / preset.parameters_stated
    # A size stated to one digit ("7B") is met within its rounding (7B: 6.5B to 7.5B).
    assert abs(difference) <= max(TOLERANCE, preset.parameters_rounding), difference
    assert preset.parameters_source.startswith("http")


def test_it_counts_gpt3_and_megatrons_largest_as_their_papers_formula_does() -> None:
    # Narayanan et al.'s count: 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)).
    for slug in ("gpt3-175b", "megatron-1t"):
        c = PRESETS[slug].config
        n, h = c.layers, c.hidden
        paper = 12 * n * h**2 * (1 + 13 / (12 * h) + (c.vocab + c.seq_len) / (12 * n * h))
        assert parameters(c) == pytest.approx(paper + 2 * h, rel=1e-12)  # + the final norm


def test_it_counts_grouped_query_attention_and_swiglu() -> None:
    c = PRESETS["llama2-70b"].config
    per_layer = 2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192
    assert parameters(c) == 80 * per_layer + 2 * 32000 * 8192 + 8192


def test_it_counts_the_experts_but_routes_a_token_through_top_k() -> None:
    c = PRESETS["deepspeed-moe-52b"].config
    assert parameters(c) == pytest.approx(52e9, rel=0.01)
    assert active_parameters(c) == pytest.approx(1.3e9, rel=0.02)  # "will only activate 1.3B"


def test_it_computes_gpt3_flops_by_hand_at_the_papers_batch() -> None:
    c = PRESETS["gpt3-175b"].config  # B = 1536, s = 2048, l = 96, h = 12288, V = 50257
    terms = 1 + 2048 / (6 * 12288) + 50257 / (16 * 96 * 12288)
    by_hand = 96 * 1536 * 2048 * 96 * 12288**2 * terms
    assert megatron_flops(c, 1536, "full") == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(4.5108e18, rel=1e-4)
    assert megatron_flops(c, 1536, "none") == pytest.approx(by_hand * 3 / 4, rel=0.01)
    # The generalised count agrees with the paper's to the biases (13h per layer).
    for recompute in ("none", "full"):
        assert training_flops(c, 1536, recompute) == pytest.approx(
            megatron_flops(c, 1536, recompute), rel=1e-4
        )
    # 6·N·D for one step of 1536 × 2048 tokens: within the attention and logits terms.
    assert six_nd(c, 1536 * 2048) == pytest.approx(megatron_flops(c, 1536, "none"), rel=0.05)


def test_selective_recomputation_adds_only_the_attention_core() -> None:
    c = PRESETS["gpt3-175b"].config
    extra = training_flops(c, 1, "selective") - training_flops(c, 1, "none")
    assert extra == pytest.approx(4 * 2048**2 * 12288 * 96)


@pytest.mark.parametrize(
    ("t", "sequence", "recompute", "per_sbh"),
    [
        (1, False, "none", 34 + 80),  # GPT-3: 5·a·s/h = 5·96·2048/12288 = 80
        (8, False, "none", 10 + 24 / 8 + 80 / 8),
        (8, True, "none", (34 + 80) / 8),
        (8, False, "selective", 10 + 24 / 8),
        (8, True, "selective", 34 / 8),
        (8, True, "full", 2),
    ],
)
def test_it_gives_korthikantis_activation_memory(t, sequence, recompute, per_sbh) -> None:
    c = PRESETS["gpt3-175b"].config
    tp, shard = np.array([float(t)]), np.array([sequence])
    inputs = Inputs(recompute=recompute)
    mode = (inputs.recompute, inputs.transformer_recompute)
    value = activation_array(FORMULAS, c, mode, 1.0, tp, shard)[0]
    assert value == pytest.approx(2048 * 12288 * per_sbh)


def test_it_builds_a_configuration_of_your_own_over_a_preset() -> None:
    c = transformer.config_for("transformer", {"layers": 2, "hidden": 64, "heads": 4})
    assert (c.layers, c.hidden, c.heads, c.ffn) == (2, 64, 4, 256)
    assert transformer.check(transformer.config_for("transformer", {"heads": 7})) is not None
