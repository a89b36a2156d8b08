"""Devices as they come (issue 46 item 4): the cluster presets (DGX A100 and H100 SuperPODs, an
H800 cluster, a TPU v4 pod, a TPU v5p slice) and the usual node of an H800 and of TPU chips.
Every value has a source or says it is an example or recalled; explicit inputs win."""

import pytest

from explorer.planner.machine import PRESETS, parse
from explorer.planner.nodes import NODES, node_values
from explorer.planner.presets import preset_sources
from explorer.workloads.devices import devices

CLUSTERS = ("dgx-a100-superpod", "dgx-h100-superpod", "h800-cluster", "tpu-v4-pod", "tpu-v5p-slice")


@pytest.mark.parametrize("slug", CLUSTERS)
def test_a_cluster_preset_takes_its_device_figures_and_cites_every_value(slug):
    preset = PRESETS[slug]
    device = devices()[preset.device]
    assert preset.values["flops"] == device.flops("bf16-mixed")
    assert preset.values["memory_gb"] == device.memory_gb
    sources = preset_sources(preset)
    for name in ("P", "devices_per_node", "bandwidth_gbs", "intra_bandwidth_gbs", "flops"):
        assert "http" in sources[name], (slug, name)
    assert sources["latency_us"].startswith("example value")


def test_the_h800_is_the_h100s_compute_with_nvlink_cut_to_400_gbs():
    h800, h100 = devices()["h800-sxm"], devices()["h100-sxm"]
    assert h800.flops("bf16-mixed") == h100.flops("bf16-mixed") and h800.flops("fp8") == 1979e12
    assert h800.memory_gb == 80.0 and h800.intra_bandwidth_gbs == 200.0  # 400 both ways
    assert "divided by 2" in h800.source("intra_bandwidth_gbs")


def test_a_tpu_node_is_a_cube_of_its_torus_and_both_links_are_ici():
    for slug in ("tpu-v4", "tpu-v5p"):
        values, sources = node_values(slug, {})
        assert values["devices_per_node"] == 64 and "4x4x4" in sources["devices_per_node"]
        assert "optical ICI" in sources["bandwidth_gbs"]
    v4, _ = node_values("tpu-v4", {})
    assert v4["intra_bandwidth_gbs"] == v4["bandwidth_gbs"] == pytest.approx(1.1e15 / 4096 / 1e9)
    assert NODES["tpu-v5p"].inter_gbs == devices()["tpu-v5p"].intra_bandwidth_gbs == 600.0


def test_device_alone_brings_the_tpu_cube_and_every_value_may_be_overridden():
    inputs = parse({"device": "tpu-v4", "precision": "bf16-mixed"}, {"resnet-50"})
    assert (inputs.devices_per_node, inputs.flops) == (64, 275e12)
    given = {"devices_per_node": "16", "bandwidth_gbs": "6.25", "intra_bandwidth_gbs": "100"}
    mine = parse({"device": "tpu-v4", "precision": "bf16-mixed", **given}, {"resnet-50"})
    assert (mine.devices_per_node, mine.bandwidth_gbs, mine.intra_bandwidth_gbs) == (16, 6.25, 100)
    cluster = parse(
        {"machine": "h800-cluster", "precision": "bf16-mixed", "P": "512", "bandwidth_gbs": "25"},
        {"resnet-50"},
    )
    assert (cluster.P, cluster.bandwidth_gbs, cluster.intra_bandwidth_gbs) == (512, 25.0, 200.0)


@pytest.mark.parametrize("slug", CLUSTERS)
def test_a_transformer_plans_on_each_cluster(client, survey, slug):
    response = client.get(f"/api/planner/?network=llama2-70b&machine={slug}")
    assert response.status_code == 200
    document = response.json()
    assert document["machine"]["preset"] == slug
    assert document["machine"]["device"] == PRESETS[slug].device
    assert any(s["fits"] for s in document["strategies"])
