"""The works page's linked views in a browser: a year bar narrows the list to its year and the
back button restores the selection; a range brushed on the timeline narrows it to those years;
a node of the citation graph opens its work."""

import re

from playwright.sync_api import expect

SELECTION = "/works/?q=pipeline&era=all"


def summary_count(page) -> int:
    return int(page.locator(".summary strong").first.inner_text())


def bar(page, year: int):
    return page.locator(f'.timeline a[data-year="{year}"]')


def test_it_narrows_the_list_to_a_year_bar_and_goes_back(page, live_survey):
    page.goto(f"{live_survey.url}{SELECTION}")
    before = summary_count(page)
    expect(page.locator(".linked-views .timeline")).to_be_visible()
    label = bar(page, 2021).locator("title").text_content()
    in_year = int(re.match(r"2021: (\d+) works?", label).group(1))
    assert 0 < in_year < before
    bar(page, 2021).locator("rect.hit").click()
    expect(page).to_have_url(
        re.compile(r"/works/\?q=pipeline&era=all&year_min=2021&year_max=2021$")
    )
    expect(page.locator(".summary strong").first).to_have_text(str(in_year))
    years = page.locator("ol.works .meta").all_inner_texts()
    assert years and all("2021" in line for line in years)
    expect(page.locator(".chips")).to_contain_text("in 2021")
    expect(page.locator("#id_year_min")).to_have_value("2021")
    page.go_back()
    expect(page).to_have_url(re.compile(r"/works/\?q=pipeline&era=all$"))
    expect(page.locator(".summary strong").first).to_have_text(str(before))


def test_it_narrows_the_list_to_a_brushed_range_of_years(page, live_survey):
    page.goto(f"{live_survey.url}{SELECTION}")
    start = bar(page, 2019).locator("rect.hit").bounding_box()
    end = bar(page, 2021).locator("rect.hit").bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=5)
    page.mouse.up()
    expect(page).to_have_url(re.compile(r"year_min=2019&year_max=2021$"))
    expect(page.locator(".chips")).to_contain_text("from 2019")
    expect(page.locator(".chips")).to_contain_text("up to 2021")


def test_it_opens_a_work_from_the_citation_graph(page, live_survey):
    page.goto(f"{live_survey.url}/works/?category=net-pipe&era=all")
    node = page.locator(".mini-graph a").first
    title = node.locator("title").text_content()
    node.locator("circle").click()
    expect(page).to_have_url(re.compile(r"/works/[\w.-]+/$"))
    expect(page.locator("h1")).to_contain_text(title.split(" (")[0][:40])
