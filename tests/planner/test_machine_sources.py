"""The machine presets' sources (issue 26): each value a source or a visible status. Pure."""

from explorer.planner.presets import EXAMPLE, PRESETS, preset_sources


def test_the_a100_cluster_cites_its_sources_and_says_what_is_an_example():
    sources = preset_sources(PRESETS["a100-cluster"])
    assert "github.com/NVIDIA/Megatron-LM/blob/145d2eb" in sources["devices_per_node"]
    # the intra-node link: the catalogue's reading of an MLPerf DGX A100 description, halved
    assert "mlcommons/training_results_v1.0" in sources["intra_bandwidth_gbs"]
    assert "arxiv.org/abs/2307.09288" in sources["bandwidth_gbs"]
    assert "unconfirmed" in sources["bandwidth_gbs"]  # per device: no source says so
    assert sources["intra_latency_us"].startswith(EXAMPLE)
    assert sources["latency_us"] == EXAMPLE


def test_no_preset_cites_a_page_that_is_not_about_its_value():
    for preset in PRESETS.values():
        for source in preset_sources(preset).values():
            assert "blogg.se" not in source and "aiportalx" not in source
