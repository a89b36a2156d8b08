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


# TeX's special characters that stop a LaTeX build when they stand unescaped outside math (the
# others, ~ { } \ $, are BibTeX's own markup). "^" escapes as "\^{}", the rest with a backslash.
TEXT_SPECIALS = "&%#_^"
ANY_SPECIAL = re.compile(r"[&%#_^]")
# Fields LaTeX reads verbatim (\url, \doi) or never typesets: their specials are not markup.
VERBATIM_FIELDS = frozenset({"url", "doi", "eprint", "archiveprefix", "sourceurl", "era"})


def _text_mode_specials(value: str) -> list[int]:
    """Positions of the special characters that stand unescaped outside $...$ math."""
    positions, in_math, index = [], False, 0
    while index < len(value):
        char = value[index]
        if char == "\\":
            index += 2  # an escaped character ("\&", "\$") or the first letter of a command
            continue
        if char == "$":
            in_math = not in_math
        elif char in TEXT_SPECIALS and not in_math:
            positions.append(index)
        index += 1
    return positions


def specials_outside_math(value: str) -> list[str]:
    """The unescaped TeX specials outside math in a BibTeX value, each one that would stop a
    LaTeX build (empty when the value typesets)."""
    return [value[index] for index in _text_mode_specials(value)]


def escape_specials(value: str) -> str:
    """`value` with every unescaped special outside math escaped; idempotent, so an export,
    import, export round trip gives the same text."""
    if not ANY_SPECIAL.search(value):  # most values: no walk character by character (an export
        return value  # escapes some 15,000 values, and the walk was a third of its time)
    positions = set(_text_mode_specials(value))
    if not positions:
        return value
    return "".join(
        ("\\^{}" if char == "^" else "\\" + char) if index in positions else char
        for index, char in enumerate(value)
    )


def shortened(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, at a word where one is near, with an ellipsis
    when cut (a title cut bare at 80 characters read as if it ended there)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"
