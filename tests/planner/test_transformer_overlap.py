"""Transformer layouts on issue 25's machinery (issue 26): the data-parallel gradient exchange in
buckets overlapped with the last micro-batch's backward pass, hierarchical across nodes, tensor
parallelism on the intra-node link, and the sensitivity of the best strategy and layout. Pure."""

import numpy as np
import pytest

from explorer.planner.layouts.exchange import data_exchange, exposed_uniform, ring
from explorer.planner.machine import parse
from explorer.planner.strategies.exchange import _exposed, _split
from explorer.planner.transformers.network import NETWORK_DEFAULTS
from explorer.planner.transformers.plan import plan
from explorer.workloads.formulas import fixture_formulas
from explorer.workloads.networks import networks
from explorer.workloads.transformers.shapes import PRESETS, parameters

FORMULAS = fixture_formulas()
NETWORKS = set(networks()) | set(PRESETS) | {"transformer"}


def make_inputs(**query):
    return parse({k: str(v) for k, v in query.items()}, NETWORKS, NETWORK_DEFAULTS)


def make_plan(**query) -> dict:
    return plan(make_inputs(**query), FORMULAS)


def by_slug(document: dict) -> dict[str, dict]:
    return {s["slug"]: s for s in document["strategies"]}


@pytest.mark.parametrize(
    ("layers", "layer_values", "embedding", "cap"),
    [(16, 3e6, 5e6, 12.5e6), (7, 2e8, 1e8, 12.5e6), (5, 1e6, 4e6, 12.5e6), (3, 1e6, 0.5e6, 1e9)],
)
def test_the_closed_form_is_exchange_pys_queue(layers, layer_values, embedding, cap):
    """exposed_uniform gives what exchange.py's bucket split and queue give, bucket by bucket."""
    inputs = make_inputs(network="gpt3-175b", machine="a100-cluster", P=64, bucket_mb=2 * cap / 1e6)
    dp, tp = np.array([8.0]), np.array([8.0])
    beta = 0.004  # one layer's backward pass (s)
    got = data_exchange(
        FORMULAS, inputs, tp, dp, np.array([layer_values]), np.array([float(layers)]),
        np.array([embedding]), np.array([beta]),
    )  # fmt: skip
    backward_order = np.array([layer_values] * layers + [embedding])
    sizes, ends = _split(backward_order, inputs.bucket_bytes / inputs.sizes.gradients)
    seconds = ring(FORMULAS, 8.0, sizes, inputs.latency, inputs.G, 2)
    expected = _exposed(seconds, ends, np.array([beta] * layers + [0.0]))
    assert got.exposed[0] == pytest.approx(expected, rel=1e-12)
    assert got.total[0] == pytest.approx(seconds.sum(), rel=1e-12)
    assert got.buckets[0] == len(sizes)


def test_the_closed_form_when_the_exchanges_queue_up():
    # 3 full buckets of 2 s ready every 1 s, the last (1 s) when the backward pass ends at 4 s:
    # the full ones end at 1 + 6 = 7 s, the last at 8 s: 4 s exposed.
    assert exposed_uniform(3.0, 1.0, 2.0, 1.0, 4.0) == pytest.approx(4.0)
    # Exchanges faster than the backward pass: only the last bucket is exposed.
    assert exposed_uniform(3.0, 1.0, 0.5, 1.0, 4.0) == pytest.approx(1.0)


def test_the_gradient_exchange_of_a_layout_is_overlapped_unless_overlap_is_false():
    on = by_slug(make_plan(network="llama2-7b", machine="a100-cluster", P=64, tp=1, pp=1))
    off = by_slug(
        make_plan(network="llama2-7b", machine="a100-cluster", P=64, tp=1, pp=1, overlap="false")
    )
    layout_on, layout_off = on["3d"], off["3d"]
    # The same values exchanged; each of the 33 buckets pays the ring's latency terms again
    # (about 1.4 % more: 8 members per node share the bandwidth term, not the latency).
    assert layout_on["total_communication_time"] == pytest.approx(
        layout_off["total_communication_time"], rel=0.02
    )
    assert layout_on["total_communication_time"] > layout_off["total_communication_time"]
    assert layout_on["communication_time"] < layout_off["communication_time"]
    assert layout_off["communication_time"] == layout_off["total_communication_time"]
    data = layout_on["communication"]
    assert 0 < data["data"] < data["data_total"]
    assert layout_on["step_time"] == pytest.approx(
        layout_on["compute_time"] + layout_on["communication_time"] + layout_on["idle_time"]
    )
    labels = {m["label"] for m in layout_on["cost_models"]}
    assert "Gradient exchange in buckets, overlapped with the backward pass" in labels
    assert "The gradient exchange overlaps the backward pass of the last micro-batch only" in labels


