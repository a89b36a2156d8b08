"""Activations in flight and recomputation, the gradient exchange overlapped in buckets, and
two-level networks. Pure: no database."""

import math

import numpy as np
import pytest

from explorer.planner import layer_table_plan
from explorer.planner import plan as planning
from explorer.planner.machine import PlannerInputError, parse
from explorer.planner.strategies import Context, data_parallel
from explorer.planner.strategies.exchange import buckets
from explorer.workloads.formulas import evaluate, fixture_formulas
from explorer.workloads.networks import networks

FORMULAS = fixture_formulas()
NETWORKS = set(networks())


def strategies(**query) -> dict[str, dict]:
    inputs = parse({key: str(value) for key, value in query.items()}, NETWORKS)
    document = planning.plan(inputs, FORMULAS, with_sweep=False)
    return {s["slug"]: s for s in document["strategies"]}


def context(**query) -> Context:
    inputs = parse({key: str(value) for key, value in query.items()}, NETWORKS)
    return Context(inputs, networks()[inputs.network], FORMULAS)


# Activations -------------------------------------------------------------------------------------


def test_1f1b_keeps_at_most_the_stages_in_flight_at_gpipes_step_time():
    by_slug = strategies(network="vgg-16", P=4, micro_batches=16)
    gpipe, one_f = by_slug["pipeline"], by_slug["pipeline-1f1b"]
    assert one_f["step_time"] == pytest.approx(gpipe["step_time"])
    # The first stage keeps min(M, S) = 4 micro-batches instead of 16: a quarter (4-byte values).
    ctx = context(network="vgg-16", P=4, micro_batches=16)
    first = ctx.stages()[0]
    per_micro = float(ctx.activations[first].sum()) * 256 / 16 * 4
    assert one_f["memory_per_node"]["activations"] == pytest.approx(4 * per_micro)
    assert gpipe["memory_per_node"]["activations"] == pytest.approx(16 * per_micro)
    schedule = next(m for m in one_f["cost_models"] if m["label"].startswith("1F1B schedule"))
    assert (schedule["status"], schedule["works"]) == ("confirmed", ["narayanan2021efficient"])


def test_full_recomputation_keeps_segment_inputs_and_pays_one_more_forward_pass():
    plain = strategies(network="resnet-50", P=8)["data-ring"]
    full = strategies(network="resnet-50", P=8, recompute="full")["data-ring"]
    assert full["memory_per_node"]["activations"] < plain["memory_per_node"]["activations"] / 2
    ctx = context(network="resnet-50", P=8)
    forward = float(ctx.costs(256 / 8).forward_flops.sum())
    assert full["compute_time"] == pytest.approx(plain["compute_time"] + forward / 10e12)
    extra = next(d for d in full["derivations"] if d["quantity"].startswith("recomputation"))
    assert extra["value"] == pytest.approx(forward / 10e12)
    pipeline = strategies(network="vgg-16", P=4, micro_batches=8, recompute="full")["pipeline"]
    ctx = context(network="vgg-16", P=4)
    inputs = ctx.network.column("C_in") * ctx.network.column("H") * ctx.network.column("W")
    # Each stage keeps its input for the 8 micro-batches and its outputs for one (4-byte values).
    kept = [(inputs[s[0]] * 8 + ctx.activations[s].sum()) * 256 / 8 * 4 for s in ctx.stages()]
    totals = [k + ctx.parameters[s].sum() * 12 for k, s in zip(kept, ctx.stages(), strict=True)]
    assert pipeline["memory_per_node"]["activations"] == pytest.approx(kept[np.argmax(totals)])


# Overlap ----------------------------------------------------------------------------------------


def test_buckets_fill_in_backward_order_up_to_the_bucket_size():
    ctx = context(network="vgg-16", bucket_mb=25)
    sizes, ends = buckets(ctx, np.arange(len(ctx.network.layers)))
    assert sizes.sum() == ctx.network.parameters
    # fc8 (4.1 M values, 16.4 MB) alone is below 25 MB; with fc7 (16.8 M values) it is over.
    assert sizes[0] == 4_097_000 + 16_781_312
    assert all(size * 4 >= 25e6 for size in sizes[:-1])
    assert list(ends) == sorted(ends)


