"""TEST DATA, made by hand, measured nowhere: a small accuracy document in the shape of
explorer.planner.accuracy.calibration.accuracy() (/work/wt/CONTRACT38.md), for the pages that show
the planner's accuracy. Its systems match those tests.helpers.make_mlperf_score makes (NVIDIA,
v4.0 and v3.1), so that a point finds its score's page."""

from __future__ import annotations

from typing import Any


def prediction(**given: Any) -> dict[str, Any]:
    entry = {
        "round": "v4.0",
        "submitter": "NVIDIA",
        "system_id": "dgxh100_n8",
        "benchmark": "bert",
        "accelerators": 64,
        "device": "h100-sxm",
        "network": "bert-large",
        "family": "data",
        "model_family": "encoder",
        "strategy": "data-ring",
        "layout": {"dp": 64, "tp": 1, "pp": 1},
        "measured_throughput": 20000.0,
        "throughput_unit": "samples/s",
        "predicted_at_peak": 50000.0,
        "peak_fraction": 0.4,
        "mfu": 0.4,
        "efficiency": 0.45,
        "efficiency_basis": "device × family",
        "predicted_throughput": 22500.0,
        "ratio": 1.125,
        "held_out": True,
        "measured_minutes": 2.0,
        "predicted_minutes": 1.78,
    }
    return entry | given


def document() -> dict[str, Any]:
    return {
        "format": 1,
        "status": "built",
        "model": {
            "formula": "efficiency = a · accelerators ** b",
            "description": "TEST: a power law in the number of accelerators per device and family",
        },
        "split": {
            "by": "round",
            "fitted_on": ["v3.1"],
            "held_out": ["v4.0"],
            "why": "TEST: the newest round is held out",
        },
        "efficiency": [
            {
                "device": "h100-sxm",
                "family": "encoder",
                "value": 0.45,
                "runs": 3,
                "low": 0.38,
                "high": 0.52,
                "fitted_on": "fit split",
            },
            {
                "device": "*",
                "family": "*",
                "value": 0.4,
                "runs": 12,
                "low": 0.2,
                "high": 0.6,
                "fitted_on": "all",
            },
        ],
        "errors": [
            {"benchmark": "*", "family": "*", "n": 3, "median": 0.125, "p90": 0.5, "bias": 0.9},
            {"benchmark": "bert", "family": "data", "n": 2, "median": 0.1, "p90": 0.3, "bias": 1.1},
            {"benchmark": "gpt3", "family": "3d", "n": 1, "median": 0.6, "p90": 0.6, "bias": 0.4},
        ],
        "predictions": [
            prediction(),
            prediction(
                system_id="dgxh100_n64",
                accelerators=512,
                measured_throughput=120000.0,
                predicted_throughput=108000.0,
                ratio=0.9,
            ),
            prediction(
                system_id="dgxh100_n8",
                benchmark="gpt3",
                network="gpt3-175b",
                family="3d",
                model_family="decoder",
                layout={"dp": 1, "tp": 8, "pp": 8},
                measured_throughput=10.0,
                predicted_throughput=4.0,
                ratio=0.4,
            ),
            prediction(
                round="v3.1",
                system_id="dgxh100_n8_fit",
                held_out=False,
                measured_throughput=18000.0,
                predicted_throughput=18000.0,
                ratio=1.0,
            ),
        ],
        "not_predicted": [
            {"benchmark": "bert", "reason": "TEST: the device is not in the catalogue", "count": 3},
            {"benchmark": "gpt3", "reason": "TEST: no layout in the log", "count": 1},
        ],
        "coverage": [
            {"benchmark": "bert", "scores": 6, "predicted": 3},
            {"benchmark": "gpt3", "scores": 2, "predicted": 1},
        ],
        "systematic": [
            {
                "where": "gpt3 (3d)",
                "bias": 0.4,
                "n": 1,
                "says": "TEST: the planner predicts 0.4 of GPT-3's measured throughput",
            }
        ],
    }


def comparable() -> dict[str, Any]:
    runs = [p for p in document()["predictions"] if p["benchmark"] == "bert"]
    return {"low": 0.38, "high": 0.42, "n": len(runs), "widened": "", "runs": runs}
