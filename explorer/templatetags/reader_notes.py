"""The reader's wording of the data's notes (explorer_tags' reader_note and reader_wording), kept
per note for the process.

Both run nine patterns over the text and reader_note reverses a URL: /costs/ and /categories/
ask for the same few dozen notes on every request. The result depends on the text and on the
sources page's path alone, so the script prefix and URLconf are part of the key.
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf
from django.utils.safestring import SafeString

from explorer.templatetags.explorer_tags import reader_note, reader_wording

NOTES_KEPT = 2048


def note_html(text: str) -> SafeString:
    """reader_note(text): the note as HTML, its sources linked."""
    return _note_html(text or "", get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)


@functools.lru_cache(maxsize=NOTES_KEPT)
def _note_html(text: str, script_prefix: str, urlconf: str) -> SafeString:
    return reader_note(text)


@functools.lru_cache(maxsize=NOTES_KEPT)
def note_words(text: str) -> str:
    """reader_wording(text): the note in the reader's words, plain text."""
    return reader_wording(text or "")