def test_overlap_hides_all_but_the_tail_and_false_exposes_it_all():
    on = strategies(network="resnet-50", P=64)["data-ring"]
    off = strategies(network="resnet-50", P=64, overlap="false")["data-ring"]
    assert off["communication_time"] == off["total_communication_time"]
    assert on["exposed_communication_time"] == on["communication_time"]
    assert on["communication_time"] < on["total_communication_time"]
    # Each bucket pays the ring's latency terms: more in total than one exchange.
    assert on["total_communication_time"] > off["total_communication_time"]
    # The last bucket (the first layers) is always exposed.
    ctx = context(network="resnet-50", P=64)
    sizes, _ = buckets(ctx, np.arange(len(ctx.network.layers)))
    values = {"P": 64, "L": 5e-6, "G": 1e-10, "gamma": 4, "m": sizes[-1]}
    assert on["communication_time"] >= evaluate(FORMULAS["allreduce.ring"], values)
    one_bucket = strategies(network="resnet-50", P=64, bucket_mb=1e5)["data-ring"]
    assert one_bucket["communication_time"] == pytest.approx(off["communication_time"])


def test_the_parameter_server_and_pipelines_are_not_overlapped():
    by_slug = strategies(network="vgg-16", P=4)
    for slug in ("data-ps", "pipeline"):
        strategy = by_slug[slug]
        assert strategy["communication_time"] == strategy["total_communication_time"]


# Two-level networks -----------------------------------------------------------------------------


def test_hierarchical_allreduce_is_a_ring_inside_nodes_and_an_allreduce_across():
    query = {
        "network": "alexnet",
        "P": 64,
        "devices_per_node": 8,
        "intra_latency_us": 1,
        "intra_bandwidth_gbs": 100,
        "overlap": "false",
    }
    m = networks()["alexnet"].parameters
    ring = FORMULAS["allreduce.ring"]
    inside = evaluate(ring, {"P": 8, "L": 1e-6, "G": 1e-11, "gamma": 4, "m": m})
    for algorithm in ("ring", "tree", "rabenseifner"):
        across = evaluate(
            FORMULAS[f"allreduce.{algorithm}"], {"P": 8, "L": 5e-6, "G": 1e-10, "gamma": 4, "m": m}
        )
        planned = data_parallel(context(**query), algorithm).communication
        assert planned == pytest.approx(inside + across, rel=1e-12)
    within = data_parallel(context(**{**query, "P": 8}), "ring").communication
    assert within == pytest.approx(inside, rel=1e-12)
    flat = data_parallel(context(**{**query, "devices_per_node": 1}), "ring").communication
    assert flat == pytest.approx(
        evaluate(ring, {"P": 64, "L": 5e-6, "G": 1e-10, "gamma": 4, "m": m}), rel=1e-12
    )


def test_pipeline_boundaries_inside_a_node_take_the_intra_node_link():
    slow_outside = {"network": "vgg-16", "P": 4, "latency_us": 1000, "bandwidth_gbs": 0.01}
    apart = strategies(**slow_outside)["pipeline"]
    together = strategies(**slow_outside, devices_per_node=4, intra_bandwidth_gbs=100)["pipeline"]
    assert together["communication_time"] < apart["communication_time"] / 100


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"bucket_mb": "0"}, "bucket_mb (gradient bucket size (overlap)) must be a number"),
        ({"devices_per_node": "0"}, "devices_per_node (devices per node"),
        ({"intra_bandwidth_gbs": "-1"}, "intra_bandwidth_gbs (link bandwidth inside a node"),
        ({"overlap": "maybe"}, "overlap must be one of true, false"),
        ({"recompute": "half"}, "recompute must be one of none, selective, full"),
    ],
)
def test_it_refuses_the_new_inputs_out_of_bounds(query, message):
    with pytest.raises(PlannerInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(query, NETWORKS)


def test_a_sweep_gives_the_numbers_of_each_p_alone_on_two_levels_with_recomputation():
    inputs = parse(
        {
            "network": "resnet-50",
            "sweep_max": "512",
            "sweep_points": "10",
            "devices_per_node": "8",
            "intra_bandwidth_gbs": "80",
            "recompute": "full",
            "bucket_mb": "10",
        },
        NETWORKS,
    )
    swept = layer_table_plan.sweep(inputs, FORMULAS)
    for index, p in enumerate(swept["P"]):
        alone, _ = layer_table_plan.strategies_at(inputs.with_p(p), FORMULAS)
        for strategy in alone:
            step = swept["strategies"][strategy["slug"]]["step_time"][index]
            if strategy["step_time"] is None:
                assert step is None
            else:
                assert math.isclose(step, strategy["step_time"], rel_tol=1e-12)
