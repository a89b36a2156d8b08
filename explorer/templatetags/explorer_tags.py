from django import template

from catalogue.bibtex import display_text

register = template.Library()


@register.filter
def bib(value: str) -> str:
    """BibTeX field text for display: LaTeX accents decoded, protective braces dropped."""
    return display_text(value or "")


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with some parameters set (or removed, when set to None/"")
    and the page reset: for facet and sort links that keep every other filter."""
    params = context["request"].GET.copy()
    params.pop("page", None)
    for name, value in changes.items():
        params.pop(name, None)
        if value not in (None, ""):
            params[name] = value
    encoded = params.urlencode()
    return f"?{encoded}" if encoded else "?"


@register.filter
def get_item(mapping: dict, key: str):
    return mapping.get(key)
