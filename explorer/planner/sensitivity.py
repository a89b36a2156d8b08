"""Which unconfirmed formulas matter for the ranking: each one, in turn, made twice as large and
half as large wherever a strategy's step time rests on it, and the best strategy found again.

First order and bounded: the parts of each step (compute, exposed communication, idle) that rest
on the term are scaled as they stand, nothing is recomputed (an overlapped exchange twice as slow
may expose more than twice as much), so the work is terms × 2 × strategies. Pure: dicts in, dicts
out (the strategies as `describe` writes them).
"""

from __future__ import annotations

from typing import Any

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
