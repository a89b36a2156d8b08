"""A reader opens /results/ on a desktop and on a phone: both record charts drawn (each point
carrying its work's page), filters and sorting through the form, and a point's click leading to
its work."""

import re

import pytest
from playwright.sync_api import expect

SIZES = {"desktop": {"width": 1300, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("size", SIZES)
def test_it_draws_the_record_charts_and_filters_the_table(browser, live_survey, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_survey.url}/results/")
    for name in ("results-resnet", "results-utilisation"):
        expect(page.locator(f'div.plot[data-figure="{name}"][data-drawn=true]')).to_be_attached(
            timeout=15000
        )
    urls = page.evaluate(
        "() => document.querySelector('[data-figure=results-resnet]').data"
        ".flatMap(trace => trace.customdata)"
    )
    assert "/works/goyal2017accurate/" in urls and len(urls) >= 10
    assert all(url.startswith(("/works/", "http")) for url in urls)
    # No page scrolls sideways: wide tables scroll in their box.
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= SIZES[size]["width"] + 1

    page.select_option("select[name=family]", "hybrid")
    page.select_option("select[name=ordering]", "-utilisation")
    page.click("button:has-text('Show')")
    expect(page).to_have_url(re.compile(r"family=hybrid.*ordering=-utilisation"))
    rows = page.locator("table.results tbody tr")
    expect(rows.first).to_have_attribute("id", "result-chowdhery2022-palm-540b")  # 57.8%
    expect(page.locator("#summary")).to_contain_text("hybrid")

    # A point leads to its work: the chart's click handler follows the point's customdata.
    page.goto(f"{live_survey.url}/results/?network=resnet-50&family=data")
    chart = page.locator('div.plot[data-figure="results-resnet"][data-drawn=true]')
    expect(chart).to_be_attached(timeout=15000)
    page.evaluate(
        "() => { const el = document.querySelector('[data-figure=results-resnet]');"
        " el.emit('plotly_click', {points: [{customdata: '/works/goyal2017accurate/'}]}); }"
    )
    expect(page).to_have_url(re.compile(r"/works/goyal2017accurate/$"))
    expect(page.locator("#results")).to_contain_text("Measured results")
    context.close()
    assert errors == []
