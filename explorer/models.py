"""The project's models module, where Django looks for the explorer app's models: each lives
with its feature (explorer/demos/models.py: cached demo results) and is registered from here."""

from explorer.demos.models import DemoResult

__all__ = ["DemoResult"]
