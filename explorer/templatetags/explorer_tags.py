import re
from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from catalogue import metadata
from catalogue.bibtex import display_text
from catalogue.constants import ENTRY_TYPE_WORDS
from catalogue.costs import FormulaError
from catalogue.mathml import formula_mathml

register = template.Library()


@register.filter
def bib(value: str) -> str:
    """BibTeX field text for display: LaTeX accents decoded, protective braces dropped."""
    return display_text(value or "")


@register.filter
def entry_type(value: str) -> str:
    """A BibTeX entry type in words ("inproceedings": "conference paper")."""
    return ENTRY_TYPE_WORDS.get(value, value)


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with some parameters set (or removed, when set to None/"")
    and the page reset: for facet and sort links that keep every other filter."""
    # Pairs, not a QueryDict copy (a deep copy): a works page calls this a hundred times.
    kept = [
        (name, value)
        for name, values in context["request"].GET.lists()
        if name != "page" and name not in changes
        for value in values
    ]
    kept += [(name, value) for name, value in changes.items() if value not in (None, "")]
    encoded = urlencode(kept)
    return f"?{encoded}" if encoded else "?"


@register.filter
def get_item(mapping: dict, key: str):
    return mapping.get(key)


# How the data's own notes name their sources, and what a reader is told instead. The notes come
# from the fixtures ("S1 (ref-sections.csv, confirmed); likely_sections: 6.3"); /sources/ explains
# each source, and every mention links there.
SOURCE_KEY = re.compile(r"\bS(10|[1-9])\b")
NOTE_WORDING = [
    (
        re.compile(r"^(S\d+(?:\([^)]*\))?)\s*\(ref-sections\.csv, confirmed\)"),
        r"confirmed by a source quoting the paper (\1)",
    ),
    (re.compile(r"\(ref-sections\.csv, confidence med\)"), "(medium confidence)"),
    (re.compile(r"\(ref-sections\.csv, confidence (\w+)\)"), r"(\1 confidence)"),
    (re.compile(r"\(ref-sections\.csv, confirmed\)"), "(confirmed)"),
    (re.compile(r"topic-inferred from title"), "inferred from the title's topic"),
    (re.compile(r"likely_sections:\s*"), "likely section "),
    (re.compile(r"\bref-sections\.csv\b"), "the provisional section list"),
    (re.compile(r"\bFACTS(?:\.md)?\b"), "the facts record"),
]
SOURCE_TITLES = {
    "1": "reading notes on arXiv v2 that quote the paper",
    "2": "quotes from the paper with section and page, from the same notes",
}


@register.filter
def reader_wording(text: str) -> str:
    """A note as the data writes it, in the reader's words (plain text, no links)."""
    for pattern, replacement in NOTE_WORDING:
        text = pattern.sub(replacement, text)
    return text


@register.filter
def reader_note(text: str) -> SafeString:
    """A note in the reader's words, as HTML: each source key (S1, S2...) and the facts record
    link to their explanation on /sources/."""
    html = str(escape(reader_wording(text or "")))
    sources = reverse("works:sources")

    def link(match: re.Match) -> str:
        number = match.group(1)
        title = SOURCE_TITLES.get(number, "a source of the facts record")
        return f'<a href="{sources}#s{number}" title="{title}">S{number}</a>'

    html = SOURCE_KEY.sub(link, html)
    html = html.replace("the facts record", f'<a href="{sources}#facts">the facts record</a>')
    return mark_safe(html)  # noqa: S308 - escaped above; only our own links added


@register.filter
def formula(text: str) -> SafeString:
    """A cost formula typeset as mathematics (one printer: catalogue/mathml.py), with its text
    beside it to copy; a formula outside the language is shown as text only."""
    plain = escape(text or "")
    try:
        math = formula_mathml(text)
    except FormulaError:
        return mark_safe(f'<code class="formula-text">{plain}</code>')  # noqa: S308 - escaped
    return mark_safe(  # noqa: S308 - the printer escapes every name and number
        f'<span class="formula">{math}<code class="formula-text">{plain}</code></span>'
    )


@register.filter
def coins(work) -> str:
    """The title of a work's COinS span (an OpenURL ContextObject Zotero reads from a list);
    the work's authorships are prefetched by the list."""
    return metadata.coins(metadata.WorkFields.of(work, work.author_names))


SI_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


@register.filter
def si(value) -> str:
    """A large number with three significant digits and an SI prefix: 2.02e14 -> '202 T'
    (followed by the unit in the template: '202 TFLOP/s')."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return ""
    for scale, prefix in SI_PREFIXES:
        if abs(number) >= scale:
            return f"{number / scale:.3g} {prefix}"
    return f"{number:.3g} "
