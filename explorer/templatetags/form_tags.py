"""Form controls written in Python: a {% for %} over a long list of choices costs a few
microseconds a variable, and /graph/'s category list alone has ~60 options."""

from __future__ import annotations

from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag
def select_options(choices, selected) -> SafeString:
    """The <option> of each (value, label) of `choices`, the one equal to `selected` marked, as
    `{% for value, label in choices %}<option value="{{ value }}"{% if selected == value %}
    selected{% endif %}>{{ label }}</option>{% endfor %}` writes them (html.escape escapes as
    the template does: Django's escape is html.escape behind a lazy-string wrapper)."""
    return mark_safe(  # noqa: S308 - every value and label escaped
        "".join(
            f'<option value="{escape(str(value))}"{" selected" if selected == value else ""}>'
            f"{escape(str(label))}</option>"
            for value, label in choices
        )
    )
