"""The project's models module, where Django looks for the explorer app's models: each lives
with its feature (explorer/demos/models.py: demo runs) and is registered from here."""

from explorer.demos.models import DemoRun

__all__ = ["DemoRun"]
