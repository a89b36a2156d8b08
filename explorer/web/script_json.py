"""JSON for a <script type="application/json"> element, encoded when the data is computed.

A page's figure is its largest part (100 KB of JSON on /costs/ and /graph/), and encoding it
was a tenth of each page's time. Where the figure is kept per catalogue version, its text is
kept with it: `{{ text }}` in the element writes it as the json_script filter would have.
"""

from __future__ import annotations

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.utils.safestring import SafeString, mark_safe


def script_json(value: object) -> SafeString:
    """The text explorer_tags.json_script puts in its element: JSON with < > & escaped (the
    only characters that could end the element or start markup; json.dumps escapes the rest)."""
    text = json.dumps(value, cls=DjangoJSONEncoder)
    text = text.replace(">", "\\u003E").replace("<", "\\u003C").replace("&", "\\u0026")
    return mark_safe(text)  # noqa: S308 - nothing left that HTML would read as markup
