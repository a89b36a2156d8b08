"""One device table for the machine presets and the results' predictions, every figure with a
source (a URL, or the status saying it was recalled)."""

from explorer.planner.devices import DEVICES, LINKS, RECALLED, matching
from explorer.planner.machine import PRESETS, preset_sources
from explorer.results.predictions import TRANSFORMER_MACHINE


def test_the_presets_take_peak_and_memory_with_their_sources_from_the_table():
    for slug, device, precision in (
        ("goyal-2017", "p100", "fp32"),
        ("a100-cluster", "a100-80gb", "bf16-mixed"),
    ):
        preset, entry = PRESETS[slug], DEVICES[device]
        assert preset.device == device
        assert preset.values["flops"] == entry.flops(precision)
        assert preset.values["memory_gb"] == entry.memory_gb
        sources = preset_sources(preset)
        assert sources["flops"] == entry.source("peak") and "http" in sources["flops"]
        assert sources["memory_gb"] == entry.source("memory_gb")


def test_a_result_finds_its_device_and_link_by_name_and_an_unsourced_peak_is_absent():
    assert matching(DEVICES, "NVIDIA Tesla P100").slug == "p100"
    device = PRESETS[TRANSFORMER_MACHINE].device
    assert matching(DEVICES, "NVIDIA A100 80GB (560 DGX A100)").slug == device
    assert matching(DEVICES, "Google TPU v3") is None
    assert matching(LINKS, "ABCI, InfiniBand EDR (recalled)").slug == "infiniband-edr"
    assert DEVICES["a100-80gb"].flops("fp32") is None  # no stored source gives it
    assert DEVICES["v100"].source("peak") == RECALLED
    assert PRESETS[TRANSFORMER_MACHINE].values["flops"] == DEVICES[device].flops("bf16-mixed")
