"""The strategies: agreement with the demos that simulate the same quantity, bounds, fitting,
ranking and the sweep. Pure: no database."""

import dataclasses
import math

import numpy as np
import pytest

from explorer.demos import allreduce as allreduce_demo
from explorer.demos import hybrid as hybrid_demo
from explorer.demos import pipeline as pipeline_demo
from explorer.planner import layer_table_plan
from explorer.planner import plan as planning
from explorer.planner.machine import MAX_SWEEP_POINTS, Inputs, PlannerInputError, parse
from explorer.planner.strategies import (
    Context,
    data_parallel,
    gpipe_makespan,
    hybrid_bytes,
    layer_split,
    partition,
)
from explorer.workloads.formulas import evaluate, fixture_formulas
from explorer.workloads.networks import Network, networks

FORMULAS = fixture_formulas()
NETWORKS = set(networks())


def context(**values) -> Context:
    inputs = parse({key: str(value) for key, value in values.items()}, NETWORKS)
    return Context(inputs, networks()[inputs.network], FORMULAS)


# Agreement with the demos --------------------------------------------------------------------


@pytest.mark.parametrize(("stages", "micro_batches"), [(1, 1), (2, 1), (4, 8), (8, 3), (16, 64)])
@pytest.mark.parametrize("backward_cost", [0.0, 1.0, 2.0])
def test_it_agrees_with_the_pipeline_demo_on_the_bubble(stages, micro_batches, backward_cost):
    measured, makespan = pipeline_demo.bubble_fraction(stages, micro_batches, backward_cost)
    forward, backward = np.ones(stages), np.full(stages, backward_cost)
    planned = gpipe_makespan(forward, backward, micro_batches)
    busy = micro_batches * (forward.sum() + backward.sum())
    assert planned == pytest.approx(makespan)
    assert 1 - busy / (stages * planned) == pytest.approx(measured, abs=1e-12)
    catalogue = evaluate(FORMULAS["pipeline.bubble"], {"P": stages, "M": micro_batches})
    assert catalogue == pytest.approx(measured, abs=1e-12)


@pytest.mark.parametrize("algorithm", ["ring", "tree", "butterfly", "rabenseifner"])
@pytest.mark.parametrize("log2_p", [1, 3, 5])
def test_it_agrees_with_the_allreduce_demo_on_the_exchange_time(algorithm, log2_p):
    p, latency_us, gamma, ns_per_byte = 2**log2_p, 5.0, 4, 0.1
    ctx = context(
        network="alexnet",
        P=p,
        latency_us=latency_us,
        bandwidth_gbs=1 / ns_per_byte,
        overlap="false",  # the demo times one allreduce of the whole gradient
    )
    planned = data_parallel(ctx, algorithm).communication
    m = ctx.network.parameters
    params = {"log2_P": log2_p, "m": m, "gamma": gamma, "L": latency_us, "G": ns_per_byte, "S": 1}
    demo = next(a for a in allreduce_demo.ALGORITHMS if a.name.lower() == algorithm)
    outcome = allreduce_demo.simulate(demo, params, np.random.default_rng(0))
    assert planned == pytest.approx(outcome.simulated, rel=1e-9)


def demo_network() -> Network:
    """The hybrid demo's AlexNet as a planner layer table (only what the hybrid bytes need)."""
    rows = [
        {
            "kind": "conv" if layer.is_conv else "fc",
            "C_in": layer.inputs,
            "C_out": layer.outputs,
            "parameters": layer.parameters,
            "branch": "main",
        }
        for layer in hybrid_demo.ALEXNET
    ]
    return Network("demo", "demo AlexNet", 135, "", "", 128, tuple(rows), {}, {})


@pytest.mark.parametrize(("p", "per_worker"), [(2, 1), (4, 16), (8, 128)])
def test_it_agrees_with_the_hybrid_demo_on_the_bytes_moved(p, per_worker):
    inputs = Inputs(network="alexnet", P=p, batch=p * per_worker, gamma=4)
    ctx = Context(inputs, demo_network(), FORMULAS)
    m_conv = sum(layer.parameters for layer in hybrid_demo.CONV)
    per_worker_bytes, _ = hybrid_bytes(ctx, m_conv)
    assert p * per_worker_bytes == pytest.approx(hybrid_demo.hybrid_formula(p, per_worker, 4))
    assert p * per_worker_bytes == pytest.approx(hybrid_demo.hybrid_bytes(p, per_worker, 4))


