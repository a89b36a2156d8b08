"""MLPerf's table rows, written here rather than in a template: the list shows up to 500 rows of
about fifty values each, and Django's template engine took 100 ms for a page of 100 (measured by
bench/mlperf_bench.py); this writes the same HTML, every value escaped, in a few milliseconds."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from explorer.templatetags.explorer_tags import escape as e
from explorer.templatetags.explorer_tags import si

register = template.Library()


def figure_text(figure: dict) -> str:
    value, unit = figure["value"], figure["unit"]
    if unit == "fraction":
        return f"{value:.1%}"
    if unit == "FLOP/s":
        return f"{si(value)}FLOP/s"
    return f"{value:,.0f} {unit}" if value >= 1000 else f"{value:.3g} {unit}"


@register.simple_tag
def mlperf_figures(figures: list[dict]) -> SafeString:
    """Each derived figure with its name, value and 'derived' mark; its formula folded below."""
    if not figures:
        return mark_safe("<small>–</small>")
    return mark_safe(  # noqa: S308 - every value escaped
        "".join(
            f'<details class="derived"><summary>{e(f["name"])} = {e(figure_text(f))} '
            '<span class="status status-derived">derived</span></summary>'
            f"<small>{e(f['formula'])}</small></details>"
            for f in figures
        )
    )


def _minutes(row: dict) -> str:
    if row["minutes"]:
        return f"{row['minutes']:.2f}"
    return f"none <small>{e(row['note'])}</small>"


def _rule(row: dict) -> str:
    rule = e(row.get("rule_text") or row["rule"])
    named = f'<a href="{e(row["rule_url"])}">{rule}</a>' if row["rule_url"] else rule
    return f"<small>{named}; runs {e(row['runs'])}; RCP {e(row['rcp'])}</small>"


@register.simple_tag
def mlperf_row(row: dict) -> SafeString:
    """One score as the MLPerf list shows it (plain escaping: format_html's lazy-string machinery
    was a third of the page)."""
    nodes = row["nodes"]
    nodes_text = f" ({nodes} node{'s' if nodes != 1 else ''})" if nodes else ""
    division = row["division"] or "division unknown"
    return mark_safe(  # noqa: S308 - every value escaped
        f'<tr id="mlperf-{row["id"]}"><td>{e(row["round"])}</td>'
        f'<td><a href="{e(row["system_url"])}">{e(row["submitter"])} {e(row["system"])}</a> '
        f'<small>({e(division)}; <a href="{e(row["source_url"])}">description</a>)</small></td>'
        f"<td>{e(row['accelerators'] or 'unknown')} × {e(row['accelerator'] or 'unknown')}"
        f"<small>{nodes_text}</small></td>"
        f'<td><a href="{e(row["url"])}">{e(row["benchmark"])}</a></td>'
        f"<td>{_minutes(row)}</td><td>{_rule(row)}</td><td>{mlperf_figures(row['figures'])}</td>"
        "</tr>"
    )
