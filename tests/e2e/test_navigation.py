"""The navigation in groups as a reader uses it: by keyboard alone on a desktop, under "Menu" on a
phone, and without JavaScript (every group open, every link visible)."""

import re

import pytest
from playwright.sync_api import expect

from explorer.templatetags.nav_tags import NAV

LABELS = [label for _, _, links in NAV for _, label, _ in links]


def test_it_opens_a_group_and_follows_a_link_with_the_keyboard_alone(page, live_survey):
    page.goto(f"{live_survey.url}/")
    expect(page.get_by_role("link", name="Survey Explorer")).to_have_attribute(
        "aria-current", "page"
    )
    group = page.get_by_role("button", name="Techniques and models")
    for _ in range(10):  # from the top: the skip link, the brand, then the groups
        page.keyboard.press("Tab")
        if group.evaluate("element => element === document.activeElement"):
            break
    expect(group).to_be_focused()
    page.keyboard.press("Enter")
    expect(group).to_have_attribute("aria-expanded", "true")
    planner = page.get_by_role("link", name="Planner", exact=True)
    for _ in range(4):
        page.keyboard.press("Tab")
    expect(planner).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_survey.url}/planner/")
    expect(page.locator("#site-nav a[aria-current=page]")).to_have_text("Planner")
    # Its group is marked as the current one; the focus leaving a group closes it.
    expect(page.locator(".nav-group.current > .nav-toggle")).to_have_text("Techniques and models")
    survey = page.get_by_role("button", name="The survey")
    survey.click()
    expect(survey).to_have_attribute("aria-expanded", "true")
    page.get_by_role("button", name="Evidence").focus()
    expect(survey).to_have_attribute("aria-expanded", "false")


@pytest.mark.parametrize("width", [1300, 390])
def test_every_link_is_visible_without_javascript(browser, live_survey, width):
    viewport = {"width": width, "height": 900}
    context = browser.new_context(viewport=viewport, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_survey.url}/works/")
    nav = page.get_by_role("navigation", name="Site")
    for label in LABELS:
        expect(nav.get_by_role("link", name=label, exact=True)).to_be_visible()
    expect(page.locator(".nav-toggle").first).to_be_hidden()  # a button that could do nothing
    expect(page.locator(".menu-button")).to_be_hidden()
    expect(nav.get_by_role("link", name="Works", exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    assert re.search(r"Techniques and models", nav.inner_text(), re.I)
    context.close()
