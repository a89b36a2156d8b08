from django import template

from catalogue.bibtex import display_text

register = template.Library()


@register.filter
def bib(value: str) -> str:
    """BibTeX field text for display: LaTeX accents decoded, protective braces dropped."""
    return display_text(value or "")
