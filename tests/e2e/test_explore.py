"""A reader plots costs, walks the graph, replays the snowballing and runs a demo."""

import re

from playwright.sync_api import expect


def test_it_draws_the_work_depth_plane_with_data(page, live_survey):
    page.goto(f"{live_survey.url}/costs/")
    plot = page.locator("div.plot[data-drawn=true]").first
    expect(plot).to_be_visible(timeout=15000)
    assert page.locator("div.plot[data-drawn=true] .scatterlayer .point").count() > 3


def test_it_renders_the_citation_graph(page, live_survey):
    page.goto(f"{live_survey.url}/graph/")
    expect(page.locator("#graph-plot .scatterlayer .point").first).to_be_attached(timeout=15000)
    assert page.locator("#graph-plot .scatterlayer .point").count() > 50
    expect(page.locator("body")).to_contain_text("does not mean")


def test_it_replays_two_rounds_of_backward_snowballing(page, live_survey):
    page.goto(f"{live_survey.url}/snowball/")
    page.select_option("select[name=direction]", "backward")
    page.select_option("select[name=rounds]", "2")
    page.click("button:has-text('Replay')")
    expect(page).to_have_url(re.compile(r"rounds=2"))
    headings = page.locator("section.round h3")
    expect(headings).to_have_count(3)
    expect(headings.nth(2)).to_contain_text("Round 2")
    expect(page.locator("#snowball-plot .plot-container")).to_be_visible(timeout=15000)


def test_it_runs_a_demo_and_shows_its_chart(page, live_survey):
    page.goto(f"{live_survey.url}/demos/pipeline-bubble/")
    page.fill("input[name=M]", "16")
    page.click("button:has-text('Run')")
    expect(page.locator("#demo-results .plot[data-drawn=true]").first).to_be_visible(timeout=30000)
    expect(page.locator("#demo-results")).to_contain_text("Agreement with the model")
    # Run queues the run and leads to its permalink (it used to put run=1 in the page's URL).
    expect(page).to_have_url(re.compile(r"/demos/pipeline-bubble/runs/\d+/$"))
    expect(page.locator('#run-params tr[data-param="M"] td').nth(1)).to_have_text("16")
    assert "NO" not in page.locator("#demo-results table").nth(1).inner_text().split()


def test_it_shows_a_clear_error_for_a_bad_demo_parameter(page, live_survey):
    page.goto(f"{live_survey.url}/demos/pipeline-bubble/?M=100000&run=1")
    expect(page.locator("#demo-error")).to_contain_text("M must be between 1 and")
