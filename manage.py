#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys

# Checked here, before Django is imported, so an old Python gets a sentence, not a traceback.
if sys.version_info < (3, 12):  # noqa: UP036
    sys.exit(
        f"Survey Explorer needs Python 3.12 or newer (Django 6.1); this is {sys.version.split()[0]}"
        ". With pyenv, the .python-version file at the repository root selects 3.12."
    )


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "explorer.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
