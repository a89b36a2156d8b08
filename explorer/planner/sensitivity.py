"""Which unconfirmed formulas matter for the ranking: each one, in turn, made twice as large and
half as large wherever a strategy's step time rests on it, and the best strategy found again.

First order and bounded: the parts of each step (compute, exposed communication, idle) that rest
on the term are scaled as they stand, nothing is recomputed (an overlapped exchange twice as slow
may expose more than twice as much), so the work is terms × 2 × strategies. Pure: dicts in, dicts
out (the strategies as `describe` writes them). For a transformer, `with_layouts` adds the same
question for its layout search (arrays in, one argmin per term and factor).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

FACTORS = (2.0, 0.5)
PARTS = {"compute": "compute_time", "communication": "communication_time", "idle": "idle_time"}
NOTE = (
    "Each unconfirmed formula or assumption in turn is taken as twice (and half) what it gives, "
    "in every part of every step time that rests on it; the best strategy among those that fit "
    "is found again. Scaled as the parts stand (first order): not recomputed."
)


def _usable(strategy: dict[str, Any]) -> bool:
    return bool(strategy["applicable"] and strategy["fits"])


def _step(strategy: dict[str, Any], term: str, factor: float) -> float:
    parts = strategy["unconfirmed_parts"] or {}
    return sum(
        strategy[field] * (factor if term in parts.get(part, ()) else 1.0)
        for part, field in PARTS.items()
    )


def _best(strategies: list[dict[str, Any]], term: str, factor: float) -> str | None:
    usable = [s for s in strategies if _usable(s)]
    if not usable:
        return None
    return min(usable, key=lambda s: (_step(s, term, factor), s["slug"]))["slug"]


def sensitivity(strategies: list[dict[str, Any]]) -> dict[str, Any]:
    """For each unconfirmed term a usable strategy's step rests on: the parts and strategies it
    feeds, the best strategy with the term ×2 and ×0.5, and whether the best changes."""
    usable = [s for s in strategies if _usable(s)]
    best = _best(strategies, "", 1.0)
    feeds: dict[str, dict[str, set[str]]] = {}
    for strategy in usable:
        for part, terms in (strategy["unconfirmed_parts"] or {}).items():
            for term in terms:
                entry = feeds.setdefault(term, {"parts": set(), "strategies": set()})
                entry["parts"].add(part)
                entry["strategies"].add(strategy["slug"])
    rows = []
    for term in sorted(feeds):
        doubled, halved = (_best(strategies, term, factor) for factor in FACTORS)
        rows.append(
            {
                "term": term,
                "parts": sorted(feeds[term]["parts"]),
                "strategies": len(feeds[term]["strategies"]),
                "best_if_doubled": doubled,
                "best_if_halved": halved,
                "changes_best": doubled != best or halved != best,
            }
        )
    rows.sort(key=lambda row: (not row["changes_best"], row["term"]))
    return {"best": best, "factors": list(FACTORS), "terms": rows, "note": NOTE}


# A transformer's layout search -----------------------------------------------------------------

LAYOUT_NOTE = (
    "For the layout search, the same in finer parts: each term scales the parts of every "
    "layout's step that rest on it (compute, bubble, and the tensor, pipeline, data and expert "
    "communication apart), and the fastest layout that fits is found again."
)


def _best_layout(steps, uses: dict, fits: np.ndarray, name, factor: float) -> str | None:
    if not fits.any():
        return None
    step = sum(
        values * np.where(uses.get(part, False), factor, 1.0) for part, values in steps.items()
    )
    return name(int(np.argmin(np.where(fits, step, np.inf))))


def with_layouts(
    document: dict[str, Any],
    steps: dict[str, np.ndarray],
    uses: dict[str, dict[str, np.ndarray]],
    fits: np.ndarray,
    name: Callable[[int], str],
) -> dict[str, Any]:
    """The strategies' sensitivity with the layout search's beside it. `steps`: the arrays that
    add up to each layout's step; `uses`: term -> part -> the layouts whose part rests on it;
    `name`: a layout's label from its index."""
    best = _best_layout(steps, {}, fits, name, 1.0)
    rows = {row["term"]: row for row in document["terms"]}
    for term in sorted(uses):
        if not any((mask & fits).any() for mask in uses[term].values()):
            continue  # only layouts that do not fit rest on it: no time changes the ranking
        row = rows.setdefault(term, _unused(term, document["best"]))
        doubled, halved = (_best_layout(steps, uses[term], fits, name, f) for f in FACTORS)
        row |= {
            "best_layout_if_doubled": doubled,
            "best_layout_if_halved": halved,
            "changes_best_layout": doubled != best or halved != best,
        }
    for row in rows.values():  # a term of the strategies' families alone, not of the search
        row.setdefault("best_layout_if_doubled", best)
        row.setdefault("best_layout_if_halved", best)
        row.setdefault("changes_best_layout", False)
    ordered = sorted(
        rows.values(),
        key=lambda r: (not (r["changes_best"] or r["changes_best_layout"]), r["term"]),
    )
    return document | {
        "best_layout": best,
        "terms": ordered,
        "note": f"{document['note']} {LAYOUT_NOTE}",
    }


def _unused(term: str, best: str | None) -> dict[str, Any]:
    return {
        "term": term,
        "parts": [],
        "strategies": 0,
        "best_if_doubled": best,
        "best_if_halved": best,
        "changes_best": False,
    }
