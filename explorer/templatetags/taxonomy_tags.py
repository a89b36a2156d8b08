"""The taxonomy's tree on /categories/, written in Python.

It was works/_category_node.html, included recursively: one {% include %} per category (~60),
with a {% url %}, a filter and a dozen variables each, was most of the page's time. The tag
writes the same HTML from the tree the view already has.
"""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.safestring import SafeString

from catalogue.paths import path_parts
from explorer.templatetags.explorer_tags import escape, reader_note, tree_html

register = template.Library()

GROUPING = "grouping"
CONFIRMED = "confirmed"


@register.simple_tag
def category_tree(roots: list, era: str) -> SafeString:
    """The <li> of every node of `roots` and their descendants: its hub, its works (of `era`),
    its status and its description."""
    hub_before, hub_after = path_parts("hubs:hub")
    works = reverse("works:work-list")
    # The survey's list is the default: the other eras' links keep the era.
    era_query = f"&amp;era={escape(era)}" if era and era != "survey" else ""

    def item(node) -> str:
        code = escape(node.code)
        section = f"§{escape(node.section)} " if node.section else ""
        facet = "category" if node.parent_id else "level"
        count = node.work_count
        return (
            f'\n<li>\n  <a href="{escape(hub_before + node.code + hub_after)}"><strong>'
            f"{section}{escape(node.name)}</strong></a>\n"
            f'  <a class="count" href="{escape(works)}?{facet}={code}{era_query}">'
            f"{count} work{'' if count == 1 else 's'}</a>"
            f"{alternatives(node)}\n  {status_badge(node)}\n"
            f'  <code class="code">{code}</code>\n  {description(node.description)}\n  '
        )

    return tree_html(roots, item, "\n</li>\n")  # as the template file ended


def alternatives(node) -> str:
    if not node.alternative_count:
        return ""
    return (
        f' <small class="count alternatives">(including {node.alternative_count} placed at one'
        " of several possible sections)</small>"
    )


def status_badge(node) -> str:
    """Ours (added after the survey, or a grouping), or a section the sources do not confirm."""
    if node.extends:
        return (
            '<span class="badge extension" title="Added after the survey; ours, not the paper\'s">'
            f"added after the survey · extends §{escape(node.extends)}</span>"
        )
    if node.status == GROUPING:
        return (
            '<span class="status status-grouping" title="ours, not a section of the paper">'
            f"{escape(node.get_status_display())}</span>"
        )
    if node.status != CONFIRMED:
        return (
            '<span class="status status-recalled" title="section number or title not confirmed'
            f' by a source">{escape(node.status)}</span>'
        )
    return ""


def description(text: str) -> str:
    return f'<p class="description">{reader_note(text)}</p>' if text else ""
