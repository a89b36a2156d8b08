"""Every kind of page, loaded once per viewport, with every check at once: axe-core's serious and
critical violations (at desktop and phone sizes), nothing wider than the screen (at 1300, 820,
390 and 320 px; 820 is a tablet, the desktop layout on its narrowest screen), the menu open
included, and no JavaScript error. Long addresses wrap, wide tables, formulas and code scroll
inside their own box; a page that scrolls sideways fails with the element that pushes it.

This replaces two sweeps that loaded the same pages again and again (axe at two sizes in
test_hubs.py, the widths in test_narrow.py): each viewport visits the pages the old sweeps
visited at that width, once. The admin's pages, logged in, get axe-core too."""

import pytest
from django.utils import timezone

from catalogue.models import Author, Work
from explorer.demos.models import DemoRun, params_digest
from explorer.demos.runner import run_demo
from tests.e2e.test_hubs import axe_violations, plots_drawn

TRANSFORMER = (
    "/planner/?network=transformer&layers=24&hidden=2048&heads=16&seq_len=2048&vocab=50257"
)
# The accessibility sweep's pages (axe at desktop and phone sizes), the admin's login among them.
AXE_PAGES = [
    "/",
    "/works/",
    "/works/dean2012large/",
    "/categories/",
    "/categories/ops-conv/",
    "/categories/net-pipe/",
    "/categories/bg-algorithms/",
    "/techniques/",
    "/costs/",
    "/planner/",
    "/planner/derivations/?network=alexnet&strategy=data-ring",
    "/planner/accuracy/",
    "/planner/?network=gpt3-175b&machine=a100-cluster",
    "/results/",
    "/categories/net-data/",
    "/works/goyal2017accurate/",
    "/graph/",
    "/snowball/",
    "/demos/",
    "/demos/pipeline-bubble/",
    "/categories/after-net-tensor/",
    "/categories/after-net-sequence/",
    "/categories/after-net-expert/",
    "/demos/tensor-parallel/",
    "/sources/",
    "/numbers/",
    "/data-quality/",
    "/api/docs/",
    "/admin/login/",
]
# The narrow-screen sweep's pages (at 320, 390 and 820 px).
NARROW_PAGES = [
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
# The admin's pages, seen by a curator (issue 28: the admin joins the axe list).
ADMIN_PAGES = [
    "/admin/",
    "/admin/catalogue/work/",
    "/admin/catalogue/work/?q=pipelining",
    "/admin/catalogue/category/",
    "/admin/catalogue/technique/",
    "/admin/catalogue/author/",
]
AUTHOR, DEMO_RUN = "an author's page", "a finished demo run's page"
# name: (viewport, the pages it visits, whether axe-core runs there).
VIEWPORTS = {
    "desktop": ({"width": 1300, "height": 900}, [*AXE_PAGES, AUTHOR, DEMO_RUN], True),
    "tablet-820": ({"width": 820, "height": 800}, [*NARROW_PAGES, AUTHOR], False),
    "phone-390": (
        {"width": 390, "height": 844},
        list(dict.fromkeys([*AXE_PAGES, *NARROW_PAGES, AUTHOR, DEMO_RUN])),
        True,
    ),
    "phone-320": ({"width": 320, "height": 800}, [*NARROW_PAGES, AUTHOR], False),
}

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


def finished_run() -> DemoRun:
    """A run's permalink with its charts: the demo computed here, as a worker would."""
    done = run_demo("pipeline-bubble", {"P": 4, "M": 8})
    return DemoRun.objects.create(
        slug=done["slug"],
        version=done["version"],
        params=done["params"],
        params_digest=params_digest(done["params"]),
        status=DemoRun.SUCCEEDED,
        result=done["result"],
        elapsed_s=done["elapsed_s"],
        progress=1.0,
        progress_message="done",
        attempts=1,
        finished_at=timezone.now(),
    )


class InFlight:
    """The page's requests not yet answered. None of these pages fetches anything after its
    load event (measured), so waiting for them replaces `networkidle`'s half a second of
    silence per visit; a page that does fetch is still waited for."""

    def __init__(self, page):
        self.page, self.pending = page, set()
        page.on("request", lambda request: self.pending.add(request))
        page.on("requestfinished", lambda request: self.pending.discard(request))
        page.on("requestfailed", lambda request: self.pending.discard(request))

    def wait(self, timeout_s: float = 15) -> None:
        for _ in range(int(timeout_s / 0.05)):
            if not self.pending:
                return
            self.page.wait_for_timeout(50)
        raise AssertionError(f"requests still unanswered: {[r.url for r in self.pending]}")


def checks(page, base: str, with_axe: bool) -> dict[str, object]:
    """What is wrong with the page as it stands: {check: finding}."""
    found = {}
    if with_axe and (violations := axe_violations(page, base)):
        found["axe serious or critical violations"] = violations
    if too_wide := sideways(page):
        found["wider than the screen"] = too_wide
    return found


def open_menu(page) -> None:
    """Every group shown (a phone), or the rightmost group's menu (a desktop)."""
    menu = page.get_by_role("button", name="Menu")
    (menu if menu.is_visible() else page.locator(".nav-toggle").last).click()


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_every_page_passes_axe_and_fits_the_screen(browser, live_survey, viewport):
    size, pages, with_axe = VIEWPORTS[viewport]
    author = f"/authors/{Author.objects.order_by('pk').first().pk}/"
    run = finished_run().get_absolute_url() if DEMO_RUN in pages else None
    context = browser.new_context(viewport=size)
    page = context.new_page()
    in_flight, problems, current = InFlight(page), {}, {"path": None}
    page.on(
        "pageerror",
        lambda error: (
            problems.setdefault(current["path"], {})
            .setdefault("JavaScript errors", [])
            .append(str(error))
        ),
    )
    for path in [{AUTHOR: author, DEMO_RUN: run}.get(path, path) for path in pages]:
        current["path"] = path
        page.goto(f"{live_survey.url}{path}")
        in_flight.wait()
        plots_drawn(page)
        problems.setdefault(path, {}).update(checks(page, live_survey.url, with_axe))
        if path == "/":
            open_menu(page)
            if too_wide := sideways(page):
                problems["/ with the menu open"] = {"wider than the screen": too_wide}
    context.close()
    problems = {path: found for path, found in problems.items() if found}
    assert problems == {}, f"at {viewport} ({size['width']} px): {problems}"


@pytest.mark.parametrize("viewport", ["desktop", "phone-390"])
def test_the_admin_has_no_serious_accessibility_violation(
    browser, live_survey, django_user_model, viewport
):
    """axe-core on the admin's pages, logged in as a superuser, and on a work's change form."""
    django_user_model.objects.create_superuser("axe", password="a-long-enough-password")
    work = Work.objects.get(key="dean2012large")
    context = browser.new_context(viewport=VIEWPORTS[viewport][0])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    in_flight = InFlight(page)
    page.goto(f"{live_survey.url}/admin/login/")
    page.fill("#id_username", "axe")
    page.fill("#id_password", "a-long-enough-password")
    page.click("input[type=submit]")
    violations = {}
    for path in [*ADMIN_PAGES, f"/admin/catalogue/work/{work.pk}/change/"]:
        page.goto(f"{live_survey.url}{path}")
        in_flight.wait()
        if found := axe_violations(page, live_survey.url):
            violations[path] = found
    context.close()
    assert (violations, errors) == ({}, [])


def test_the_home_page_leads_in_three_desktop_screens(browser, live_survey):
    """The home page is a start, not the catalogue: at most three screens of a 1280 x 800 desktop
    (the list of every work, 20,900 px of it, is the works page's)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{live_survey.url}/")
    height = page.evaluate("() => document.documentElement.scrollHeight")
    context.close()
    assert height <= 3 * 800
