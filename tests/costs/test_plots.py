"""The /costs/ plots as pure functions: the fixtures' cost models read straight from the JSON
files (no database), layer presets, parameter checks, crossovers and every figure."""

import dataclasses
import json
import math
from pathlib import Path

import pytest
from django.http import QueryDict
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue.costs import FormulaError
from explorer.costs import params
from explorer.costs import plots as cost_plots
from explorer.costs.plots import build_plot, crossovers
from explorer.costs.presets import PRESETS, Layer
from explorer.costs.records import CostFormula, ParameterError, operators

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def fixture_formulas() -> list[CostFormula]:
    """The cost models of fixtures/cost_models.json, numbered in file order like load_survey."""
    techniques = {t["slug"]: t for t in json.loads((FIXTURES / "techniques.json").read_text())}
    models = json.loads((FIXTURES / "cost_models.json").read_text())
    return [
        CostFormula(
            id=index,
            technique=model["technique"],
            technique_name=techniques[model["technique"]]["name"],
            quantity=model["quantity"],
            eval=model["eval"],
            label=model["label"],
            formula=model["formula"],
            variables=tuple(model["variables"]),
            status=model["status"],
            status_label=model["status"],
            status_note=model["status_note"],
            section=model["section"],
            unit=model["unit"],
            asymptotic=model["asymptotic"],
        )
        for index, model in enumerate(models, start=1)
    ]


FORMULAS = fixture_formulas()
OPERATORS = {op.key: op for op in operators(FORMULAS)}


def query(**values) -> dict[str, list[str]]:
    return {
        name: value if isinstance(value, list) else [str(value)] for name, value in values.items()
    }


def formula_labelled(label: str) -> CostFormula:
    return next(f for f in FORMULAS if f.label == label)


# Operators and presets ---------------------------------------------------------------------------


def test_it_pairs_the_table_4_and_table_6_work_and_depth_formulas():
    assert list(OPERATORS) == [
        "activation.forward",
        "activation.input-gradient",
        "fully-connected.forward",
        "fully-connected.weight-gradient",
        "fully-connected.input-gradient",
        "conv-direct.forward",
        "conv-direct.weight-gradient",
        "conv-direct.input-gradient",
        "pooling.forward",
        "pooling.input-gradient",
        "batch-normalization.forward",
        "batch-normalization.weight-gradient",
        "batch-normalization.input-gradient",
        "conv-direct",
        "conv-im2col",
        "conv-fft",
        "conv-winograd",
    ]
    assert OPERATORS["conv-direct"].label == "Direct convolution (Table 6)"
    assert OPERATORS["conv-direct.forward"].short_label == "direct y"
    assert OPERATORS["conv-winograd"].short_label == "Winograd (T6)"


def test_it_computes_the_direct_convolution_work_of_alexnet_conv1_by_hand():
    layer = PRESETS["alexnet-conv1"].layer.with_sizes(N=1)
    work, depth, defaults = OPERATORS["conv-direct.forward"].at(layer)
    assert work == 1 * 3 * 96 * 55 * 55 * 11 * 11 == 105_415_200
    assert depth == pytest.approx(math.log2(11) * 2 + math.log2(3))
    assert defaults == {}
    work, depth, _ = OPERATORS["conv-direct"].at(layer)  # Table 6: ceilings in the depth
    assert (work, depth) == (105_415_200, 2 + 4 + 4)


def test_it_evaluates_winograd_with_its_recalled_tile_count_and_the_fft_with_its_default_c():
    layer = Layer("conv", N=2, C_in=4, C_out=8, H=6, W=6, K=3, pad=1, m_tile=2)
    assert (layer.H_out, layer.tiles) == (6, 2 * 3 * 3)
    work, depth, _ = OPERATORS["conv-winograd"].at(layer)
    alpha = 2 + 3 - 1
    assert work == alpha * (3**2 + alpha * 3 + 2 * alpha**2 + alpha * 2 + 2**2) + 8 * 4 * 18
    assert depth == 2 * 2 + 4 * 2 + 2
    _, _, defaults = OPERATORS["conv-fft"].at(layer)
    assert defaults == {"c": 1}


def test_it_evaluates_elementwise_operators_on_the_layer_output_with_the_pooling_window():
    layer = PRESETS["alexnet-conv1"].layer  # N = 128, 96 × 55 × 55 out, 3 × 3 pooling
    work, depth, _ = OPERATORS["pooling.forward"].at(layer)
    assert (work, depth) == (128 * 96 * 55 * 55, pytest.approx(2 * math.log2(3)))


