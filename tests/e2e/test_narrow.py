"""Nothing wider than the screen: every kind of page at 320 and 390 px (phones) and at 820 px (a
tablet: the desktop layout on its narrowest screen), without horizontal scrolling.
Long addresses wrap, wide tables, formulas and code scroll inside their own box; a page that
scrolls sideways fails with the element that pushes it."""

import pytest

from catalogue.models import Author
from tests.e2e.test_hubs import settle

WIDTHS = (320, 390, 820)
TRANSFORMER = (
    "/planner/?network=transformer&layers=24&hidden=2048&heads=16&seq_len=2048&vocab=50257"
)
PAGES = [
    "/",
    "/works/",
    "/works/?q=pipelining",
    "/works/narayanan2021efficient/",  # Megatron-LM 2021: long formulas and a long "read on" URL
    "/works/dean2012large/",
    "/categories/",
    "/categories/net-pipe/",
    "/categories/after-net-tensor/",
    "/techniques/",
    "/costs/",
    "/planner/",
    TRANSFORMER,
    "/planner/derivations/?network=alexnet&strategy=data-ring",
    "/planner/accuracy/",
    "/graph/",
    "/snowball/?seeds=dean2012large,narayanan2021efficient",
    "/demos/",
    "/demos/pipeline-bubble/",
    "/results/",
    "/devices/",
    "/sources/",
    "/data-quality/",
    "/numbers/",
    "/api/docs/",
]

# The element reaching furthest right beyond the viewport, not counting what is clipped by an
# ancestor that scrolls inside the viewport (a wide table in its box is fine).
WIDEST = """() => {
  const limit = document.documentElement.clientWidth;
  function clipped(element) {
    for (let box = element.parentElement; box && box !== document.body; box = box.parentElement) {
      if (getComputedStyle(box).overflowX !== "visible"
          && box.getBoundingClientRect().right <= limit + 1) return true;
    }
    return false;
  }
  let widest = null, right = limit + 1;
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.right > right && !clipped(element)) {
      right = box.right;
      widest = element;
    }
  }
  if (!widest) return "no single element (a margin?)";
  const name = widest.tagName.toLowerCase() + (widest.id ? "#" + widest.id : "")
    + [...widest.classList].map(c => "." + c).join("");
  return name + " reaching " + Math.round(right) + " px: "
    + (widest.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 60);
}"""


def sideways(page) -> str | None:
    """None if the page fits its width, else how much wider it is and the widest element."""
    extra = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return f"{extra} px too wide; {page.evaluate(WIDEST)}" if extra > 0 else None


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_is_wider_than_a_phone(browser, live_survey, width):
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    author = Author.objects.order_by("pk").first()
    too_wide = {}
    for path in [*PAGES, f"/authors/{author.pk}/"]:
        page.goto(f"{live_survey.url}{path}")
        settle(page)
        if found := sideways(page):
            too_wide[path] = found
    # The menu open: every group shown (a phone), or the rightmost group's menu (a desktop).
    page.goto(f"{live_survey.url}/")
    menu = page.get_by_role("button", name="Menu")
    (menu if menu.is_visible() else page.locator(".nav-toggle").last).click()
    if found := sideways(page):
        too_wide["/ with the menu open"] = found
    context.close()
    assert (too_wide, errors) == ({}, [])


def test_the_home_page_leads_in_three_desktop_screens(browser, live_survey):
    """The home page is a start, not the catalogue: at most three screens of a 1280 x 800 desktop
    (the list of every work, 20,900 px of it, is the works page's)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{live_survey.url}/")
    height = page.evaluate("() => document.documentElement.scrollHeight")
    context.close()
    assert height <= 3 * 800
