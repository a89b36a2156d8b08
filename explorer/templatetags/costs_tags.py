"""The repeated rows of /costs/, written in Python.

Each plot has a table of its points and one of its formulas: ~70 rows and ~800 template
variables a request, which were most of the page's time. These tags write the HTML the {% for %}
loops wrote (the same whitespace), each value escaped as the template escaped it (html.escape:
what Django's escape runs, without its lazy-string wrapper, a third of the time of ~400 calls).
"""

from __future__ import annotations

from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe

from explorer.templatetags.explorer_tags import formula, reader_note, reader_wording, work_url
from explorer.web.links import link

register = template.Library()

NOT_CONFIRMED = '<span class="flag">not confirmed</span>'
DOUBTFUL = '<span class="flag">doubtful</span>'


@register.simple_tag
def point_rows(rows: list[dict]) -> SafeString:
    """The <tr> of each point of a plot (views._point_row's dicts)."""
    return mark_safe("".join(map(point_row, rows)))  # noqa: S308 - every value escaped


def point_row(row: dict) -> str:
    doubtful = "".join(
        f'<br><span class="flag">doubtful formula: {escape(label)}</span>'
        for label in row["doubtful"]
    )
    status = (
        f'<span class="status status-{escape(row["work_status"])}">'
        f"{escape(row['work_status_label'])}</span> / "
        f'<span class="status status-{escape(row["depth_status"])}">'
        f"{escape(row['depth_status_label'])}</span>"
        f"{'' if row['confirmed'] else ' ' + NOT_CONFIRMED}"
    )
    works = ", ".join(
        f'<a href="{escape(work_url(key))}">{escape(key)}</a>' for key in row["works"]
    )
    return (
        f"\n    <tr>\n      <td>{escape(row['label'])}{doubtful}</td>\n"
        f"      <td>{escape(row['table'])}</td><td>{escape(row['work'])}</td>"
        f"<td>{escape(row['depth'])}</td><td>{escape(row['parallelism'])}</td>\n"
        f"      <td>{status}</td>\n      <td>{works or '—'}</td>\n    </tr>\n    "
    )


@register.simple_tag
def formula_rows(formulas: list[dict]) -> SafeString:
    """The <tr> of each formula a plot uses (CostFormula.summary()'s dicts): the formula
    typeset, its status with the note that explains it, and a link to evaluate it."""
    return mark_safe("".join(formula_row(f) for f in formulas))  # noqa: S308 - escaped


def formula_row(summary: dict) -> str:
    asymptotic = " <small>(O(...) leading term)</small>" if summary["asymptotic"] else ""
    unit = f" <small>{escape(summary['unit'])}</small>" if summary["unit"] else ""
    confirmed, doubtful = summary["confirmed"], summary["doubtful"]
    note = summary["status_note"]
    evaluate = link("costs:api-cost-model-evaluate", summary["id"])
    return (
        f"\n  <tr>\n    <td>{escape(summary['label'])}{asymptotic}</td>\n"
        f"    <td>{formula(summary['formula'])}{unit}</td>\n"
        f'    <td><span class="status status-{escape(summary["status"])}" '
        f'title="{escape(reader_wording(note or ""))}">{escape(summary["status_label"])}</span>\n'
        f"      {'' if confirmed else NOT_CONFIRMED}\n"
        f"      {DOUBTFUL if doubtful else ''}\n"
        f"      {'' if confirmed and not doubtful else f'<br><small>{reader_note(note)}</small>'}"
        f"</td>\n"
        f'    <td>§{escape(summary["section"])} <a href="{escape(evaluate)}" '
        'title="evaluate this formula at its defaults">evaluate</a></td>\n  </tr>\n  '
    )