@pytest.mark.parametrize(
    ("slug", "h_out", "source"),
    [
        ("alexnet-conv1", 55, (136, "krizhevsky2012imagenet")),
        ("alexnet-conv2", 27, (136, "krizhevsky2012imagenet")),
        ("alexnet-conv3", 13, (136, "krizhevsky2012imagenet")),
        ("alexnet-conv4", 13, (136, "krizhevsky2012imagenet")),
        ("alexnet-conv5", 13, (136, "krizhevsky2012imagenet")),
        ("alexnet-fc7", 1, (136, "krizhevsky2012imagenet")),
        ("vgg16-conv3", 56, (216, "simonyan2015very")),
        ("resnet50-conv1", 112, (93, "he2016deep")),
        ("resnet50-conv2-3x3", 56, (93, "he2016deep")),
    ],
)
def test_it_gives_each_preset_the_output_size_and_source_of_its_paper(slug, h_out, source):
    preset = PRESETS[slug]
    assert (preset.layer.H_out, preset.layer.W_out) == (h_out, h_out)
    assert (preset.source.ref, preset.source.key) == source
    assert preset.note and set(preset.stated) <= {"N", *preset.layer.sizes()}


# Parameters ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"preset": "lenet"}, "preset must be one of alexnet-conv1, "),
        ({"N": "0"}, "N must be between 1 and 65536 (got 0)"),
        ({"K": "500"}, "K must be between 1 and 256 (got 500)"),
        ({"C_in": "abc"}, "C_in must be a whole number between 1 and 65536 (got 'abc')"),
        ({"N": "2.5"}, "N must be a whole number between 1 and 65536 (got '2.5')"),
        ({"N": "nan"}, "N must be a whole number"),
        ({"preset": "alexnet-fc7", "H": "3"}, "H does not apply to a fully connected layer"),
        ({"H": "5", "W": "5", "K": "11"}, "the kernel (K = 11) does not fit the padded input"),
    ],
)
def test_it_refuses_bad_layer_parameters_with_a_message(values, message):
    with pytest.raises(ParameterError) as caught:
        params.layer_from_query(query(**values))
    assert message in str(caught.value)


def test_it_takes_empty_fields_as_the_presets_values():
    preset, layer = params.layer_from_query(query(preset="vgg16-conv3", N="", K="5"))
    assert layer == PRESETS["vgg16-conv3"].layer.with_sizes(K=5)


@pytest.mark.parametrize(
    ("name", "values", "message"),
    [
        ("parallelism", {"sweep": "W"}, "sweep must be one of N, C_in, C_out, H_out, K"),
        ("parallelism", {"from": "64", "to": "8"}, "from must be less than to (got from=64, to=8)"),
        ("parallelism", {"from": "65536"}, "from must be less than to (got from=65536, to=65536)"),
        ("parallelism", {"preset": "alexnet-conv3", "sweep": "K", "to": "99"}, "at K = 16, "),
        ("parallelism", {"ops": "conv-nope"}, "ops: unknown operator conv-nope"),
        ("parallelism", {"preset": "alexnet-fc7", "ops": "conv-fft"}, "unknown operator conv-fft"),
        ("parallelism", {"preset": "alexnet-fc7", "sweep": "H_out"}, "sweep must be one of"),
        ("brent", {"op": "softmax"}, "op must be one of"),
        ("brent", {"p_max": "1"}, "p_max must be between 2 and 1e+07 (got 1)"),
        ("brent", {"N": "1", "op": "batch-normalization.forward"}, "need W and D of at least 1"),
        ("allreduce-p", {"P_min": "64", "P_max": "8"}, "P_min must be less than P_max"),
        ("allreduce-m", {"L": "-1"}, "L must be between 0 and 1 (got -1)"),
        ("allreduce-m", {"gamma": "x"}, "gamma must be a number between 1 and 16 (got 'x')"),
        ("allreduce-m", {"P": "0"}, "P must be between 1 and 65536 (got 0)"),
    ],
)
def test_it_refuses_bad_plot_parameters_with_a_message(name, values, message):
    with pytest.raises(ParameterError) as caught:
        build_plot(name, FORMULAS, query(**values))
    assert message in str(caught.value)


def test_it_refuses_unknown_parameters_by_name():
    with pytest.raises(ParameterError, match=r"unknown parameter 'size' \(allowed: C_in, C_out,"):
        params.check_known(QueryDict("size=1&colour=2&N=3"))
    with pytest.raises(ParameterError, match="N is given 2 times; give it once"):
        params.check_known(QueryDict("N=1&N=3"))


# Crossovers ------------------------------------------------------------------------------------


