"""The derived MLPerf figures: pure functions, tested without the database."""

import pytest

from explorer.mlperf.figures import (
    FlopCount,
    Progress,
    Run,
    mixed_peak,
    per_accelerator,
    samples_per_second,
    scaling_efficiency,
)

RESNET = FlopCount("resnet-50", 2.4e10, "model FLOPs per image")


EPOCHS = {"epochs": Progress(1000, "epochs × 1,000 images")}


def test_it_derives_samples_per_second_from_the_progress_at_the_target():
    runs = [Run(10.0, 30.0, "epochs", None, ""), Run(20.0, 30.0, "epochs", 5.0, "")]
    runs.append(Run(5.0, 30.0, "epochs", None, ""))
    rate, formula = samples_per_second(runs, EPOCHS)
    assert rate == 30 * 1000 / (10 * 60)  # the median run
    assert "epochs × 1,000 images" in formula and "evaluations included" in formula


def test_it_falls_back_on_a_throughput_logged_in_samples_only():
    runs = [Run(10.0, None, "", 100.0, "samples/s"), Run(10.0, 3.0, "tokens", 300.0, "samples/s")]
    assert samples_per_second(runs, EPOCHS) == (
        200.0,
        "median logged throughput of the successful runs (samples/s)",
    )
    assert samples_per_second([Run(10.0, 3.0, "tokens", 300.0, "")], EPOCHS) is None
    assert samples_per_second([], EPOCHS) is None


def test_it_derives_per_accelerator_figures_each_with_its_formula():
    figures = per_accelerator((6400.0, "samples/s"), 64, RESNET, 312e12)
    assert [f["name"] for f in figures] == [
        "samples_per_s_per_accelerator",
        "flops_per_accelerator",
        "fraction_of_peak",
    ]
    assert all(f["status"] == "derived" and f["formula"] for f in figures)
    assert figures[0]["value"] == 100.0
    assert figures[1]["value"] == pytest.approx(2.4e12)
    assert figures[2]["value"] == pytest.approx(2.4e12 / 312e12)
    assert "model FLOPs per image" in figures[1]["formula"]


def test_it_derives_nothing_it_cannot():
    assert per_accelerator(None, 64, RESNET, 312e12) == []
    assert [f["name"] for f in per_accelerator((6400.0, "r"), 64, None, 312e12)] == [
        "samples_per_s_per_accelerator"
    ]
    assert len(per_accelerator((6400.0, "r"), 64, RESNET, None)) == 2


def test_the_mixed_precision_peak_is_the_higher_of_bf16_and_fp16():
    assert mixed_peak({"bf16": 312e12, "fp16": 312e12, "fp8": None}) == 312e12
    assert mixed_peak({"bf16": None, "fp16": 125e12}) == 125e12
    assert mixed_peak({"fp32": 19.5e12}) is None and mixed_peak(None) is None


def row(id, accelerators, minutes, device="a100", round="v1.0", submitter="NVIDIA"):
    return {
        "id": id,
        "round": round,
        "submitter": submitter,
        "device": device,
        "benchmark": "resnet",
        "division": "closed",
        "system": f"n{accelerators}",
        "accelerators": accelerators,
        "minutes": minutes,
    }


def test_scaling_efficiency_is_against_the_smallest_system_of_the_series():
    rows = [row(1, 8, 100.0), row(2, 64, 15.0), row(3, 512, 2.5), row(4, 64, 10.0, round="v2.0")]
    figures = scaling_efficiency(rows)
    assert set(figures) == {1, 2, 3}  # v2.0's system is a series of one
    assert figures[1]["value"] == 1.0
    assert figures[2]["value"] == pytest.approx(800 / (64 * 15))
    assert figures[3]["value"] == pytest.approx(800 / (512 * 2.5))
    assert "n8" in figures[3]["formula"] and figures[3]["status"] == "derived"


def test_series_keep_submitter_and_device_apart_and_skip_the_unknown():
    rows = [row(1, 8, 100.0), row(2, 64, 15.0, device="v100"), row(3, 64, 15.0, device="")]
    rows.append(row(4, 64, 15.0, submitter="Google"))
    assert scaling_efficiency(rows) == {}
