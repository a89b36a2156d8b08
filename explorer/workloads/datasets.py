"""The training sets the measured runs count their samples in (a run's epochs become samples)."""

from __future__ import annotations

TRAINING_IMAGES = {"ImageNet-1k": 1_281_167, "ImageNet LSVRC-2010": 1_200_000}
