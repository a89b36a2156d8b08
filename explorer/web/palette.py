"""One colour per parallelism level, for every figure that colours by level (the timeline on
/numbers/, the citation graph on /graph/): the same level looks the same everywhere."""

from __future__ import annotations

LEVEL_COLOURS = {"ops": "#2457a6", "net": "#2e8b57", "train": "#c0392b", "bg": "#8e8e8e"}
# For a top-level category a curator adds: colours no level above uses, in turn.
SPARE_COLOURS = ["#d9822b", "#8e44ad", "#16a085", "#b7950b"]
NO_LEVEL_COLOUR = "#c5ccd6"  # works without a category


def level_colours(codes: list[str]) -> dict[str, str]:
    """Level code -> colour, for the levels in taxonomy order."""
    spare = iter(SPARE_COLOURS * (1 + len(codes) // len(SPARE_COLOURS)))
    return {code: LEVEL_COLOURS.get(code) or next(spare) for code in codes}
