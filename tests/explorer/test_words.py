"""A figure as a reader reads it, on the planner's and the score pages: four significant digits,
whole and grouped from 10,000, scientific from 1e15, a dash for none."""

import pytest

from explorer.web.words import readable_number


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (11393.3, "samples/s", "11,393 samples/s"),
        (9452.23, "", "9452"),
        (0.123456, "s", "0.1235 s"),
        (2.5e15, "FLOP", "2.5e+15 FLOP"),
        (None, "s", "—"),
    ],
)
def test_a_figure_reads_with_four_significant_digits(value, unit, text):
    assert readable_number(value, unit) == text
