"""Charts a reader can read: log axes labelled with full numbers, one colour per accelerator."""

import colorsys
import re

import numpy as np
import pytest

from catalogue.devices import devices
from explorer.mlperf import charts as mlperf_charts
from explorer.web.log_ticks import log_ticks, tick_text
from explorer.web.palette import (
    VENDOR_HUES,
    accelerator_colours,
    accelerator_palette,
    generation,
)


def test_it_ticks_a_narrow_log_axis_at_1_2_and_5_with_full_numbers():
    assert log_ticks([0.3, 25]) == {
        "tickmode": "array",
        "tickvals": [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100],
        "ticktext": ["0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "50", "100"],
        "automargin": True,
    }


def test_it_ticks_a_wide_axis_at_powers_of_ten_never_crowding():
    ticks = log_ticks([[1, None, "x", 3000], [np.float64(2e9)]])
    assert ticks["tickvals"] == [1, 100, 1e4, 1e6, 1e8, 1e10]
    assert ticks["ticktext"] == ["1", "100", "10,000", "1M", "100M", "10G"]
    assert len(log_ticks([1e-3, 1e12])["tickvals"]) <= 9


def test_it_leaves_an_axis_without_positive_values_to_plotly():
    assert log_ticks([]) == log_ticks([0, -1, None, float("nan")]) == {}


@pytest.mark.parametrize(
    "value, text", [(0.05, "0.05"), (0.2, "0.2"), (5.0, "5"), (20.0, "20"), (2000.0, "2,000")]
)
def test_a_tick_reads_as_its_whole_number(value, text):
    assert tick_text(value) == text


def test_each_accelerator_of_the_catalogue_has_its_own_colour():
    colours = accelerator_colours()
    assert len(set(colours.values())) == len(colours)
    assert all(re.fullmatch(r"#[0-9a-f]{6}", colour) for colour in colours.values())


def _hue(colour: str) -> float:
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(red, green, blue)[0] * 360


def test_a_vendor_keeps_its_hue_range_and_a_generation_its_shade():
    colours = accelerator_colours()
    for slug, vendor in [(d.slug, d.vendor) for d in devices().values()]:
        low, high = VENDOR_HUES[vendor]
        hue = _hue(colours[slug])
        assert low - 1 <= hue <= high + 1 or low - 1 <= hue + 360 <= high + 1, slug
    palette = accelerator_palette([("a100-sxm4", "NVIDIA"), ("a100-pcie", "NVIDIA")])
    assert _hue(palette["a100-sxm4"]) == pytest.approx(_hue(palette["a100-pcie"]), abs=1)
    assert palette["a100-sxm4"] != palette["a100-pcie"]  # a shade apart
    assert generation("gb200") == generation("b200") == "b200"
    assert generation("tpu-v5e") == generation("tpu-v5p") == "tpu-v5"


def test_no_mlperf_chart_has_more_traces_than_distinct_colours(mlperf):
    """Every chart of every benchmark, at full size: each trace its own colour, the same
    accelerator the same colour on every chart."""
    seen: dict[str, str] = {}
    charts = 0
    for benchmark in {row["benchmark"] for row in mlperf_charts.all_rows()}:
        for name, figure in mlperf_charts.figures(mlperf_charts.chart_data(benchmark)).items():
            coloured = [t for t in figure["data"] if "marker" in t]
            if name == "record":
                continue  # one line, no accelerator
            charts += 1
            colours = [t["marker"]["color"] for t in coloured]
            assert len(coloured) == len(figure["data"]), (benchmark, name)
            assert len(set(colours)) == len(figure["data"]), (benchmark, name)
            for trace in figure["data"]:
                assert (
                    seen.setdefault(trace["name"], trace["marker"]["color"])
                    == (trace["marker"]["color"])
                )
    assert charts >= 10


def test_the_mlperf_charts_tick_their_log_axes_in_full_numbers(mlperf):
    figures = mlperf_charts.figures(mlperf_charts.chart_data("resnet"))
    scaling = figures["scaling"]["layout"]
    assert scaling["yaxis"]["type"] == "log"
    for axis in (scaling["xaxis"], scaling["yaxis"], figures["record"]["layout"]["yaxis"]):
        assert axis["tickmode"] == "array"
        assert all(text[0] in "0123456789" for text in axis["ticktext"])
        assert len(axis["ticktext"]) == len(axis["tickvals"])
