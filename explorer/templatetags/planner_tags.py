"""The planner page's layer table, written in Python: a network lists up to ~70 layers of a dozen
values each, which through the template engine were a third of a changed plan's page."""

from __future__ import annotations

from django import template
from django.conf import settings
from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html_join
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

COLUMNS = ("C_in", "C_out")
SHAPE = ("K", "stride", "pad", "groups", "parameters")


def shown(value) -> str:
    """A value as the template would write it (localized, escaped). An integer without thousand
    separators is its digits: localize's format lookups cost more than the whole row."""
    if type(value) is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)
    return conditional_escape(localize(value))


@register.simple_tag
def layer_rows(layers: list[dict]) -> SafeString:
    """The <tr> of each layer: name (shortcut marked), kind with its batch norm and ReLU, the
    channels, the input and output sizes, the kernel, stride, padding, groups and parameters."""
    return mark_safe("".join(_row(layer) for layer in layers))  # noqa: S308 - escaped in _row


def _row(layer: dict) -> str:
    shortcut = " <small>(shortcut)</small>" if layer["branch"] != "main" else ""
    kind = (
        shown(layer["kind"]) + ("+bn" if layer["bn"] else "") + ("+relu" if layer["relu"] else "")
    )
    cells = [
        f"{shown(layer['name'])}{shortcut}",
        kind,
        *(shown(layer[name]) for name in COLUMNS),
        f"{shown(layer['H'])}×{shown(layer['W'])}",
        f"{shown(layer['H_out'])}×{shown(layer['W_out'])}",
        *(shown(layer[name]) for name in SHAPE),
    ]
    return "\n      <tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>\n      "


FIELD = (
    '<label>{}\n  <input type="text" inputmode="decimal" name="{}" id="id_{}" value="{}">\n'
    "  <small>{}</small>\n</label>"
)


@register.simple_tag
def planner_fields(fields: list[dict]) -> SafeString:
    """Each numeric input with its label and range: a page lists about 45, each an include
    through the template engine before."""
    return format_html_join(
        "\n", FIELD, ((f["label"], f["name"], f["name"], f["value"], f["range"]) for f in fields)
    )
