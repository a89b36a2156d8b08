"""A section's neighbourhood in the citation graph, from its edges: pure, no ORM."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

NEIGHBOURS_SHOWN = 8


@dataclass
class Neighbourhood:
    """Edges among the section's works (`internal`), from them to works outside (`outgoing`)
    and to them from outside (`incoming`); `neighbours`: outside work id -> (edges to the
    section's works, edges from them), the most linked first."""

    internal: int = 0
    outgoing: int = 0
    incoming: int = 0
    neighbours: list[tuple[int, int, int]] = field(default_factory=list)


def neighbourhood(
    edges: Iterable[tuple[int, int]], inside: set[int], shown: int = NEIGHBOURS_SHOWN
) -> Neighbourhood:
    """`edges`: (citing id, cited id) pairs touching `inside`, the section's work ids."""
    result = Neighbourhood()
    cites_section: Counter[int] = Counter()  # outside work -> its edges into the section
    cited_by_section: Counter[int] = Counter()
    for citing, cited in edges:
        if citing in inside and cited in inside:
            result.internal += 1
        elif citing in inside:
            result.outgoing += 1
            cited_by_section[cited] += 1
        elif cited in inside:
            result.incoming += 1
            cites_section[citing] += 1
    linked = cites_section + cited_by_section
    # Most linked first; ties by id, so that the list is the same on every request.
    ranked = sorted(linked, key=lambda work: (-linked[work], work))[:shown]
    result.neighbours = [(work, cites_section[work], cited_by_section[work]) for work in ranked]
    return result
