"""Published figures reproduced from the planner's inputs (bench/README.md, "Published figures
against the planner"): the pipeline bubbles and Goyal et al.'s step time. The ZeRO rows are in
test_precision.py. Pure: no database."""

import math

import pytest

from explorer.planner import plan as planning
from explorer.planner.machine import parse
from explorer.planner.sensitivity import sensitivity
from explorer.planner.strategies import Context, interleaved, layer_split
from explorer.workloads.formulas import fixture_formulas
from explorer.workloads.networks import Network, networks

FORMULAS = fixture_formulas()
NETWORKS = set(networks())

# Goyal et al. 2017: one hour for 90 epochs of ImageNet-1k (1,281,167 images) at 8192 a step.
GOYAL_STEPS = math.ceil(90 * 1_281_167 / 8192)  # 14,076
GOYAL_STEP = 3600 / GOYAL_STEPS  # 0.256 s
GOYAL_SCALING = 0.9  # "~90% scaling efficiency when moving from 8 to 256 GPUs" (abstract)
# The efficiency that puts the planner's 8-GPU step (one server: almost all compute) at
# 0.9 × 0.256 s, what the 90% scaling says the 8-GPU step took: calibrated on the paper's own
# figure, so that the 256-GPU step tests the communication model (overlap, two levels).
GOYAL_EFFICIENCY = 0.305


def equal_stages_network(layers: int) -> Network:
    """`layers` identical fully connected layers: the stages of a split are equal."""
    row = {
        "name": "fc",
        "kind": "fc",
        "branch": "main",
        "C_in": 1000,
        "C_out": 1000,
        "H": 1,
        "W": 1,
        "H_out": 1,
        "W_out": 1,
        "K": 1,
        "stride": 1,
        "pad": 0,
        "groups": 1,
        "relu": False,
        "bn": False,
        "parameters": 1_001_000,
    }
    return Network("equal", "equal layers", 0, "", "", 64, (row,) * layers, {}, {})


def equal_stages(p: int, m: int, chunks: int = 1) -> Context:
    query = {"P": str(p), "micro_batches": str(m), "chunks": str(chunks), "batch": "64"}
    return Context(parse(query, NETWORKS), equal_stages_network(8), FORMULAS)


def test_gpipes_bubble_is_p_minus_1_over_m_plus_p_minus_1_of_the_step():
    outcome = layer_split(equal_stages(4, 8), 8)
    bare = outcome.compute + outcome.idle
    assert outcome.idle / bare == pytest.approx(3 / 11)  # 0.273


def test_1f1b_bubble_is_p_minus_1_over_m_of_the_ideal_time():
    outcome = layer_split(equal_stages(4, 8), 8, schedule="1f1b")
    assert outcome.idle / outcome.compute == pytest.approx(3 / 8)  # 0.375


def test_the_interleaved_bubble_is_p_minus_1_over_v_m_of_the_ideal_time():
    outcome = interleaved(equal_stages(4, 8, chunks=2))
    assert outcome.idle / outcome.compute == pytest.approx(3 / (2 * 8))  # 0.1875


def goyal(**query) -> dict[str, dict]:
    values = {"machine": "goyal-2017", "network": "resnet-50", "efficiency": GOYAL_EFFICIENCY}
    inputs = parse({k: str(v) for k, v in {**values, **query}.items()}, NETWORKS)
    document = planning.plan(inputs, FORMULAS, with_sweep=False)
    return {s["slug"]: s for s in document["strategies"]}


def test_the_efficiency_puts_one_servers_step_where_goyals_scaling_says():
    one_server = goyal(P=8, batch=256)["data-ring"]
    assert one_server["step_time"] == pytest.approx(GOYAL_SCALING * GOYAL_STEP, rel=0.01)


def test_it_reproduces_goyals_step_time_on_256_gpus_with_overlap_on_two_levels():
    by_slug = goyal(batch=8192)
    for slug in ("data-ring", "data-rabenseifner"):
        step = by_slug[slug]["step_time"]
        assert 0.23 <= step <= 0.26  # measured: 0.23-0.26 s
        assert step / GOYAL_STEP == pytest.approx(0.93, abs=0.01)
    ring = by_slug["data-ring"]
    assert ring["communication_time"] < ring["total_communication_time"] / 3  # mostly hidden
    # Without overlap the whole exchange is exposed: the step is longer than measured.
    exposed = goyal(batch=8192, overlap="false")["data-ring"]["step_time"]
    assert exposed / GOYAL_STEP == pytest.approx(1.03, abs=0.01)


def test_the_sensitivity_says_which_unconfirmed_terms_change_the_best_strategy():
    inputs = parse({"network": "vgg-16", "P": "16"}, NETWORKS)
    document = planning.plan(inputs, FORMULAS, with_sweep=False)
    result = document["sensitivity"]
    assert result["best"] == document["strategies"][0]["slug"] == "data-rabenseifner"
    rows = {row["term"]: row for row in result["terms"]}
    hybrid = rows["Hybrid (data-parallel conv, model-parallel FC): bytes per worker per step"]
    assert (hybrid["best_if_halved"], hybrid["changes_best"]) == ("hybrid", True)
    weight_gradient = rows["Convolution (direct), weight gradient: work"]
    assert weight_gradient["parts"] == ["compute"] and not weight_gradient["changes_best"]
    assert not any(term.endswith(": depth") for term in rows)  # depths give no time
    assert [row["changes_best"] for row in result["terms"]] == sorted(
        (row["changes_best"] for row in result["terms"]), reverse=True
    )


def test_the_sensitivity_scales_only_the_parts_resting_on_the_term():
    def strategy(slug, compute, communication, parts):
        return {
            "slug": slug,
            "applicable": True,
            "fits": True,
            "compute_time": compute,
            "communication_time": communication,
            "idle_time": 0.0,
            "unconfirmed_parts": {"compute": [], "communication": parts, "idle": []},
        }

    a = strategy("a", 1.0, 0.5, ["x"])  # 1.5 s, 2.0 s with x doubled
    b = strategy("b", 1.0, 0.8, [])  # 1.8 s whatever x
    result = sensitivity([a, b])
    assert result["best"] == "a"
    assert result["terms"] == [
        {
            "term": "x",
            "parts": ["communication"],
            "strategies": 1,
            "best_if_doubled": "b",
            "best_if_halved": "a",
            "changes_best": True,
        }
    ]
