"""The layouts table: every layout of the search, the fitting ones ranked, each with why it loses
to the best (communication, bubble, memory, or why it cannot run). Pure: arrays in, dicts out."""

from __future__ import annotations

from typing import Any

from explorer.workloads.formulas import number_text

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
        "note": "Tensor parallelism stays inside a node; pipeline stages hold ceil(layers / pp) "
        "layers at most (uneven stages: the first and last hold fewer, as Megatron-LM allows); "
        "sequence parallelism is on wherever tp > 1; the schedule is 1F1B (interleaved when "
        "chunks > 1 and the most loaded stage's layers divide by it; elsewhere the layout runs "
        "plain 1F1B and its row says so).",
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
    parts = {
        name: float(out[name][index] - out[name][winner])
        for name in ("communication", "bubble", "compute")
    }
    kind = "communication" if parts["communication"] >= parts["bubble"] else "bubble"
    # The whole step difference, then each part's, the largest first (a part may be negative:
    # a layout can lose on communication and win back some of it on its bubble).
    step = float(out["step"][index] - out["step"][winner])
    shown = sorted(((v, n) for n, v in parts.items() if v), reverse=True)
    each = ", ".join(f"{name} {_signed(value)} s" for value, name in shown)
    return {"kind": kind, "text": f"+{number_text(step)} s per step ({each})"}


def _signed(value: float) -> str:
    return ("+" if value >= 0 else "−") + number_text(abs(value))
