"""The explorer app's admin, where Django looks for it: each feature's ModelAdmin lives with the
feature (explorer/demos/admin.py: demo runs) and is registered by importing it here."""

from explorer.demos import admin as demos_admin

__all__ = ["demos_admin"]
