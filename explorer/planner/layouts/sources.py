"""What each part of a transformer layout's step rests on: the catalogue formulas and the shown
assumptions, with the layouts whose part uses each. The derivations cite them; the sensitivity
scales a part where it uses a term. Pure."""

from __future__ import annotations

import numpy as np

from explorer.workloads.formulas import TRUSTED_STATUSES, Formulas, Source

from ..machine import Inputs
from ..strategies.base import NO_OVERLAP as NO_DATA_OVERLAP
from ..strategies.base import POINT_TO_POINT
from ..strategies.exchange import HIERARCHICAL, OVERLAP
from .exchange import ACROSS_NODES, LAST_MICRO_BATCH, RAIL_SHARES, ZERO3_GATHER
from .space import FROZEN_BASE, NO_OVERLAP, PLACEMENT, RING_ATTENTION, Layouts

Parts = dict[str, list[tuple[Source, np.ndarray]]]


def part_sources(
    layouts: Layouts, inputs: Inputs, formulas: Formulas, frozen: bool = False
) -> Parts:
    """What each part of each layout's step (STEP_ARRAYS) rests on: (source, the layouts whose
    part uses it). The derivations cite them; the sensitivity scales a part where it uses a term."""
    out, tp, pp, dp = layouts.out, layouts.tp, layouts.pp, layouts.dp
    flops, ring_formula = formulas["transformer.flops"], formulas["allreduce.ring"]
    tensor, pipeline, data = tp > 1, pp > 1, dp > 1
    expert = out["expert_parallel"] > 1
    overlap = data & inputs.overlap
    across = []  # the reader's algorithm between nodes where it is not the ring
    if inputs.allreduce != "ring" and f"allreduce.{inputs.allreduce}" in formulas:
        spans = data & (inputs.P > inputs.devices_per_node)
        across = [(formulas[f"allreduce.{inputs.allreduce}"], spans), (ACROSS_NODES, spans)]
    return {
        "compute": [(flops, np.ones(len(layouts), bool))]
        + ([(FROZEN_BASE, np.ones(len(layouts), bool))] if frozen else []),
        "bubble": [(flops, pipeline), (formulas["pipeline.bubble_1f1b"], pipeline)],
        "tensor": [
            (formulas["tensor.values"], tensor),
            (ring_formula, tensor),
            (formulas["sequence.values"], tensor & layouts.sequence),
            (PLACEMENT, tensor),
            (NO_OVERLAP, tensor),
        ],
        "pipeline": [(POINT_TO_POINT, pipeline), (PLACEMENT, pipeline), (NO_OVERLAP, pipeline)],
        "data": [
            (ring_formula, data),
            (PLACEMENT, data),
            (HIERARCHICAL, out["hierarchical"]),
            (RAIL_SHARES, out["hierarchical"]),
            *across,
            (OVERLAP, overlap),
            (LAST_MICRO_BATCH, overlap),
            (NO_DATA_OVERLAP, data & (not inputs.overlap)),
            (ZERO3_GATHER, data & (layouts.zero == 3)),
        ],
        "expert": [
            (formulas["expert.values"], expert),
            (formulas["expert.all_to_all"], expert),
            (NO_OVERLAP, expert),
        ],
        "context": [(RING_ATTENTION, layouts.cp > 1), (PLACEMENT, layouts.cp > 1)],
    }


def sources_at(parts: Parts, index: int) -> dict:
    """The sources of each part of one layout's step."""
    return {part: [s for s, used in entries if used[index]] for part, entries in parts.items()}


def unconfirmed_uses(parts: Parts) -> dict[str, dict[str, np.ndarray]]:
    """Each unconfirmed term -> part -> the layouts whose part rests on it."""
    uses: dict[str, dict[str, np.ndarray]] = {}
    for part, entries in parts.items():
        for source, used in entries:
            if source.status in TRUSTED_STATUSES:
                continue
            by_part = uses.setdefault(source.label, {})
            by_part[part] = by_part.get(part, False) | used
    return uses
