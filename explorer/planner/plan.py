"""The planner's answer for any network: its network model's kind picks the registry's
strategies (a layer table's family compositions, or a transformer's layout search), and one
builder (shape.build) writes the document the page and /api/planner/ show. Numbers in, dicts
out; no ORM."""

from __future__ import annotations

from explorer.workloads.formulas import Formulas
from explorer.workloads.transformers.shapes import is_transformer

from . import layer_table_plan
from .machine import Inputs
from .shape import Plan
from .transformers import plan as transformer_plan


def plan(
    inputs: Inputs,
    formulas: Formulas,
    with_sweep: bool = True,
    efficiency_at: layer_table_plan.EfficiencyAt = None,
) -> Plan:
    """The plan of `inputs.network` on the machine of `inputs`; a sweep over P for layer tables
    (`with_sweep`; each P at `efficiency_at`'s efficiency when given), the layout search for
    transformers."""
    if is_transformer(inputs.network):
        return transformer_plan.plan(inputs, formulas)
    return layer_table_plan.plan(inputs, formulas, with_sweep, efficiency_at)
