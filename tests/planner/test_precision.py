"""Precision and optimizer set the bytes per value; ZeRO's Figure 1 and Table 1 and DeepSpeed's
ZeRO-3 gathered layer reproduce from the planner's inputs. Pure: no database.

ZeRO: Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
Models", SC 2020, https://arxiv.org/abs/1910.02054 (Figure 1, §3.1; Table 1, §5.4).
DeepSpeed: estimate_zero3_model_states_mem_needs, deepspeed/runtime/zero/stage3.py,
https://github.com/deepspeedai/DeepSpeed."""

import pytest

from explorer.planner import plan as planning
from explorer.planner.machine import Inputs, PlannerInputError, parse
from explorer.planner.strategies.sharded import zero_model_states
from explorer.workloads.formulas import fixture_formulas
from explorer.workloads.networks import networks

FORMULAS = fixture_formulas()
NETWORKS = set(networks())
GB = 1e9


def inputs(**values) -> Inputs:
    return parse({key: str(value) for key, value in values.items()}, NETWORKS)


@pytest.mark.parametrize(
    ("query", "sizes"),
    [
        ({}, {"weights": 4, "gradients": 4, "optimizer_state": 4, "messages": 4, "activations": 4}),
        ({"optimizer": "sgd"}, {"optimizer_state": 0}),
        ({"optimizer": "adam"}, {"optimizer_state": 8}),
        ({"gamma": 2, "optimizer": "adam"}, {"weights": 2, "optimizer_state": 4}),
        (
            {"precision": "fp16-mixed", "optimizer": "adam"},
            {"weights": 2, "gradients": 2, "optimizer_state": 12, "messages": 2, "activations": 2},
        ),
        ({"precision": "bf16-mixed", "optimizer": "momentum"}, {"optimizer_state": 8}),
        ({"precision": "bf16-mixed", "optimizer": "sgd"}, {"optimizer_state": 4}),
        (
            {
                "precision": "fp16-mixed",
                "optimizer": "adam",
                "optimizer_bytes": 16,
                "message_bytes": 4,
                "weight_bytes": 4,
            },
            {"weights": 4, "gradients": 2, "optimizer_state": 16, "messages": 4},
        ),
        ({"optimizer_values": 3}, {"optimizer_state": 12}),
    ],
)
def test_precision_and_optimizer_set_the_bytes_per_value_each_overridable(query, sizes):
    shown = inputs(**query).sizes.as_dict()
    assert {name: shown[name] for name in sizes} == sizes


def test_it_refuses_an_unknown_precision_or_optimizer_and_bits_beyond_the_message_bytes():
    with pytest.raises(PlannerInputError, match="precision must be one of fp32"):
        inputs(precision="int4")
    with pytest.raises(PlannerInputError, match="optimizer must be one of sgd, momentum, adam"):
        inputs(optimizer="lamb")
    with pytest.raises(PlannerInputError, match="bits must be at most 8·message bytes = 16"):
        inputs(precision="fp16-mixed", bits=32)


def mixed_adam(devices: int) -> Inputs:
    return inputs(precision="fp16-mixed", optimizer="adam", P=devices)


def test_it_reproduces_zeros_figure_1_from_inputs():
    # Ψ = 7.5B, K = 12, N_d = 64: 120 GB, 31.4 GB, 16.6 GB, 1.9 GB per device.
    sizes = mixed_adam(64).sizes
    per_stage = [
        sum(zero_model_states(7.5e9, sizes, stage, 64).values()) / GB for stage in range(4)
    ]
    assert per_stage == pytest.approx([120, 31.4, 16.6, 1.9], rel=0.015)
    assert per_stage[3] == pytest.approx(1.875)  # (2+2+K)Ψ/N_d, printed 1.9


# ZeRO's Table 1: per-device model states (GB) by DP degree; the combinations the paper prints in
# bold (those that fit a 32 GB V100) and its baseline, as transcribed.
TABLE_1 = [
    # (Ψ, N_d, stage, GB)
    (7.5e9, 1, 1, 120),
    (7.5e9, 4, 3, 30),
    (7.5e9, 16, 2, 21.6),
    (7.5e9, 64, 1, 31.4),
    (128e9, 64, 3, 32),
    (1e12, 1024, 3, 15.6),
]


@pytest.mark.parametrize(("parameters", "devices", "stage", "paper"), TABLE_1)
def test_it_reproduces_zeros_table_1_from_inputs(parameters, devices, stage, paper):
    sizes = mixed_adam(devices).sizes
    planner = sum(zero_model_states(parameters, sizes, stage, devices).values()) / GB
    assert planner == pytest.approx(paper, rel=0.005)


def test_zero_3_holds_the_gathered_largest_layer_as_deepspeed_counts_it():
    # VGG-16: fc6 holds 102,764,544 of 138,357,544 parameters (74 %).
    document = planning.plan(
        parse(
            {"network": "vgg-16", "P": "8", "precision": "fp16-mixed", "optimizer": "adam"},
            NETWORKS,
        ),
        FORMULAS,
        False,
    )
    by_slug = {s["slug"]: s for s in document["strategies"]}
    zero3 = by_slug["zero-3"]["memory_per_node"]
    psi, largest = 138_357_544, 102_764_544
    assert zero3["buffers"] == 4 * largest  # DeepSpeed: largest_layer_memory = 4 · params
    model_states = zero3["weights"] + zero3["gradients"] + zero3["optimizer_state"]
    assert model_states == pytest.approx(16 * psi / 8)
    # DeepSpeed's ZeRO-3 estimate (no offload): 4·largest + 18Ψ/N; the planner's 16Ψ/N is ZeRO's
    # rule (DeepSpeed adds 2 bytes per parameter it does not itemise).
    deepspeed = 4 * largest + 18 * psi / 8
    assert (zero3["buffers"] + model_states) / deepspeed == pytest.approx(0.95, abs=0.01)
    assert by_slug["zero-1"]["memory_per_node"]["buffers"] == 0
    assert any(
        m["label"].startswith("ZeRO-3 holds the largest layer")
        for m in by_slug["zero-3"]["cost_models"]
    )


def test_efficiency_divides_the_throughput():
    peak = planning.plan(inputs(network="resnet-50", P=16), FORMULAS, False)
    half = planning.plan(inputs(network="resnet-50", P=16, efficiency=0.5), FORMULAS, False)
    assert half["single_node_time"] == pytest.approx(2 * peak["single_node_time"])
    ring = {s["slug"]: s for s in half["strategies"]}["data-ring"]
    ring_peak = {s["slug"]: s for s in peak["strategies"]}["data-ring"]
    assert ring["compute_time"] == pytest.approx(2 * ring_peak["compute_time"])
    assert ring["communication_time"] == pytest.approx(ring_peak["communication_time"])
