"""The layouts table: every layout of the search, the fitting ones ranked, each with why it loses
to the best (communication, bubble, memory, or why it cannot run). Pure: arrays in, dicts out."""

from __future__ import annotations

from typing import Any

from ..formulas import number_text
from ..machine import Inputs
from ..shape import SHOWN_LAYOUTS
from .space import Layouts


def time_to_train(inputs: Inputs, tokens_per_second: float) -> float | None:
    """Seconds to train on `tokens` (None when no token count is given)."""
    return inputs.tokens / tokens_per_second if inputs.tokens else None


def _row(search: Layouts, index: int, rank: int, inputs: Inputs, winner: int | None) -> dict:
    out = search.out
    valid = out["valid"][index]
    return search.row(index) | {
        "rank": rank if out["fits"][index] else None,
        "micro_batches": int(out["micro_batches"][index]),
        "step_time": float(out["step"][index]) if valid else None,
        "compute_time": float(out["compute"][index]),
        "communication_time": float(out["communication"][index]),
        "total_communication_time": float(out["total_communication"][index]),
        "idle_time": float(out["bubble"][index]),
        "memory_per_node": float(out["total"][index]),
        "fits": bool(out["fits"][index]),
        "tokens_per_second": float(out["tokens_per_second"][index]) if valid else None,
        "mfu": float(out["mfu"][index]) if valid else None,
        "time_to_train": time_to_train(inputs, float(out["tokens_per_second"][index]))
        if valid
        else None,
        "loses_by": _loses_by(out, index, winner, inputs),
    }


def layouts_document(search: Layouts, inputs: Inputs) -> dict[str, Any]:
    """Every layout of the search, the fitting ones ranked, each with why it loses to the best."""
    out = search.out
    order = sorted(
        range(len(search)),
        key=lambda i: (not out["fits"][i], not out["valid"][i], float(out["step"][i])),
    )
    winner = order[0] if order and out["fits"][order[0]] else None
    rows = [_row(search, index, rank, inputs, winner) for rank, index in enumerate(order, start=1)]
    losses: dict[str, int] = {}
    for row in rows[1:]:
        kind = row["loses_by"]["kind"]
        losses[kind] = losses.get(kind, 0) + 1
    return {
        "evaluated": len(rows),
        "fitting": int(out["fits"].sum()),
        "shown": SHOWN_LAYOUTS,
        "losses": losses,
        "note": "Tensor parallelism stays inside a node; pipeline stages divide the layers; "
        "sequence parallelism is on wherever tp > 1; the schedule is 1F1B (interleaved when "
        "chunks > 1 and the stage's layers divide by it).",
        "rows": rows,
    }


def _loses_by(out, index: int, winner: int | None, inputs: Inputs) -> dict[str, Any]:
    if not out["valid"][index]:
        return {"kind": "cannot run", "text": str(out["reason"][index])}
    if not out["fits"][index]:
        return {
            "kind": "does not fit",
            "text": f"{number_text(out['total'][index] / 1e9)} GB per device, "
            f"{number_text(inputs.memory_gb)} GB available",
        }
    if winner is None or index == winner:
        return {"kind": "best", "text": "the fastest layout that fits"}
    communication = float(out["communication"][index] - out["communication"][winner])
    bubble = float(out["bubble"][index] - out["bubble"][winner])
    kind = "communication" if communication >= bubble else "bubble"
    extra = communication if kind == "communication" else bubble
    return {"kind": kind, "text": f"{kind}: +{number_text(extra)} s per step"}
