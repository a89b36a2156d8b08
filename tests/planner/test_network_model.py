"""The planner's network model: a CNN's layer table and a transformer's configuration as one
sequence of layers, whose totals are the networks' (parameters, FLOPs per step) exactly."""

import numpy as np
import pytest

from explorer.workloads.formulas import evaluate, fixture_formulas
from explorer.workloads.network_model import (
    LAYER_TABLE,
    TRANSFORMER,
    from_layer_table,
    from_transformer,
)
from explorer.workloads.networks import layer_costs, networks
from explorer.workloads.transformers.shapes import PRESETS, config_for, flops_values, parameters

FORMULAS = fixture_formulas()
MOE = config_for(
    "transformer",
    {"layers": 24, "hidden": 2048, "heads": 16, "experts": 16, "top_k": 2, "expert_interval": 2},
)


@pytest.mark.parametrize("slug", list(networks()))
def test_a_layer_table_is_one_layer_per_row_with_the_networks_totals(slug):
    network = networks()[slug]
    costs = layer_costs(network, FORMULAS, 256)
    model = from_layer_table(network, costs)
    assert model.kind == LAYER_TABLE and len(model.names) == len(network.layers)
    assert model.totals.parameters == network.parameters
    assert model.totals.flops_per_step == float(costs.flops.sum())
    assert model.single_device_time(1e12) == float(costs.flops.sum()) / 1e12


@pytest.mark.parametrize(
    "config", [p.config for p in PRESETS.values() if not p.config.frozen] + [MOE]
)
@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
def test_a_transformer_is_embedding_blocks_and_output_summing_to_the_catalogue_formula(
    config, recompute
):
    model = from_transformer(config, 512, recompute, FORMULAS)
    assert model.kind == TRANSFORMER and len(model.names) == config.layers + 2
    assert model.totals.parameters == parameters(config)
    hardware = evaluate(FORMULAS["transformer.flops"], flops_values(config, 512, recompute))
    assert model.totals.flops_per_step == pytest.approx(hardware, rel=1e-12)
    assert (model.backward_flops[1:-1] > model.forward_flops[1:-1]).all()


def test_a_mixture_of_experts_holds_its_experts_in_every_second_block():
    model = from_transformer(MOE, 8, "none", FORMULAS)
    blocks = model.parameters[1:-1]
    assert np.all(blocks[1::2] > 10 * blocks[0::2])  # 16 experts against one MLP
    flops = model.forward_flops[1:-1]
    assert flops[1] / flops[0] == pytest.approx(2, rel=0.2)  # a token goes through top_k = 2