def test_it_finds_a_crossover_on_a_small_hand_made_example():
    found = crossovers([1, 2, 4, 8], {"rising": [1, 2, 3, 4], "falling": [4, 3, 2, 1]})
    # The difference goes -1 -> +1 between x = 2 and x = 4: half way in log x is sqrt(8).
    assert found == [
        {"a": "rising", "b": "falling", "x": pytest.approx(math.sqrt(8)), "y": pytest.approx(2.5)}
    ]


def test_it_reports_each_pair_and_skips_gaps_touching_and_parallel_curves():
    x = [1, 2, 3, 4, 5]
    curves = {
        "a": [0, 1, 2, 3, 4],
        "b": [1, 1, 1, 1, 1],  # meets a on the sample x = 2 and crosses it there
        "c": [5, 6, 7, 8, 9],  # above everything: no crossing
        "d": [None, 3, None, 1, 0],  # crosses a across the gap at x = 3, meets b at x = 4
        "e": [0, 1, 3, 4, 5],  # touches a at x = 2 and stays above: no crossing
    }
    found = {(c["a"], c["b"]): c["x"] for c in crossovers(x, curves)}
    assert found == {
        ("a", "b"): 2.0,
        ("a", "d"): pytest.approx(math.sqrt(8)),  # -2 at x = 2 to +2 at x = 4
        ("b", "d"): 4.0,
        ("b", "e"): 2.0,
        ("d", "e"): pytest.approx(2**1.4),  # +2 at x = 2 to -3 at x = 4: 2/5 of the way
    }
    assert crossovers(x, {"same": [1, 2, 3, 4, 5], "again": [1, 2, 3, 4, 5]}) == []


def test_it_marks_where_tree_and_ring_allreduce_cross_as_the_message_grows():
    result = build_plot("allreduce-m", FORMULAS, query(P=8, L=1e-6, G=1e-10, gamma=4))
    # 2·log2(8)·(L + γmG) = 2·7·L + 2γmG·7/8  <=>  γmG = 8L / 4.25
    expected = 8e-6 / 4.25 / (4 * 1e-10)
    tree_ring = [
        c
        for c in result["data"]["crossovers"]
        if {c["a"], c["b"]} == {"Tree allreduce: time", "Pipelined ring allreduce: time"}
    ]
    assert [c["x"] for c in tree_ring] == [pytest.approx(expected, rel=0.01)]
    marks = next(t for t in result["figure"]["data"] if t["name"] == "crossovers")
    assert len(marks["x"]) == len(result["data"]["crossovers"]) >= 3


def test_it_draws_a_doubtful_formula_but_marks_no_crossing_on_it():
    tree = formula_labelled("Tree allreduce: time")
    formulas = [dataclasses.replace(f, status="doubtful") if f is tree else f for f in FORMULAS]
    result = build_plot("allreduce-m", formulas, query(P=8, L=1e-6, G=1e-10, gamma=4))
    assert "Tree allreduce: time" in [curve["label"] for curve in result["data"]["curves"]]
    assert "Tree allreduce: time" in result["unconfirmed"]
    crossed = {name for c in result["data"]["crossovers"] for name in (c["a"], c["b"])}
    assert crossed and "Tree allreduce: time" not in crossed


# Figures ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", list(PRESETS))
@pytest.mark.parametrize("name", cost_plots.PLOT_NAMES)
def test_it_builds_every_plot_for_every_preset(slug, name):
    result = build_plot(name, FORMULAS, query(preset=slug))
    assert result["name"] == name
    assert result["description"].endswith(".")
    assert result["figure"]["data"] and result["figure"]["layout"]["title"]["text"]
    assert result["formulas"] and all("status" in f for f in result["formulas"])
    json.dumps(result, allow_nan=False)  # valid JSON for the page and the API


def test_it_draws_every_applicable_operator_on_the_wd_plane_and_flags_the_unconfirmed():
    result = build_plot("wd-plane", FORMULAS, query(preset="alexnet-conv1"))
    points = {p["key"]: p for p in result["data"]["points"]}
    assert len(points) == 14 and "fully-connected.forward" not in points  # no FC at a conv
    assert result["data"]["not_drawn"] == []
    traces = {t["name"]: t for t in result["figure"]["data"]}
    hollow = traces["not confirmed"]
    assert hollow["marker"]["symbol"] == "circle-open"
    assert len(hollow["x"]) == sum(not p["confirmed"] for p in points.values()) == 7
    assert traces["confirmed (work and depth)"]["marker"]["symbol"] == "circle"
    layout = result["figure"]["layout"]
    assert (layout["xaxis"]["type"], layout["yaxis"]["type"]) == ("log", "log")
    assert "Winograd convolution (Table 6): work" in result["unconfirmed"]