@pytest.mark.parametrize("p", [2, 4, 8])
def test_it_agrees_with_the_data_parallel_demo_on_equivalence_and_traffic(p):
    ctx = context(network="resnet-50", P=p, batch=256)
    single = ctx.costs(256).flops.sum()
    per_node = ctx.costs(256 / p).flops.sum()
    assert p * per_node == pytest.approx(single, rel=1e-12)  # the same minibatch's work, split
    d = 1024
    sent = evaluate(FORMULAS["data_parallel.bytes"], {"gamma": 4, "m": d, "P": p})
    assert p * sent == pytest.approx(allreduce_demo.ring_bytes_sent(p, d, 4).sum())


# Strategies ------------------------------------------------------------------------------------


def test_it_splits_equal_layers_into_equal_stages():
    weights = np.ones(12)
    stages = partition(weights, 4)
    assert [len(stage) for stage in stages] == [3, 3, 3, 3]


def test_it_splits_layers_into_contiguous_stages_with_the_least_largest_stage():
    weights = np.array([5.0, 1, 1, 1, 1, 1, 5])
    stages = partition(weights, 3)
    assert max(weights[s].sum() for s in stages) == 5.0
    assert np.concatenate(stages).tolist() == list(range(7))


def test_it_shows_the_pipeline_idle_time_shrinking_with_micro_batches():
    few = layer_split(context(network="vgg-16", P=4, micro_batches=2), 2)
    many = layer_split(context(network="vgg-16", P=4, micro_batches=32), 32)
    assert many.idle < few.idle
    assert few.compute == pytest.approx(many.compute)


def test_it_says_when_a_strategy_does_not_apply():
    ctx = context(network="alexnet", P=16, batch=8, micro_batches=1)
    assert layer_split(ctx, 1).reason == "more nodes (P = 16) than layers (11)"
    assert data_parallel(ctx, "ring").reason == "fewer samples (N = 8) than nodes (P = 16)"


def test_it_says_does_not_fit_when_memory_is_exceeded():
    document = planning.plan(
        parse({"network": "vgg-16", "P": "4", "memory_gb": "0.5"}, NETWORKS), FORMULAS, False
    )
    ring = next(s for s in document["strategies"] if s["slug"] == "data-ring")
    assert ring["fits"] is False
    assert ring["rank"] is None
    assert ring["reason"].startswith("does not fit: ")
    assert ring["memory_per_node"]["weights"] == 4 * 138_357_544


def test_it_ranks_the_fitting_strategies_by_step_time_and_flags_unconfirmed_formulas():
    document = planning.plan(parse({"network": "resnet-50"}, NETWORKS), FORMULAS, False)
    ranked = [s for s in document["strategies"] if s["rank"] is not None]
    assert [s["rank"] for s in ranked] == list(range(1, len(ranked) + 1))
    assert [s["step_time"] for s in ranked] == sorted(s["step_time"] for s in ranked)
    for strategy in document["strategies"]:
        assert "Convolution (direct), weight gradient: work" in strategy["unconfirmed"]
        total = strategy["compute_time"] + strategy["communication_time"] + strategy["idle_time"]
        assert strategy["step_time"] == pytest.approx(total)
        assert strategy["efficiency"] == pytest.approx(strategy["speedup"] / 16)
    ring = next(s for s in document["strategies"] if s["slug"] == "data-ring")
    assert "Pipelined ring allreduce: time" not in ring["unconfirmed"]  # Patarasuk & Yuan 2009
    butterfly = next(s for s in document["strategies"] if s["slug"] == "data-butterfly")
    assert "Butterfly allreduce: time" in butterfly["unconfirmed"]
    tree = next(s for s in document["strategies"] if s["slug"] == "data-tree")
    assert "Tree allreduce: time" not in tree["unconfirmed"]  # confirmed in the catalogue


def test_it_never_ranks_on_a_doubtful_or_derived_formula_silently():
    formulas = dict(FORMULAS)
    formulas["allreduce.tree"] = dataclasses.replace(FORMULAS["allreduce.tree"], status="doubtful")
    document = planning.plan(parse({"network": "resnet-50"}, NETWORKS), formulas, False)
    tree = next(s for s in document["strategies"] if s["slug"] == "data-tree")
    assert "Tree allreduce: time" in tree["unconfirmed"]
    ps = next(s for s in document["strategies"] if s["slug"] == "data-ps")
    assert "Parameter server: communication time per step" in ps["unconfirmed"]  # derived here


