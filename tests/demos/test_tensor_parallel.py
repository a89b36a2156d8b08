"""The tensor-parallelism demo (issue 26): the ring allreduce, the catalogue's 4·b·s·h, bounds."""

import json
from pathlib import Path

import numpy as np
import pytest

from catalogue import costs
from explorer.demos import DEMOS, ParamError, run_in_process, validate_params
from explorer.demos.tensor_parallel import Links

DEMO = DEMOS["tensor-parallel"]
CATALOGUE = Path(__file__).resolve().parents[2] / "fixtures" / "after_cost_models.json"


def catalogue_formula() -> str:
    models = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    (model,) = [
        m
        for m in models
        if m["technique"] == "tensor-parallelism" and m["quantity"] == "communication"
    ]
    return model["formula"]


def test_the_ring_allreduce_sums_every_devices_array_and_counts_its_bytes():
    rng = np.random.default_rng(0)
    parts = [rng.standard_normal((2, 3, 5)) for _ in range(5)]
    links = Links(gamma=2, devices=5)
    assert np.allclose(links.allreduce(parts), np.sum(parts, axis=0), atol=1e-12)
    assert links.allreduced == 30
    # 30 values in chunks of 6, 6, 6, 6, 6: 2·(5 − 1) chunks of 6 values, 2 bytes each.
    assert links.sent.tolist() == [96] * 5


@pytest.mark.parametrize("params", [{}, {"t": 2, "b": 3, "s": 7, "head_dim": 5}])
def test_it_measures_the_catalogues_values_per_layer(params):
    result = run_in_process(DEMO, params)
    values = validate_params(DEMO, params)
    h = values["t"] * values["heads_per_device"] * values["head_dim"]
    model = costs.evaluate(catalogue_formula(), {"b": values["b"], "s": values["s"], "h": h})
    (measured,) = [m for m in result["metrics"] if m["name"].startswith("values allreduced")]
    assert measured["value"] == measured["predicted"] == model


@pytest.mark.parametrize(
    ("name", "value"),
    [("t", 9), ("t", 0), ("heads_per_device", 3), ("head_dim", 17), ("s", 65), ("layers", 3)],
)
def test_it_refuses_parameters_out_of_bounds(name, value):
    with pytest.raises(ParamError, match=name):
        validate_params(DEMO, {name: value})
