"""A reader opens /devices/ on a phone: the table scrolls in its box (the page never scrolls
sideways), a column's header sorts by it, a value's badge leads to the page it was read on, and
a device's name opens its notes."""

import re

from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}


def test_it_sorts_the_devices_on_a_phone_without_horizontal_overflow(browser, live_server):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/devices/")
    expect(page.locator("h1")).to_have_text("Devices")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"] + 1
    # The table is wider than the phone: it scrolls inside its own box.
    box = page.locator(".table-scroll")
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")

    page.locator("thead a", has_text="bf16 peak").click()
    expect(page).to_have_url(re.compile(r"/devices/\?ordering=-bf16$"))
    expect(page.locator("th[aria-sort=descending]")).to_have_text("bf16 peak")
    expect(page.locator("table.devices tbody tr").first).to_have_id("device-gb200")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"] + 1

    badge = page.locator("#device-h100-sxm a.badge").first
    expect(badge).to_have_attribute("href", re.compile(r"^https://github\.com/mlcommons/"))
    expect(badge).to_have_attribute("title", re.compile(r"read: 80 GB"))
    # A device's name opens its notes and readings (a closed <details> opened by the fragment).
    page.locator("#device-h100-sxm td.device a").click()
    notes = page.locator("details", has=page.locator("#notes-h100-sxm"))
    expect(notes).to_have_attribute("open", "")
    expect(notes).to_contain_text("divided by 2")
    context.close()
    assert errors == []
