"""The layer tables (fixture integrity) and the whole-network totals beside the papers' figures.
Pure: no database (the formulas are read from fixtures/cost_models.json)."""

import json

import pytest

from explorer.workloads.agreement import TOLERANCE
from explorer.workloads.formulas import fixture_formulas
from explorer.workloads.networks import FIXTURE, networks, paper_comparison, totals
from fixtures.build.build_networks import SOURCE, build


def test_it_builds_the_committed_layer_tables_from_the_recorded_sources():
    source = json.loads(SOURCE.read_text(encoding="utf-8"))
    assert build(source) == json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_it_records_a_source_and_the_assumptions_for_every_network():
    for network in networks().values():
        source = network.layers_source
        assert source["transcribed_at"].startswith("http"), network.slug
        assert source["stated"] and source["assumed"], network.slug
        assert network.paper_url.startswith("https://"), network.slug


@pytest.mark.parametrize(
    ("slug", "layers", "fc_inputs", "last_conv_output"),
    [
        ("alexnet", 11, [9216, 4096, 4096], (256, 13, 13)),
        ("vgg-16", 21, [25088, 4096, 4096], (512, 14, 14)),
        ("resnet-50", 56, [2048], (2048, 7, 7)),
        ("resnet-101", 107, [2048], (2048, 7, 7)),
        # GoogLeNet's main chain ends on inception 5b's 3x3 branch; the fc takes the
        # concatenation, 384 + 384 + 128 + 128 = 1024 channels.
        ("googlenet", 72, [1024], (384, 7, 7)),
        # Network-in-Network ends on a 1x1 convolution to the 1000 classes: no fc layer.
        ("network-in-network", 16, [], (1000, 6, 6)),
    ],
)
def test_it_derives_the_sizes_the_papers_give(slug, layers, fc_inputs, last_conv_output):
    network = networks()[slug]
    assert len(network.layers) == layers
    assert [row["C_in"] for row in network.rows("fc")] == fc_inputs
    last = [row for row in network.rows("conv") if row["branch"] == "main"][-1]
    assert (last["C_out"], last["H_out"], last["W_out"]) == last_conv_output


EXPECTED = {
    # slug: (parameters, paper's, forward multiply-adds per sample, paper's)
    "alexnet": (60_965_224, 60_000_000, 724_406_816, None),
    "vgg-16": (138_357_544, 138_000_000, 15_470_264_320, 15_300_000_000),
    "resnet-50": (25_557_032, None, 3_857_973_248, 3_800_000_000),
    # The authors' prototxt: 44.5M parameters; Table 1's 7.6e9 FLOPs not read on a stored page.
    "resnet-101": (44_549_160, None, 7_570_194_432, None),
    # Caffe's GoogLeNet (BVLC's deploy file): 7.0M parameters, 1.58e9 multiply-adds.
    "googlenet": (6_998_552, None, 1_582_671_872, None),
    "network-in-network": (7_595_176, None, 1_100_188_800, None),
}


@pytest.mark.parametrize("slug", EXPECTED)
def test_it_puts_each_total_beside_the_papers_figure_within_the_tolerance(slug):
    network = networks()[slug]
    computed = totals(network, fixture_formulas(), network.batch)
    rows = {row["quantity"]: row for row in paper_comparison(network, computed)}
    parameters, paper_parameters, multiply_adds, paper_multiply_adds = EXPECTED[slug]
    assert rows["parameters"]["computed"] == parameters
    assert rows["parameters"]["paper"] == paper_parameters
    assert rows["multiply_adds"]["computed"] == multiply_adds
    assert rows["multiply_adds"]["paper"] == paper_multiply_adds
    for row in rows.values():
        if row["paper"] is None:
            assert row["within_tolerance"] is None
            assert row["reason"] == "The paper's figure is unknown to us."
        else:
            assert row["relative_difference"] == pytest.approx(
                (row["computed"] - row["paper"]) / row["paper"]
            )
            assert abs(row["relative_difference"]) <= TOLERANCE
            assert row["within_tolerance"] is True


def test_it_counts_backward_work_as_twice_the_forward_work_for_unstrided_vgg_convolutions():
    network = networks()["vgg-16"]
    computed = totals(network, fixture_formulas(), 1)
    # Input and weight gradients each cost the forward work when stride is 1 and H = H_out;
    # pooling and activations add one pass each, so the ratio is 2 within a fraction of a percent.
    assert computed["backward_work"] / computed["forward_work"] == pytest.approx(2.0, rel=0.002)


@pytest.mark.parametrize("slug", sorted(networks()))
def test_every_networks_backward_work_is_about_twice_its_forward_work(slug):
    # The input gradient of a convolution is a transposed convolution: the forward's work, over
    # the output positions H'·W', so strided layers (AlexNet's conv1, ResNet's downsampling) no
    # longer count stride² times the forward (AlexNet was 4.3 times its forward work).
    computed = totals(networks()[slug], fixture_formulas(), 1)
    assert computed["backward_work"] / computed["forward_work"] == pytest.approx(2.0, rel=0.005)


def test_it_names_the_cost_models_of_every_total_with_their_status():
    network = networks()["resnet-50"]
    computed = totals(network, fixture_formulas(), 32)
    labels = {model["label"]: model["status"] for model in computed["cost_models"]}
    assert labels["Direct convolution (Table 6): work"] == "confirmed"
    assert labels["Convolution (direct), input gradient: work"] == "standard"
    assert labels["Batch normalization, forward: work"] == "confirmed"
    assert labels["Floating-point operations per counted operation"] == "assumption"
