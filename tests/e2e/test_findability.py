"""Finding things as a person would: a word from the home page to a work, a snowball seed picked
by its title, the works page on a phone with the first result in view."""

import re

from playwright.sync_api import expect

from tests.e2e.conftest import SCREENSHOTS

PHONE = {"width": 390, "height": 844}


def test_it_searches_pipelining_from_the_home_page_to_a_result(page, live_survey):
    page.goto(f"{live_survey.url}/")
    box = page.locator("#home-q")
    box.press_sequentially("pipelin", delay=30)
    suggestions = page.locator("#home-q-box [role=option]")
    expect(suggestions.first.locator("mark").first).to_contain_text(re.compile("pipelin", re.I))
    box.press_sequentially("ing")
    box.press("Enter")  # no suggestion chosen: the search itself
    expect(page).to_have_url(re.compile(r"/works/\?q=pipelining$"))
    expect(page.locator(".summary")).to_contain_text("18 works match")
    expect(page.locator(".chips")).to_contain_text("“pipelining”")
    # The order among equally good matches is the database's (bm25 on SQLite, ts_rank on
    # PostgreSQL): the first result shows why it matched and leads to its own page.
    first = page.locator("ol.works li").first
    expect(first.locator("mark").first).to_have_text(re.compile("^pipelin", re.I))
    link = first.locator("a").first
    title = link.inner_text()
    link.click()
    expect(page).to_have_url(re.compile(r"/works/[\w.-]+/$"))
    expect(page.locator("h1")).to_contain_text(title)


def test_it_opens_a_suggestion_with_the_keyboard(page, live_survey):
    page.goto(f"{live_survey.url}/works/")
    box = page.locator("#works-q")
    box.press_sequentially("lock-fr", delay=30)
    expect(page.locator("#works-q-box [role=option]").first).to_contain_text("Lock-Free Approach")
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", "works-q-1")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/works/recht2011hogwild/$"))


def test_it_picks_a_snowball_seed_by_title(page, live_survey):
    page.goto(f"{live_survey.url}/snowball/")
    box = page.locator("#seed-title")
    box.press_sequentially("lock-free approach", delay=30)
    option = page.locator("#seed-title-box [role=option]").first
    expect(option).to_contain_text("Lock-Free Approach")
    option.click()
    expect(page.locator("#seed-list")).to_contain_text("Lock-Free Approach")
    expect(page.locator("#seed-keys")).to_have_value("recht2011hogwild")
    page.get_by_role("button", name="Replay").click()
    expect(page).to_have_url(re.compile(r"seeds=recht2011hogwild"))
    expect(page.locator("#seed-list li")).to_have_count(1)
    expect(page.locator("#seed-list")).to_contain_text("Lock-Free Approach")
    expect(page.locator("main")).to_contain_text("1 seed,")
    # Reached via: titles, not keys.
    expect(page.locator("td.via").first).not_to_contain_text("recht2011hogwild")


def test_it_shows_the_first_result_on_a_phone_without_scrolling(browser, live_survey):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        for query, name in (("", "phone-works"), ("?q=hogwild", "phone-works-one-result")):
            page.goto(f"{live_survey.url}/works/{query}")
            first = page.locator("ol.works li").first
            expect(first).to_be_visible()
            box = first.bounding_box()
            assert box["y"] + box["height"] <= PHONE["height"], f"{name}: first result at {box}"
            expect(page.locator(".filters-panel")).not_to_have_attribute("open", "")
            SCREENSHOTS.mkdir(exist_ok=True)
            page.screenshot(path=SCREENSHOTS / f"{name}.png")
    finally:
        context.close()
