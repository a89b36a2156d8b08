"""When a computed total agrees with its paper's figure: one tolerance for the survey's layer
tables and the transformer presets alike."""

from __future__ import annotations

# Within this relative difference a computed total "agrees" with its paper's figure, beyond the
# figure's own rounding (a preset's half unit of its last digit: Llama 2's "7B" is ±7 %): the
# papers do not say whether they count biases, batch-normalisation parameters, norms or shortcut
# projections, which moves a count by up to about 1.5 % for the survey's CNNs and the transformer
# presets alike. Stricter than 5 %, which let a count off by 4 % pass as agreeing.
TOLERANCE = 0.02


def within_tolerance(difference: float | None, rounding: float = 0.0) -> bool | None:
    """Whether a computed total agrees with its paper's figure (None: the figure is unknown)."""
    return None if difference is None else abs(difference) <= max(TOLERANCE, rounding)
