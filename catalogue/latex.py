"""BibTeX text as people read it: pure (no Django), shared by the BibTeX module and the search
text, which the models build (and the models may not import catalogue.bibtex)."""

from __future__ import annotations

import re
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

# What only the LaTeX parser can turn into text: commands, ties, dashes, quotes, math.
LATEX_MARKUP = re.compile(r"[\\~$]|--|``|''")


@lru_cache(maxsize=4096)
def display_text(value: str) -> str:
    """BibTeX text for people: LaTeX accents decoded, protective braces dropped."""
    if not LATEX_MARKUP.search(value):
        # Plain text with protective braces at most: no need for the (slow) LaTeX parser.
        return value.replace("{", "").replace("}", "").strip()
    return LatexNodes2Text().latex_to_text(value).strip()
