"""The planner page's parts written in Python (explorer/templatetags/planner_tags.py): the layer
table's values as the template engine would write them, and the numeric inputs."""

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


def test_it_writes_each_field_escaped_with_its_label_and_range():
    from explorer.templatetags.planner_tags import planner_fields

    field = {"name": "P", "label": 'devices <"P">', "value": "64&", "range": "1 to 65536"}
    html = planner_fields([field, field | {"name": "batch"}])
    assert html.count("<label>") == 2
    assert 'name="P" id="id_P" value="64&amp;"' in html
    assert "devices &lt;&quot;P&quot;&gt;" in html and "<small>1 to 65536</small>" in html
