"""A reader asks how well the planner predicts measured runs, on a desktop and on a phone: the
chart of predicted against measured throughput drawn (log-log, a point per held-out score), a
point leading to its score's page, the page fitting the screen and passing axe-core. The data
is the hand-made TEST document of tests/planner/accuracy_testdata.py."""

import re

import pytest
from playwright.sync_api import expect

from explorer.planner.accuracy import api as accuracy_api
from explorer.planner.accuracy import calibration
from tests.e2e.test_hubs import SIZES, axe_violations, settle, shoot
from tests.helpers import make_mlperf_score
from tests.planner import accuracy_testdata


@pytest.fixture
def measured(live_survey, monkeypatch):
    calibration.default_efficiency.cache_clear()  # cached per process: none from the TEST data
    monkeypatch.setattr(calibration, "accuracy", accuracy_testdata.document)
    monkeypatch.setattr(accuracy_api, "accuracy", accuracy_testdata.document)
    monkeypatch.setattr(
        calibration,
        "comparable_runs",
        lambda device, family, devices: accuracy_testdata.comparable(),
    )
    for system, benchmark in [
        ("dgxh100_n8", "bert"),
        ("dgxh100_n64", "bert"),
        ("dgxh100_n8", "gpt3"),
    ]:
        make_mlperf_score("v4.0", benchmark, system)
    yield live_survey
    calibration.default_efficiency.cache_clear()


@pytest.mark.parametrize("size", SIZES)
def test_the_accuracy_chart_draws_the_held_out_runs_and_leads_to_one(browser, measured, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{measured.url}/planner/accuracy/")
    chart = page.locator('div.plot[data-figure="accuracy-figure"][data-drawn=true]')
    expect(chart).to_be_attached(timeout=15000)
    settle(page)
    points = page.evaluate(
        "() => document.querySelector('[data-figure=accuracy-figure]').data"
        ".filter(t => t.mode === 'markers').reduce((n, t) => n + t.x.length, 0)"
    )
    assert points == 3  # the held-out runs; the fitted one is not drawn
    assert page.locator("div.plot .xaxislayer-above text").count() > 0
    assert (
        page.evaluate(
            "() => document.querySelector('[data-figure=accuracy-figure]').layout.xaxis.type"
        )
        == "log"
    )
    assert axe_violations(page, measured.url) == []
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= SIZES[size]["width"] + 1
    shoot(page, "planner-accuracy", size)
    url = page.evaluate(
        "() => document.querySelector('[data-figure=accuracy-figure]').data[0].customdata[1]"
    )
    page.evaluate(
        "(url) => document.querySelector('[data-figure=accuracy-figure]')"
        ".emit('plotly_click', {points: [{customdata: url}]})",
        url,
    )
    expect(page).to_have_url(re.compile(r"/results/mlperf/systems/\d+/bert/$"))
    expect(page.locator("h1")).to_contain_text("dgxh100_n64")
    context.close()
    assert errors == []


def test_the_planner_links_the_runs_like_the_plan(page, measured):
    page.goto(f"{measured.url}/planner/?network=bert-large&device=h100-sxm&P=64")
    note = page.locator("#comparable-runs")
    expect(note).to_contain_text("38–42 % of peak in model FLOPs (MFU) (3 runs)")
    note.get_by_role("link", name="NVIDIA dgxh100_n64 (v4.0)").click()
    expect(page).to_have_url(re.compile(r"/results/mlperf/systems/\d+/bert/$"))
