"""Full-text search, the pure part: what a user's words become, what a work's searchable text is,
and how a highlighted fragment turns into safe HTML. No ORM here (see WorkQuerySet.search and
the search-text model in catalogue/models.py for the database side).

One interface over two engines: SQLite FTS5 with the porter tokenizer, PostgreSQL full-text
search with the `english` configuration. Both stem ("pipelining", "pipeline" and "pipelined" are
one word to them), rank, and mark the matched words; the query syntax is ours, built here from
plain words, so that no user text reaches either engine's query parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from django.utils.safestring import SafeString, mark_safe

from catalogue.latex import display_text

MAX_TERMS = 8
MAX_TERM_LENGTH = 40
# Around a matched word in a highlighted fragment (private-use characters: no text has them).
MARK_START, MARK_END = "\ue000", "\ue001"
# The columns of the searchable text, in index order, and how much a match in each weighs.
COLUMNS = ("title", "authors", "topics", "venue", "notes")
SQLITE_WEIGHTS = (10.0, 5.0, 3.0, 2.0, 1.0)  # bm25 column weights
POSTGRES_WEIGHTS = ("A", "B", "B", "C", "D")  # setweight labels

# Words so common that they say nothing about a work. PostgreSQL's english configuration drops
# these (and more); dropping them here too makes both databases answer the same query alike.
STOP_WORDS = frozenset(
    """a an and are as at be but by for from has have in into is it its of on or that the their
    there these this to was were which with""".split()
)


@dataclass(frozen=True)
class Query:
    """A user's words, ready for either engine. `prefix`: the last word may be unfinished (as
    typed in a search box), so it matches any word it begins."""

    terms: tuple[str, ...]
    prefix: bool = False

    def __bool__(self) -> bool:
        return bool(self.terms)

    def fts5(self) -> str:
        """FTS5 syntax: every term quoted (so no operator is ever read from user text), all
        required; `"pipel"*` for an unfinished last word."""
        quoted = [f'"{term}"' for term in self.terms]
        if self.prefix:
            quoted[-1] += "*"
        return " ".join(quoted)

    def tsquery(self) -> str:
        """to_tsquery syntax: terms (letters and digits only) joined by &; `pipel:*` as prefix."""
        parts = list(self.terms)
        if self.prefix:
            parts[-1] += ":*"
        return " & ".join(parts)


def parse(text: str, prefix: bool = False) -> Query:
    """The words of `text` (letters and digits; anything else separates them), lower case,
    stop words dropped, at most MAX_TERMS, each cut at MAX_TERM_LENGTH characters."""
    words = [w[:MAX_TERM_LENGTH] for w in re.findall(r"[^\W_]+", text.lower())]
    ends_in_word = bool(text) and bool(re.search(r"[^\W_]$", text))
    kept = [w for w in words if w not in STOP_WORDS]
    if prefix and ends_in_word and words and words[-1] in STOP_WORDS and kept != words:
        kept.append(words[-1])  # "the" may be the start of "theory"
    terms = tuple(dict.fromkeys(kept))[:MAX_TERMS]
    return Query(terms, prefix=prefix and ends_in_word and bool(terms))


def document(
    title: str,
    authors: list[str],
    venue: str,
    notes: list[str],
    topics: list[str],
) -> dict[str, str]:
    """A work's searchable text, one string per column of COLUMNS. `topics`: the names and
    descriptions of its categories and techniques."""

    def clean(text: str) -> str:
        """As people read it: LaTeX accents decoded, protective braces dropped."""
        text = display_text(text or "").replace(MARK_START, "").replace(MARK_END, "")
        return " ".join(text.split())

    return {
        "title": clean(title),
        "authors": clean("; ".join(authors)),
        "topics": clean(" · ".join(t for t in topics if t)),
        "venue": clean(venue),
        "notes": clean(" · ".join(n for n in notes if n)),
    }


def marked_html(fragment: str) -> SafeString:
    """A fragment from the engine, its matched words between MARK_START and MARK_END, as HTML:
    the text escaped (as Django's escape, without its lazy-string check: a search page marks
    a hundred fragments), the matches in <mark>."""
    html = escape(str(fragment)).replace(MARK_START, "<mark>").replace(MARK_END, "</mark>")
    return mark_safe(html)  # noqa: S308 - escaped above, only our own tags added


def has_mark(fragment: str | None) -> bool:
    return bool(fragment) and MARK_START in fragment


# A search that is one identifier finds its work by that field, not by its words.
ARXIV_FORM = r"(?:https?://arxiv\.org/(?:abs|pdf)/|arxiv:\s*)?(\d{4}\.\d{4,5})(?:v\d+)?"
IDENTIFIER_FORMS = (
    ("doi", re.compile(r"(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)", re.I)),
    (
        "arxiv_id",
        re.compile(ARXIV_FORM, re.I),
    ),
    ("openalex_id", re.compile(r"(?:https?://openalex\.org/)?(W\d{4,})", re.I)),
)


def identifier(text: str) -> tuple[str, str] | None:
    """(Work field, value) when the whole search is a DOI ("10.1109/72.279181", with or without
    "doi:" or a resolver), an arXiv id ("1802.09941", "arXiv:1802.09941v2", an abstract page) or
    an OpenAlex work id ("W2107878631"); None otherwise."""
    stripped = text.strip()
    for field, form in IDENTIFIER_FORMS:
        match = form.fullmatch(stripped)
        if match:
            value = match.group(1)
            return field, value.upper() if field == "openalex_id" else value
    return None