def test_it_needs_no_communication_on_one_node():
    document = planning.plan(parse({"network": "alexnet", "P": "1"}, NETWORKS), FORMULAS, False)
    for strategy in document["strategies"]:
        assert strategy["communication_time"] == 0.0
        assert strategy["speedup"] == pytest.approx(1.0)


def test_it_shrinks_the_gradient_exchange_with_quantization_and_sparsification():
    plain = data_parallel(context(network="resnet-50", P=64), "ring")
    eight_bits = data_parallel(context(network="resnet-50", P=64, bits=8), "ring")
    sparse = data_parallel(context(network="resnet-50", P=64, density=0.01), "ring")
    assert eight_bits.communication < plain.communication
    assert sparse.communication < eight_bits.communication
    assert "communication-reduction" in {getattr(s, "slug", "") for s in sparse.sources}


def test_it_writes_each_derivation_with_the_values_substituted():
    query = {"network": "alexnet", "P": "8", "overlap": "false"}
    document = planning.plan(parse(query, NETWORKS), FORMULAS, False)
    tree = next(s for s in document["strategies"] if s["slug"] == "data-tree")
    exchange = next(d for d in tree["derivations"] if d["quantity"] == "communication time")
    assert exchange["formula"] == "2*log2(P)*(L + gamma*m*G)"
    assert exchange["substituted"] == "2*log2(8)*(5e-06 + 4*60965224*1e-10)"
    assert exchange["value"] == pytest.approx(2 * 3 * (5e-6 + 4 * 60965224 * 1e-10))
    assert exchange["cost_models"][0]["status"] == "confirmed"


# Bounds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"P": "0"}, "P (nodes (processors)) must be an integer between 1 and 65536 (got '0')"),
        ({"P": "70000"}, "between 1 and 65536"),
        ({"P": "2.5"}, "must be an integer"),
        ({"bandwidth_gbs": "0"}, "bandwidth_gbs (link bandwidth 1/G) must be a number between"),
        ({"flops": "inf"}, "flops (per-node throughput) must be a number between 1e+06 and 1e+18"),
        ({"flops": "nan"}, "between 1e+06 and 1e+18"),
        ({"batch": "1e999"}, "batch (minibatch size N"),
        (
            {"network": "lenet"},
            "network must be one of alexnet, googlenet, network-in-network, resnet-101, "
            "resnet-50, vgg-16",
        ),
        ({"machine": "cray"}, "machine must be one of example, alexnet-2012, goyal-2017"),
        ({"allreduce": "gossip"}, "allreduce must be one of ring, tree, butterfly, rabenseifner"),
        ({"batch": "4", "micro_batches": "8"}, "micro_batches must be at most batch (4)"),
        ({"gamma": "2", "bits": "32"}, "bits must be at most 8·gamma = 16"),
        ({"sweep_points": "33"}, f"between 2 and {MAX_SWEEP_POINTS}"),
    ],
)
def test_it_refuses_out_of_bounds_inputs_with_the_bound(query, message):
    with pytest.raises(PlannerInputError) as error:
        parse(query, NETWORKS)
    assert message in str(error.value)


def test_it_sweeps_at_most_the_bounded_number_of_points_from_one():
    inputs = parse({"sweep_max": "4096", "sweep_points": "32"}, NETWORKS)
    points = layer_table_plan.sweep_points(inputs)
    assert points[0] == 1 and points[-1] == 4096 and len(points) <= MAX_SWEEP_POINTS
    document = layer_table_plan.sweep(inputs, FORMULAS)
    for series in document["strategies"].values():
        assert len(series["step_time"]) == len(points)
        assert all(v is None or math.isfinite(v) for v in series["step_time"])


def test_it_stays_finite_at_the_extremes_of_every_bound():
    query = {
        "network": "vgg-16",
        "P": "4096",
        "batch": "65536",
        "micro_batches": "1024",
        "flops": "1e6",
        "memory_gb": "0.001",
        "latency_us": "1e6",
        "bandwidth_gbs": "0.001",
        "gamma": "16",
        "optimizer_values": "4",
        "servers": "4096",
        "density": "0.0001",
        "bits": "1",
        "sweep_max": "4096",
        "sweep_points": "2",
    }
    document = planning.plan(parse(query, NETWORKS), FORMULAS)
    for strategy in document["strategies"]:
        for name in ("step_time", "speedup", "efficiency"):
            assert strategy[name] is None or math.isfinite(strategy[name])


