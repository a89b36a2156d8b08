"""The HTML that explorer_tags builds in Python instead of templates."""

from django.utils.html import escape as django_escape

from explorer.templatetags.explorer_tags import escape


def test_the_tags_escape_as_django_does():
    """explorer_tags.escape skips Django's lazy-string check, not a character."""
    for value in ['<a href="x">O\'Brien & co</a>', "plain", 2017, None, "§7.1 – “ü”"]:
        assert escape(value) == str(django_escape(value))