def test_a_data_parallel_group_spanning_nodes_exchanges_hierarchically():
    # tp = 2 on 8-device nodes (Megatron's rank order): 4 members of each of the 32-device
    # data-parallel groups in a node, 8 nodes: a ring inside on NVLink, then each member
    # allreduces its quarter across the nodes on its own link (RAIL_SHARES).
    query = {"network": "llama2-7b", "machine": "a100-cluster", "P": 64, "tp": 2, "pp": 1}
    best = by_slug(make_plan(**query, overlap="false"))["3d"]
    total = next(d for d in best["derivations"] if d["quantity"].endswith("(all of it)"))
    assert "ring over the 4 members in a node" in total["substituted"]
    assert "1/4 share over 8 nodes (ring allreduce" in total["substituted"]
    inputs = make_inputs(**query)
    values = parameters(PRESETS["llama2-7b"].config) / 2  # every parameter, split over tp = 2
    inside = ring(FORMULAS, 4.0, values, inputs.intra_latency, inputs.intra_G, 2)
    across = ring(FORMULAS, 8.0, values / 4, inputs.latency, inputs.G, 2)
    assert best["communication"]["data_total"] == pytest.approx(inside + across, rel=1e-9)
    # The reader's algorithm between nodes: Rabenseifner's log2 latency at the ring's bandwidth.
    faster = by_slug(make_plan(**query, overlap="false", allreduce="rabenseifner"))["3d"]
    assert faster["communication"]["data_total"] < best["communication"]["data_total"]
    assert (
        "rabenseifner allreduce"
        in next(d for d in faster["derivations"] if d["quantity"].endswith("(all of it)"))[
            "substituted"
        ]
    )
    flat = ring(FORMULAS, 32.0, values, inputs.latency, inputs.G, 2)
    assert inside + across < flat
    labels = {m["label"] for m in best["cost_models"]}
    assert any(label.startswith("Two-level allreduce") for label in labels)


def test_a_machine_whose_intra_node_latency_is_the_link_between_nodes_plans():
    # goyal-2017 leaves intra_latency_us None (no source): Inputs.intra_latency falls back.
    document = make_plan(network="gpt2-xl", machine="goyal-2017")
    assert document["machine"]["intra_L"] == pytest.approx(5e-6)
    assert by_slug(document)["3d"]["applicable"]


def test_tensor_parallelism_uses_the_intra_node_link():
    fast = make_plan(network="llama2-7b", machine="a100-cluster", P=8, tp=8, pp=1)
    slow = make_plan(
        network="llama2-7b", machine="a100-cluster", P=8, tp=8, pp=1, intra_bandwidth_gbs=25
    )
    tensor = by_slug(fast)["3d"]["communication"]["tensor"]
    assert by_slug(slow)["3d"]["communication"]["tensor"] > 10 * tensor


def test_the_sensitivity_names_the_best_strategy_and_layout_for_each_unconfirmed_term():
    # ZeRO stage 1 pinned: the best layout then pipelines (a free stage may shard instead).
    document = make_plan(network="gpt3-175b", machine="a100-cluster", efficiency=0.5, zero=1)
    result = document["sensitivity"]
    best = by_slug(document)["3d"]["layout"]
    assert result["best"] == document["strategies"][0]["slug"]
    cp = f" × cp {best['cp']}" if best["cp"] > 1 else ""
    assert result["best_layout"] == f"dp {best['dp']} × tp {best['tp']} × pp {best['pp']}{cp}"
    assert set(result["terms"][0]) == {
        "term",
        "parts",
        "strategies",
        "best_if_doubled",
        "best_if_halved",
        "changes_best",
        "best_layout_if_doubled",
        "best_layout_if_halved",
        "changes_best_layout",
    }
    terms = {row["term"]: row for row in result["terms"]}
    flops = terms["Transformer training FLOPs per step (generalised)"]
    assert flops["parts"] == ["compute", "idle"]
    # The trusted formulas (the confirmed ring allreduce, the 1F1B bubble) are not terms.
    assert "Pipelined ring allreduce: time" not in terms
    for strategy in document["strategies"]:
        if strategy["applicable"]:
            assert set(strategy["unconfirmed_parts"]) == {"compute", "communication", "idle"}
