"""The device catalogue (catalogue/devices.py, fixtures/devices.json): names as MLPerf Training
writes them, and the fixture's integrity. Pure: no database."""

from __future__ import annotations

import json
import re
from dataclasses import FrozenInstanceError

import pytest

from catalogue import devices as catalogue
from catalogue.devices import FIXTURE, FixtureError, device_for, devices, load, name_key

# `accelerator_model_name` (or `accelerator`) of the systems/*.json files of
# github.com/mlcommons/training_results_v0.6 ... v5.1, as written there (power figures, "CTS",
# "DLC", "(R)" and all); the version is the first round the spelling was seen in.
MLPERF_SPELLINGS = [
    ("tpu-v3", "tpu-v3"),  # v0.6
    ("Tesla V100-SXM2-16GB", "v100-sxm2-16gb"),  # v0.6
    ("Tesla V100-SXM3-32GB-H", "v100-sxm3-32gb"),  # v0.6, DGX-2H
    ("TPU v3", "tpu-v3"),  # v0.7
    ("NVIDIA A100", "a100-sxm4-40gb"),  # v0.7
    ("NVIDIA A100-SXM4-40GB (400W)", "a100-sxm4-40gb"),  # v0.7
    ("NVIDIA V100", "v100-sxm2-16gb"),  # v0.7
    ("Nvidia Tesla V100", "v100-sxm2-16gb"),  # v0.7
    ("Nvidia Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),  # v0.7
    ("NVIDIA V100-SXM2-16GB (300W)", "v100-sxm2-16gb"),  # v0.7
    ("NVIDIA V100-SXM2-32GB", "v100-sxm2-32gb"),  # v0.7
    ("NVIDIA V100-SXM3-32GB (450W)", "v100-sxm3-32gb"),  # v0.7
    ("A100-SXM4-80GB", "a100-sxm4-80gb"),  # v1.0
    ("NVIDIA A100-PCIE-40GB (250W)", "a100-pcie-40gb"),  # v1.0
    ("NVIDIA A100-PCIe-40GB (250W)", "a100-pcie-40gb"),  # v1.0
    ("NVIDIA A100-SXM-80GB (500W)", "a100-sxm4-80gb"),  # v1.0
    ("NVIDIA A100-SXM4-80GB (400W)", "a100-sxm4-80gb"),  # v1.0
    ("NVIDIA A100-PCIE-80GB (300W)", "a100-pcie-80gb"),  # v1.1
    ("TPU-v4", "tpu-v4"),  # v1.1
    ("Habana Gaudi2", "gaudi2"),  # v2.0
    ("NVIDIA A100-SXM-40GB", "a100-sxm4-40gb"),  # v2.0
    ("NVIDIA A100-SXM-80GB CTS", "a100-sxm4-80gb"),  # v2.0
    ("NVIDIA A100-PCIe-80GB", "a100-pcie-80gb"),  # v2.0
    ("NVIDIA H100-SXM5-80GB", "h100-sxm"),  # v2.1
    ("NVIDIA H100-PCIe", "h100-pcie"),  # v3.0
    ("NVIDIA H100-PCIe-80GB", "h100-pcie"),  # v3.0
    ("NVIDIA H100-SXM-80GB", "h100-sxm"),  # v3.0
    ("Intel Gaudi2", "gaudi2"),  # v3.1
    ("NVIDIA A100 - PCIe - 80 GB", "a100-pcie-80gb"),  # v3.1
    ("TPU-v5e", "tpu-v5e"),  # v3.1
    ("Intel(R) Gaudi(R) 2 AI Accelerator", "gaudi2"),  # v4.0
    ("NVIDIA H200-SXM5-141GB", "h200-sxm"),  # v4.0
    ("TPU-v5p", "tpu-v5p"),  # v4.0
    ("H100 NVL Tensor Core GPU (PCIe)", "h100-nvl"),  # v4.1
    ("NVIDIA Blackwell GPU (B200-SXM-180GB)", "b200"),  # v4.1
    ("NVIDIA H100 80GB HBM3", "h100-sxm"),  # v4.1
    ("TPU-trillium", "tpu-v6e"),  # v4.1
    ("AMD Instinct MI300X 192GB HBM3", "mi300x"),  # v5.0
    ("AMD Instinct MI325X 256GB HBM3E DLC", "mi325x"),  # v5.0
    ("AMD Instinct MI325X 256GB HBM3e", "mi325x"),  # v5.0
    ("NVIDIA Blackwell GPU (GB200)", "gb200"),  # v5.0
    ("NVIDIA H200-NVL-141GB", "h200-nvl"),  # v5.0
    ("NVIDIA H200 NVL 141GB", "h200-nvl"),  # v5.1
    ("NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)", "b300"),  # v5.1
    ("NVIDIA Blackwell Ultra GPU (GB300)", "gb300"),  # v5.1
    ("AMD Instinct MI350X", "mi350x"),  # v5.1
    ("AMD Instinct MI355X", "mi355x"),  # v5.1
    ("NVIDIA L40S", "l40s"),  # v3.1
]
# Other spellings: the brief's, the results fixture's and the vendors' own.
OTHER_SPELLINGS = [
    ("NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"),
    ("TPU v4", "tpu-v4"),
    ("TPU v5p", "tpu-v5p"),
    ("TPUv5p", "tpu-v5p"),
    ("TPU v6e", "tpu-v6e"),
    ("Trillium", "tpu-v6e"),
    ("Gaudi2", "gaudi2"),
    ("Gaudi 3", "gaudi3"),
    ("Intel Gaudi 3", "gaudi3"),
    ("AMD Instinct MI300X", "mi300x"),
    ("MI250X", "mi250x"),
    ("NVIDIA GB200", "gb200"),
    ("NVIDIA B200-SXM-180GB", "b200"),
    ("NVIDIA Tesla P100", "p100-sxm2"),
    ("NVIDIA A100 80GB", "a100-sxm4-80gb"),
    ("NVIDIA Tesla V100", "v100-sxm2-16gb"),
    ("nvidia h100 sxm5 80gb", "h100-sxm"),
    # fixtures/results.json's device_kind: remarks in parentheses
    ("NVIDIA A100 80GB (560 DGX A100)", "a100-sxm4-80gb"),
    ("Google TPU v3 (chips)", "tpu-v3"),
    ("Google TPU v4", "tpu-v4"),
    ("NVIDIA V100 (Microsoft cluster)", "v100-sxm2-16gb"),
    ("NVIDIA Tesla P40", "p40"),
    ("NVIDIA M40", "m40"),
    ("NVIDIA K20x (Titan supercomputer, recalled)", "k20x"),
]
# Devices the catalogue does not hold, or names too vague to say which: None, never a guess.
NOT_HELD = [
    "TPU",  # v0.7, v1.0: which TPU is not said
    "N/A",
    "Habana Gaudi",  # the first Gaudi: not in the catalogue
    "NVIDIA A30",
    "NVIDIA A40",
    "NVIDIA RTX A5000",
    "Nvidia Tesla V100S-PCIe-32GB",  # the V100S, not the V100
    "NVIDIA H100-SXM5-96GB",  # not the 80 GB H100
    "NVIDIA A30-PCIE-24GB",
    "NVIDIA GeForce RTX 4090",
    "Graphcore IPU GC200",
    "Ascend910",
    "Google TPU (recalled)",
    "NVIDIA GTX 580 3GB",
    "",
    "x" * 500,
]


@pytest.mark.parametrize(("name", "slug"), MLPERF_SPELLINGS + OTHER_SPELLINGS)
def test_it_finds_the_device_an_mlperf_name_denotes(name, slug):
    device = device_for(name)
    assert device is not None, name
    assert device.slug == slug


@pytest.mark.parametrize("name", NOT_HELD)
def test_it_finds_nothing_for_a_device_it_does_not_hold(name):
    assert device_for(name) is None


def test_it_reads_a_name_as_model_form_and_memory():
    assert name_key("NVIDIA H100-SXM5-80GB") == ("h100", "sxm", 80)
    assert name_key("NVIDIA A100 - PCIe - 80 GB") == ("a100", "pcie", 80)
    assert name_key("NVIDIA V100-SXM3-32GB (450W)") == ("v100", "sxm3", 32)
    assert name_key("TPU-v5p") == ("tpuv5p", None, None)
    assert name_key("H100 NVL Tensor Core GPU (PCIe)") == ("h100", "nvl", None)


def test_it_reads_figures_as_pages_print_them():
    assert catalogue.parse_figure("1,979 teraFLOPS") == pytest.approx(1.979e15)
    assert catalogue.parse_figure("3.35TB/s") == pytest.approx(3.35e12)
    assert catalogue.parse_figure("95 GiB") == 95 * 2**30
    assert catalogue.parse_figure("4,800 Gbps") == pytest.approx(600e9)
    with pytest.raises(FixtureError):
        catalogue.parse_figure("about 80")


def test_a_device_is_frozen():
    device = device_for("NVIDIA H100-SXM5-80GB")
    with pytest.raises(FrozenInstanceError):
        device.name = "other"
    with pytest.raises(TypeError):
        device.peak_flops["bf16"] = 1.0


def test_the_devices_are_read_once():
    assert devices() is devices()


def test_every_alias_names_one_device():
    # Building the alias table refuses an alias that two devices claim.
    assert len(catalogue._alias_table()) >= len(devices())


def test_the_fixture_lists_every_device_the_issue_names():
    wanted = {
        "v100-sxm2-16gb", "v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm",
        "h100-pcie", "h200-sxm", "b200", "gb200", "tpu-v3", "tpu-v4", "tpu-v5e", "tpu-v5p",
        "tpu-v6e", "gaudi2", "gaudi3", "mi250x", "mi300x", "mi325x", "p100-sxm2",
    }  # fmt: skip
    assert wanted <= set(devices())


def test_every_value_has_its_page_and_its_figure():
    for device in devices().values():
        assert set(device.sources) == set(device.readings), device.slug
        for field, reading in device.readings.items():
            assert reading.url.startswith(("https://", "http://")), (device.slug, field)
            assert reading.kind in catalogue.SOURCE_KINDS
            assert reading.divisor == 1 or reading.why, (device.slug, field)
        assert device.kind in catalogue.KINDS
        assert set(device.peak_flops) == set(catalogue.PRECISIONS)


# Where a vendor writes: its sites, its documentation's repository (ROCm's docs are AMD's).
VENDOR_PAGES = re.compile(
    r"^https://(docs\.cloud\.google\.com/tpu/|cloud\.google\.com/tpu/|docs\.habana\.ai/|"
    r"github\.com/ROCm/ROCm/blob/[0-9a-f]{40}/|[\w.]*nvidia\.com/|[\w.]*amd\.com/|[\w.]*intel\.com/)"
)
MLPERF_PAGES = re.compile(
    r"^https://github\.com/mlcommons/training_results_v[\d.]+/blob/[0-9a-f]{40}/"
)


def test_each_reading_is_of_the_kind_its_address_says():
    for device in devices().values():
        for field, reading in device.readings.items():
            where = (device.slug, field, reading.url)
            assert bool(VENDOR_PAGES.match(reading.url)) == (reading.kind == "vendor"), where
            assert bool(MLPERF_PAGES.match(reading.url)) == (reading.kind == "mlperf"), where
            if "github.com" in reading.url:  # a repository's file: at a commit, never a branch
                assert re.search(r"/blob/[0-9a-f]{40}/", reading.url), where


def test_the_units_are_sane():
    """Dense peaks, bytes and bytes per second: an H100 SXM's dense BF16 is 989 TFLOP/s (its
    sparse 1,979 halved), a unit slip (GB for GiB, bits for bytes, sparse for dense) is caught
    by the bounds below."""
    h100 = devices()["h100-sxm"]
    assert h100.peak_flops["bf16"] == pytest.approx(989e12)
    assert h100.memory_bytes == 80 * 10**9
    assert h100.memory_bandwidth == pytest.approx(3.35e12)
    assert h100.link_bandwidth == pytest.approx(450e9)  # one direction of NVLink 4's 900 GB/s
    assert devices()["tpu-v5p"].memory_bytes == 95 * 2**30
    assert devices()["tpu-v5p"].link_bandwidth == pytest.approx(600e9)
    for device in devices().values():
        assert device.memory_bytes is None or 2e9 <= device.memory_bytes <= 400e9, device.slug
        assert device.memory_bandwidth is None or 0.1e12 <= device.memory_bandwidth <= 10e12
        assert device.link_bandwidth is None or 50e9 <= device.link_bandwidth <= 1e12
        peaks = {p: f for p, f in device.peak_flops.items() if f is not None}
        assert all(1e12 <= f <= 6e15 for f in peaks.values()), device.slug
        if "bf16" in peaks and "fp32" in peaks:
            assert peaks["bf16"] >= peaks["fp32"], device.slug
        if "fp8" in peaks and "bf16" in peaks:
            assert peaks["bf16"] <= peaks["fp8"] <= 2.05 * peaks["bf16"], device.slug


def test_every_required_device_has_its_bf16_or_fp16_peak_and_memory():
    for slug in (
        "a100-sxm4-80gb",
        "h100-sxm",
        "h200-sxm",
        "b200",
        "gb200",
        "tpu-v4",
        "tpu-v5e",
        "tpu-v5p",
        "tpu-v6e",
        "gaudi2",
        "gaudi3",
        "mi250x",
        "mi300x",
        "mi325x",
    ):
        device = devices()[slug]
        assert device.peak_flops["bf16"] and device.memory_bytes, slug
    for slug in ("v100-sxm2-16gb", "v100-sxm2-32gb", "p100-sxm2"):
        assert devices()[slug].peak_flops["fp16"], slug


def test_a_value_with_a_divisor_says_why():
    reading = devices()["h100-sxm"].readings["link_bandwidth"]
    assert (reading.read, reading.divisor, reading.kind) == ("900 GB/s", 2.0, "mlperf")
    assert "both directions" in reading.why


def test_a_fixture_value_without_a_page_is_refused(tmp_path):
    raw = json.loads(FIXTURE.read_text())
    raw["devices"] = [
        {
            "slug": "x",
            "name": "X",
            "vendor": "V",
            "kind": "gpu",
            "values": {"memory_bytes": {"read": "80GB", "url": ""}},
        }
    ]
    path = tmp_path / "devices.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(FixtureError, match="url"):
        load(path)