def test_it_gives_the_same_numbers_in_a_sweep_as_at_each_p_alone():
    inputs = parse(
        {"network": "vgg-16", "sweep_max": "1024", "sweep_points": "12", "bits": "8"}, NETWORKS
    )
    swept = layer_table_plan.sweep(inputs, FORMULAS)
    for index, p in enumerate(swept["P"]):
        alone, _ = layer_table_plan.strategies_at(inputs.with_p(p), FORMULAS)
        for strategy in alone:
            step = swept["strategies"][strategy["slug"]]["step_time"][index]
            if strategy["step_time"] is None:
                assert step is None
            else:
                assert step == pytest.approx(strategy["step_time"], rel=1e-12)


def test_it_shards_the_model_state_by_zero_stage_and_labels_it_after_the_survey():
    document = planning.plan(parse({"network": "vgg-16", "P": "8"}, NETWORKS), FORMULAS, False)
    by_slug = {s["slug"]: s for s in document["strategies"]}
    ring = by_slug["data-ring"]["memory_per_node"]
    stages = {stage: by_slug[f"zero-{stage}"] for stage in (1, 2, 3)}
    assert stages[1]["memory_per_node"]["optimizer_state"] == ring["optimizer_state"] / 8
    assert stages[1]["memory_per_node"]["gradients"] == ring["gradients"]
    assert stages[2]["memory_per_node"]["gradients"] == ring["gradients"] / 8
    assert stages[3]["memory_per_node"]["weights"] == ring["weights"] / 8
    assert stages[2]["communication_time"] == by_slug["data-ring"]["communication_time"]
    ring_total = by_slug["data-ring"]["total_communication_time"]
    assert stages[3]["communication_time"] == pytest.approx(
        by_slug["data-ring"]["communication_time"] + 0.5 * ring_total
    )
    assert stages[3]["total_communication_time"] == pytest.approx(1.5 * ring_total)
    for strategy in stages.values():
        assert "(after the survey)" in strategy["name"]
        zero = next(m for m in strategy["cost_models"] if m["label"].startswith("ZeRO-DP"))
        assert zero["works"] == ["rajbhandari2020zero"]
        assert zero["status"] == "confirmed"  # ZeRO's own rule: Figure 1 and Table 1 below


def test_it_divides_the_bubble_by_the_chunks_of_an_interleaved_pipeline():
    document = planning.plan(
        parse({"network": "vgg-16", "P": "4", "chunks": "4"}, NETWORKS), FORMULAS, False
    )
    by_slug = {s["slug"]: s for s in document["strategies"]}
    plain, interleaved = by_slug["pipeline"], by_slug["pipeline-interleaved"]
    assert interleaved["idle_time"] == pytest.approx(plain["idle_time"] / 4)
    assert interleaved["communication_time"] == pytest.approx(4 * plain["communication_time"])
    schedule = next(m for m in interleaved["cost_models"] if m["label"].startswith("Interleaved"))
    assert schedule["status"] == "confirmed"  # Narayanan et al.'s (p−1)/(v·m), test_figures.py
    too_many = planning.plan(
        parse({"network": "alexnet", "P": "8", "chunks": "2"}, NETWORKS), FORMULAS, False
    )
    refused = next(s for s in too_many["strategies"] if s["slug"] == "pipeline-interleaved")
    assert refused["reason"] == "P·v = 16 chunks, more than the 11 layers"


def test_the_registry_declares_each_familys_inputs_cost_models_and_strategies():
    from explorer.planner.strategies import FAMILIES, STRATEGY_SLUGS, all_outcomes

    fields = {f.name for f in dataclasses.fields(Inputs)}
    for family in FAMILIES:
        assert set(family.inputs) <= fields, family.slug
        assert set(family.cost_models) <= set(FORMULAS), family.slug
    outcomes = all_outcomes(context(network="vgg-16", P=4))
    assert [o.slug for o in outcomes] == list(STRATEGY_SLUGS)
    assert len(set(STRATEGY_SLUGS)) == len(STRATEGY_SLUGS)
