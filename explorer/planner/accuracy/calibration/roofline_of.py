"""The roofline of an MLPerf score's planner inputs (explorer/planner/roofline.py)."""

from __future__ import annotations

from explorer.workloads.transformers.shapes import is_transformer

from ...machine import Inputs
from ...roofline import for_inputs
from ...transformers.plan import config_of


def roofline_of(inputs: Inputs) -> float:
    """The fraction of the peak that the inputs' transformer can reach at best (1 for a layer
    table's network, which has no roofline model yet)."""
    config = config_of(inputs) if is_transformer(inputs.network) else None
    return for_inputs(inputs, config)["value"]
