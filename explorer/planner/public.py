"""What the features above the planner use of it (the results and the MLPerf pages): its
prediction of a run (`plan` on `Inputs`, within `BOUNDS`, on a machine of `PRESETS`), the
calibrated efficiency, a score's held-out prediction and the accuracy in short.

One door: the import contracts name one relation (these features sit above the planner) instead
of one exception per module, and the planner's inside moves without breaking its users. Nothing
here computes; it names."""

from __future__ import annotations

from .accuracy.calibration import default_efficiency, prediction_for
from .accuracy.report import short as short_accuracy
from .machine import BOUNDS, Inputs, PlannerInputError
from .plan import plan
from .presets import PRESETS

__all__ = [
    "BOUNDS",
    "PRESETS",
    "Inputs",
    "PlannerInputError",
    "default_efficiency",
    "plan",
    "prediction_for",
    "short_accuracy",
]
