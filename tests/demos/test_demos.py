import json
from functools import cache

import pytest

from explorer.demos import DEMOS, run_in_process

SLUGS = [
    "convolution-algorithms",
    "fc-gemm",
    "data-parallel",
    "model-parallel",
    "tensor-parallel",
    "pipeline-bubble",
    "hybrid-one-weird-trick",
    "large-minibatch",
    "consistency-sgd",
    "allreduce-vs-ps",
    "gossip-averaging",
    "gradient-quantization",
    "gradient-sparsification",
    "model-averaging",
    "regularized-evolution",
]
TECHNIQUES = {
    "conv-direct", "conv-im2col", "conv-fft", "conv-winograd", "fully-connected",
    "data-parallelism", "model-parallelism", "pipelining", "hybrid-parallelism",
    "large-minibatch", "synchronous-sgd", "stale-synchronous-sgd", "asynchronous-sgd",
    "allreduce-tree", "allreduce-butterfly", "allreduce-ring", "allreduce-rabenseifner",
    "parameter-server", "gossip-averaging", "gradient-quantization", "gradient-sparsification",
    "model-averaging", "architecture-search-evolution", "tensor-parallelism",
}  # fmt: skip


@cache
def default_result(slug: str) -> dict:
    return run_in_process(DEMOS[slug], {})


def without_timings(result: dict) -> dict:
    """The result minus measured wall-clock times (the metrics whose unit is "s")."""
    return result | {"metrics": [m for m in result["metrics"] if m["unit"] != "s"]}


def test_it_registers_every_demo_and_technique():
    assert list(DEMOS) == SLUGS
    assert {technique for demo in DEMOS.values() for technique in demo.techniques} == TECHNIQUES
    assert all(demo.slug == slug for slug, demo in DEMOS.items())


@pytest.mark.parametrize("slug", SLUGS)
def test_it_runs_every_demo_with_defaults_into_json(slug):
    result = default_result(slug)

    assert json.loads(json.dumps(result, allow_nan=False)) == result
    assert set(result) == {"metrics", "tables", "figures", "agreement"}
    assert result["metrics"] and result["figures"] and result["agreement"]
    for entry in result["metrics"]:
        assert set(entry) == {"name", "value", "unit", "predicted", "note"}
    for entry in result["tables"]:
        assert entry["title"] and all(len(row) == len(entry["columns"]) for row in entry["rows"])
    for entry in result["agreement"]:
        assert set(entry) == {"claim", "holds", "detail"} and isinstance(entry["holds"], bool)


@pytest.mark.parametrize("slug", SLUGS)
def test_it_gives_every_figure_data_a_title_and_axis_labels(slug):
    for figure in default_result(slug)["figures"]:
        layout = figure["layout"]
        assert figure["data"] and all(trace.get("x") for trace in figure["data"])
        assert layout["title"]["text"]
        assert layout["xaxis"]["title"]["text"] and layout["yaxis"]["title"]["text"]


@pytest.mark.parametrize("slug", SLUGS)
def test_it_is_deterministic_for_a_seed(slug):
    again = run_in_process(DEMOS[slug], {"seed": 0})

    assert without_timings(again) == without_timings(default_result(slug))


@pytest.mark.parametrize("slug", SLUGS)
def test_it_holds_every_stated_agreement_with_defaults(slug):
    failed = [claim for claim in default_result(slug)["agreement"] if not claim["holds"]]

    assert failed == []


@pytest.mark.parametrize(
    ("slug", "params"),
    [
        ("convolution-algorithms", {"size": 9, "K": 3, "C_in": 3, "N": 1}),  # odd H': padded tiles
        ("convolution-algorithms", {"size": 12, "K": 5}),  # no Winograd
        ("fc-gemm", {"C_in": 1000, "N": 3, "C_out": 7}),
        ("fc-gemm", {"C_in": 1}),
        ("data-parallel", {"P": 3, "B": 7, "d": 10, "model": "least-squares", "lr": 0.1}),
        ("data-parallel", {"P": 8, "B": 5, "d": 3}),  # idle workers, empty chunks
        ("model-parallel", {"P": 5, "layers": 3, "width": 7, "N": 3}),  # P > layers, uneven
        ("tensor-parallel", {"t": 3, "s": 5, "b": 1}),  # chunks of b·s·h/3
        ("tensor-parallel", {"t": 8, "heads_per_device": 2, "head_dim": 2, "layers": 1}),
        ("tensor-parallel", {"t": 1}),  # one device: no allreduce at all
        ("pipeline-bubble", {"P": 7, "M": 3, "backward_cost": 0}),
        ("pipeline-bubble", {"P": 64, "M": 1, "backward_cost": 1.5}),
        ("pipeline-bubble", {"P": 1, "M": 5}),
        ("hybrid-one-weird-trick", {"P": 3, "b": 5}),
        ("allreduce-vs-ps", {"log2_P": 1, "S": 3}),
        ("allreduce-vs-ps", {"log2_P": 7, "S": 200, "m": 12345, "L": 0}),
        ("gossip-averaging", {"graph": "ring", "n": 20, "rounds": 50}),
        ("gossip-averaging", {"graph": "random-regular", "n": 15, "degree": 3, "rounds": 20}),
    ],
)
def test_it_holds_its_model_agreements_away_from_the_defaults(slug, params):
    result = run_in_process(DEMOS[slug], params)

    assert [c["claim"] for c in result["agreement"] if not c["holds"]] == []


def test_a_demo_s_log_axes_tick_in_full_numbers():
    """Issue 44: Plotly labelled 0.2 as "2"; the demos' log axes tick at 1, 2, 5 x 10^k."""
    from explorer.demos.common import Series, line_figure

    figure = line_figure(
        "t", "x", "y", [Series("s", [1, 10, 100], [0.2, 0.5, 3])], log_x=True, log_y=True
    )
    assert figure["layout"]["yaxis"]["ticktext"] == ["0.1", "0.2", "0.5", "1", "2", "5", "10"]
    assert figure["layout"]["xaxis"]["ticktext"][:4] == ["1", "2", "5", "10"]
