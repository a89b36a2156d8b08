"""A static-files finder for the one file of the plotly package that the pages load.

plotly.js comes from the installed plotly package (no CDN, no copy to keep in sync), whose
`package_data` folder also holds a 5 MB Jupyter widget bundle, sample data sets and templates
that no page uses: a folder in STATICFILES_DIRS would publish them all (and collectstatic copy
them). This finder knows `vendor/plotly/plotly.min.js` only.
"""

from __future__ import annotations

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_PREFIX = "vendor/plotly"
PLOTLY_FILES = ("plotly.min.js",)


class PlotlyFinder(BaseFinder):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(
            location=Path(plotly.__file__).resolve().parent / "package_data"
        )
        self.storage.prefix = PLOTLY_PREFIX

    def check(self, **kwargs) -> list:
        return []

    def find(self, path: str, find_all: bool = False) -> str | list[str]:
        name = path.removeprefix(PLOTLY_PREFIX + "/")
        if name == path or name not in PLOTLY_FILES:
            return []  # as Django's finders answer "not here", find_all or not
        found = self.storage.path(name)
        return [found] if find_all else found

    def list(self, ignore_patterns):
        for name in PLOTLY_FILES:
            yield name, self.storage
