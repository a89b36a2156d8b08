"""PLACEHOLDER until the `predict` branch's calibration package is merged (its own
`__init__.py` replaces this file): the public API of /work/wt/CONTRACT38.md answering "not
built", so that the pages that show the planner's accuracy can be written against it."""

from __future__ import annotations

from typing import Any


def accuracy() -> dict[str, Any]:
    return {
        "format": 1,
        "status": "not built",
        "model": {"formula": "", "description": ""},
        "split": {"by": "round", "fitted_on": [], "held_out": [], "why": ""},
        "efficiency": [],
        "errors": [],
        "predictions": [],
        "not_predicted": [],
        "coverage": [],
        "systematic": [],
    }


def default_efficiency(device_slug: str | None, family: str) -> dict[str, Any]:
    return {"value": 1.0, "runs": 0, "basis": "not built: the peak"}


def comparable_runs(device_slug: str | None, family: str, devices: int) -> dict[str, Any]:
    return {"low": None, "high": None, "n": 0, "runs": []}
