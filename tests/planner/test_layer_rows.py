"""The planner page's layer table, written in Python (explorer/templatetags/planner_tags.py):
each value as the template engine would write it."""

import pytest
from django.template import Context, Template

from explorer.templatetags.planner_tags import shown

VALUES = [0, 7, -3, 1234567, 2**40, 1.5, 0.000123, 1e20, "conv<1>&", True, None]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_it_writes_each_value_as_the_template_does(value):
    assert shown(value) == Template("{{ value }}").render(Context({"value": value}))


@pytest.mark.parametrize("value", [1234567, 2.5, -1000])
def test_it_groups_thousands_as_the_template_does_when_asked(value, settings):
    settings.USE_THOUSAND_SEPARATOR = True
    assert shown(value) == Template("{{ value }}").render(Context({"value": value}))