def test_it_shows_the_doubt_on_the_winograd_work_formula():
    result = build_plot("wd-plane", FORMULAS, query(preset="resnet50-conv2-3x3"))
    winograd = next(p for p in result["data"]["points"] if p["key"] == "conv-winograd")
    assert winograd["doubtful"] == ["Winograd convolution (Table 6): work"]
    assert winograd["work_formula"]["status"] == "doubtful"
    doubt = next(t for t in result["figure"]["data"] if t["name"].startswith("doubtful formula"))
    assert doubt["x"] == [winograd["work"]]
    assert doubt["text"] == ["Winograd (T6): work formula doubtful"]
    hover = next(t for t in result["figure"]["data"] if t["name"] == "not confirmed")["hovertext"]
    assert any("⚠ doubtful formula: Winograd convolution (Table 6): work" in h for h in hover)


def test_it_lists_points_it_cannot_draw_with_the_reason():
    # N = 1: the depth of batch normalization, log2(N), is 0.
    result = build_plot("wd-plane", FORMULAS, query(preset="alexnet-fc7", N=1))
    not_drawn = {item["key"]: item["reason"] for item in result["data"]["not_drawn"]}
    assert not_drawn == {
        "fully-connected.weight-gradient": "the depth formula gives 0 at these sizes",
        "batch-normalization.forward": "the depth formula gives 0 at these sizes",
        "batch-normalization.weight-gradient": "the depth formula gives 0 at these sizes",
        "batch-normalization.input-gradient": "the depth formula gives 0 at these sizes",
    }


def test_it_sweeps_average_parallelism_with_gaps_where_it_is_undefined():
    result = build_plot(
        "parallelism",
        FORMULAS,
        query(preset="alexnet-fc7", sweep="N", ops="fully-connected.weight-gradient", to=64),
    )
    series = result["data"]["series"][0]
    assert result["data"]["x"][:3] == [1, 2, 3]
    # W/D = C_in·N·C_out / log2(N): undefined at N = 1, then 4096²·2/1 at N = 2.
    assert series["y"][:2] == [None, 4096 * 4096 * 2]
    assert result["figure"]["data"][0]["line"]["dash"] == "dot"  # recalled, not confirmed


def test_it_bounds_the_run_time_between_brents_curves():
    result = build_plot("brent", FORMULAS, query(preset="alexnet-fc7", p_max=1024))
    data = result["data"]
    assert (data["work"], data["depth"]) == (128 * 4096 * 4096, 12)
    lower, upper = data["curves"]
    assert lower["label"].endswith("lower bound") and upper["label"].endswith("upper bound")
    assert data["p"][0] == 1 and data["p"][-1] == 1024
    assert lower["y"][0] == data["work"] and upper["y"][0] == data["work"] + 12
    assert all(low <= high for low, high in zip(lower["y"], upper["y"], strict=True))


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(cost_plots.PLOT_NAMES),
    values=st.dictionaries(
        st.sampled_from(sorted(params.PAGE_PARAMETERS)),
        st.one_of(
            st.integers(-10, 100000).map(str),
            st.floats(allow_nan=True, allow_infinity=True).map(str),
            st.sampled_from(["", "abc", "conv-fft", "N", "H_out", "alexnet-fc7", "1e30"]),
        ),
        max_size=6,
    ),
)
def test_it_never_fails_other_than_with_a_parameter_or_formula_error(name, values):
    try:
        result = build_plot(name, FORMULAS, query(**values))
    except (ParameterError, FormulaError):
        return
    json.dumps(result, allow_nan=False)


# Labels from the database in the figures -------------------------------------------------------

HOSTILE = "W < 2 & D %{y}"
SHOWN = "W &lt; 2 &amp; D &#37;{y}"  # Plotly turns the entities back into the characters


def test_it_writes_database_labels_literally_in_every_figure():
    labelled = [dataclasses.replace(f, label=f"{HOSTILE} {f.label}") for f in FORMULAS]
    for name in PLOT_NAMES_WITH_LABELS:
        figure = build_plot(name, labelled, query())["figure"]
        texts = json.dumps(figure, ensure_ascii=False)
        assert HOSTILE not in texts, name
        assert SHOWN in texts, name


PLOT_NAMES_WITH_LABELS = ("wd-plane", "parallelism", "brent", "allreduce-p", "allreduce-m")


def test_it_writes_level_names_literally_in_the_timeline():
    from explorer.works.plots import timeline_figure

    [trace] = timeline_figure([(2016, "ops", 3)], {"ops": HOSTILE})["data"]
    assert trace["name"] == SHOWN
    assert trace["hovertemplate"] == f"{SHOWN}<br>%{{x}}: %{{y}} works<extra></extra>"
