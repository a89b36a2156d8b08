"""The API's JSON renderer (orjson): byte for byte what DRF's JSONRenderer writes."""

import datetime
import decimal
import uuid

from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from explorer.web.renderers import FastJSONRenderer, dumps


def test_it_writes_what_drf_writes():
    data = {
        "text": "Ben-Nun & Hoefler — «ü» \u2028 line \u2029 end",
        "number": 1.5,
        "whole": 10**12,
        "none": None,
        "flags": [True, False],
        "when": datetime.datetime(2026, 12, 3, 16, 0, 0, 123456, tzinfo=datetime.UTC),
        "day": datetime.date(2026, 12, 3),
        "decimal": decimal.Decimal("1.25"),
        "id": uuid.UUID(int=1),
        "lazy": gettext_lazy("Works"),
        "nested": [{"a": [1, 2, {"b": "c"}]}],
    }
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)


def test_it_renders_nothing_for_no_data():
    assert FastJSONRenderer().render(None) == b""


def test_it_indents_when_asked():
    data = {"a": [1, 2]}
    indented = FastJSONRenderer().render(data, "application/json; indent=2")
    assert indented == JSONRenderer().render(data, "application/json; indent=2")


def test_it_writes_a_number_beyond_64_bits_as_a_float():
    # PostgreSQL's jsonb returns 3.14e23 as a whole number (a figure of the measured results).
    assert dumps({"flop": [314 * 10**21, 7], "ok": True}) == b'{"flop":[3.14e+23,7],"ok":true}'


def test_the_si_filter_writes_three_significant_digits_with_a_prefix():
    from explorer.templatetags.explorer_tags import si  # noqa: PLC0415

    assert si(2.0200699e14) == "202 T"
    assert si(5.02e17) == "502 P"
    assert si(999) == "999 "
    assert si(None) == ""
