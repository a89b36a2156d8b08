"""A reader opens MLPerf Training's results on a desktop and on a phone: the three charts drawn
(each point leading to its score's page, database labels shown as text, never as markup), the
table filtered and sorted through the form, no page scrolling sideways, and a score's page
listing its runs, one line each, with links to their logs."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import SCREENSHOTS
from tests.helpers import make_mlperf_score

SIZES = {"desktop": {"width": 1300, "height": 900}, "phone": {"width": 390, "height": 844}}
FIGURES = ("mlperf-record", "mlperf-scaling", "mlperf-throughput")


@pytest.fixture
def scores(live_survey):
    for version, system, nodes, device, minutes in [
        ("v0.7", "dgx1_n1", 1, "v100-sxm2-16gb", (100.0, 102.0, 98.0)),
        ("v0.7", "dgx1_n8", 8, "v100-sxm2-16gb", (14.0, 15.0, 13.5)),
        ("v1.0", "dgxa100_n8", 8, "a100-sxm4-80gb", (6.0, 6.2, 5.9)),
        (
            "v1.0",
            "dgxa100_n64_with_a_very_long_system_name_<b>bold</b>",
            64,
            "a100-sxm4-80gb",
            (1.1, 1.0, 1.2),
        ),
    ]:
        make_mlperf_score(
            version=version,
            system_id=system,
            nodes=nodes,
            accelerators=nodes * 8,
            device_slug=device,
            minutes=minutes,
        )
    return live_survey


@pytest.mark.parametrize("size", SIZES)
def test_it_draws_the_charts_and_filters_the_scores(browser, scores, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{scores.url}/results/mlperf/")
    for name in FIGURES:
        expect(page.locator(f'div.plot[data-figure="{name}"][data-drawn=true]')).to_be_attached(
            timeout=15000
        )
    record = page.evaluate("() => document.querySelector('[data-figure=mlperf-record]').data[0].y")
    assert record == [14.0, 1.1]  # the closed division's best per round (olympic means)
    # A label with markup in the database is text on the chart, not a bold element.
    assert page.locator("div.plot b").count() == 0
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= SIZES[size]["width"] + 1
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"mlperf-{size}.png", full_page=True)

    page.fill("input[name=devices_min]", "64")
    page.select_option("select[name=ordering]", "-accelerators")
    page.click("button:has-text('Show')")
    expect(page).to_have_url(re.compile(r"devices_min=64.*ordering=-accelerators"))
    rows = page.locator("table.mlperf tbody tr")
    expect(rows).to_have_count(3)  # 64, 64 and 512 accelerators
    expect(rows.first).to_contain_text("512 ×")

    # A point leads to its score's page, which links every run's log at its commit.
    url = page.evaluate(
        "() => document.querySelector('[data-figure=mlperf-record]').data[0].customdata[0]"
    )
    page.evaluate(
        "(url) => document.querySelector('[data-figure=mlperf-record]')"
        ".emit('plotly_click', {points: [{customdata: url}]})",
        url,
    )
    expect(page).to_have_url(re.compile(r"/results/mlperf/systems/\d+/resnet/$"))
    logs = page.locator("a[href*='/blob/']")
    expect(logs).to_have_count(4)  # the system's description and its three runs
    # A run is one line of the table, its log's path unbroken (the table scrolls sideways):
    # broken at every letter, a phone showed each run as a screen-tall column.
    heights = page.evaluate(
        "() => [...document.querySelectorAll('h2 + .table-scroll tbody tr')]"
        ".map(row => row.getBoundingClientRect().height)"
    )
    assert len(heights) == 3 and max(heights) < 80, heights
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= SIZES[size]["width"] + 1
    page.screenshot(path=SCREENSHOTS / f"mlperf-score-{size}.png", full_page=True)
    context.close()
    assert errors == []
