"""The survey as a map, at desktop and phone sizes: a hub reached from the home page, formulas
typeset as mathematics, the phone menu and the keyboard (axe-core on every page, the admin's
included: test_every_page.py)."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import SCREENSHOTS

SIZES = {"desktop": {"width": 1300, "height": 900}, "phone": {"width": 390, "height": 844}}
BLOCKING = {"serious", "critical"}


@pytest.fixture(params=list(SIZES))
def sized(browser, request):
    """(page, size name) for each size; fails on a JavaScript error like the `page` fixture."""
    context = browser.new_context(viewport=SIZES[request.param])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page, request.param
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def shoot(page, name: str, size: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}-{size}.png", full_page=True)


def axe_violations(page, base: str) -> list[tuple[str, str, int]]:
    """axe-core's serious and critical violations on the page: (rule, impact, elements)."""
    page.add_script_tag(url=f"{base}/static/vendor/axe-core/axe.min.js")  # vendored, same origin
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => [v.id, v.impact, v.nodes.length])"
    )
    return [tuple(violation) for violation in found if violation[1] in BLOCKING]


def tab_until(page, target, presses: int) -> None:
    """Press Tab until `target` has the focus (at most `presses` times)."""
    for _ in range(presses):
        if target.evaluate("element => element === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(target).to_be_focused()


def settle(page) -> None:
    """Wait until the page's scripts have drawn what they draw (plots, fetched results)."""
    page.wait_for_load_state("networkidle")
    plots_drawn(page)


def plots_drawn(page) -> None:
    """Wait until the page's plots are drawn."""
    plots = page.locator(".plot, #graph-plot, #snowball-plot")
    if plots.count():
        expect(plots.first.locator(".plot-container")).to_be_attached(timeout=15000)


def test_it_reaches_a_hub_from_the_home_page(sized, live_survey):
    page, size = sized
    page.goto(f"{live_survey.url}/")
    shoot(page, "home", size)
    page.locator(".map").get_by_role("link", name="Concurrency in operators").click()
    expect(page).to_have_url(f"{live_survey.url}/categories/ops/")
    page.locator("#children ~ ul").get_by_role("link", name="§5.3 Convolution").click()
    expect(page.locator("h1")).to_contain_text("Convolution")
    breadcrumbs = page.get_by_role("navigation", name="Place in the survey's taxonomy")
    expect(breadcrumbs).to_contain_text("§5 Concurrency in operators")
    expect(page.locator("#technique-conv-winograd")).to_be_visible()
    expect(page.locator("svg.wd-plot circle")).to_have_count(7)
    settle(page)
    shoot(page, "hub", size)


def test_it_typesets_formulas_as_mathematics(sized, live_survey):
    page, _ = sized
    page.goto(f"{live_survey.url}/categories/bg-algorithms/")
    formula = page.locator("#technique-allreduce-ring .formula").first
    expect(formula.locator("math")).to_be_visible()
    expect(formula.locator("code.formula-text")).to_have_text("2*(P - 1)*L + 2*gamma*m*G*(P - 1)/P")
    # A fraction laid out by the browser: its numerator stands above its denominator.
    fraction = formula.locator("mfrac").first
    numerator = fraction.locator("> mrow").nth(0).bounding_box()
    denominator = fraction.locator("> mrow").nth(1).bounding_box()
    assert numerator["y"] + numerator["height"] <= denominator["y"] + 1
    # Everywhere formulas appear, by the same printer (on /costs/ some lists start folded).
    for path in ("/techniques/", "/works/gibiansky2017bringing/", "/costs/"):
        page.goto(f"{live_survey.url}{path}")
        expect(page.locator(".formula math").first).to_be_attached()


def test_the_tensor_parallelism_hub_shows_its_formulas_plot_demo_and_planner(sized, live_survey):
    page, size = sized
    page.goto(f"{live_survey.url}/categories/after-net-tensor/")
    technique = page.locator("#technique-tensor-parallelism")
    expect(technique.locator(".formula math").first).to_be_visible()
    plot = page.locator("#plot-tensor-parallelism-communication")
    expect(plot.locator("svg.cost-plot polyline")).to_have_count(1)
    expect(plot.locator("table.cost-table tbody tr")).to_have_count(1)
    expect(page.locator("#demos").locator("..")).to_contain_text("Tensor parallelism")
    shoot(page, "hub-tensor", size)
    technique.get_by_role("link", name=re.compile("plan GPT-3 175B")).click()
    expect(page).to_have_url(re.compile(r"/planner/\?network=gpt3-175b&machine=a100-cluster"))
    expect(page.locator("#layout-table tr[data-layout]").first).to_be_visible()


def test_it_folds_the_menu_and_the_filters_on_a_phone(sized, live_survey):
    page, size = sized
    page.goto(f"{live_survey.url}/works/")
    menu = page.get_by_role("button", name="Menu")
    works_link = page.get_by_role("navigation", name="Site").get_by_role("link", name="Works")
    panel = page.locator("#filters-panel")
    if size == "desktop":
        # The groups are menus: a disclosure button opens one, Escape closes it and goes back.
        expect(menu).to_be_hidden()
        survey = page.get_by_role("button", name="The survey")
        expect(works_link).to_be_hidden()
        survey.focus()
        page.keyboard.press("Enter")
        expect(survey).to_have_attribute("aria-expanded", "true")
        expect(works_link).to_be_visible()
        expect(works_link).to_have_attribute("aria-current", "page")
        page.keyboard.press("Tab")
        expect(page.locator("#nav-survey a").first).to_be_focused()
        page.keyboard.press("Escape")
        expect(works_link).to_be_hidden()
        expect(survey).to_be_focused()
        expect(survey).to_have_attribute("aria-expanded", "false")
        # Another group opens alone; a click elsewhere closes it.
        page.get_by_role("button", name="Evidence").click()
        expect(page.get_by_role("link", name="Data quality")).to_be_visible()
        page.locator("footer.site").click()
        expect(page.get_by_role("link", name="Data quality")).to_be_hidden()
        expect(panel).to_have_attribute("open", "")
    else:
        expect(works_link).to_be_hidden()
        menu.click()
        expect(menu).to_have_attribute("aria-expanded", "true")
        expect(works_link).to_be_visible()
        # Under "Menu", every group at once, each under its heading.
        expect(page.locator(".nav-heading")).to_have_text(
            ["The survey", "Techniques and models", "Evidence", "API and curators"]
        )
        expect(page.get_by_role("link", name="Data quality")).to_be_visible()
        expect(page.locator("#site-nav a").first).to_be_focused()
        page.keyboard.press("Escape")
        expect(works_link).to_be_hidden()
        expect(menu).to_be_focused()
        # The result summary first; the filters folded below the results, one tap away.
        expect(panel).not_to_have_attribute("open", "")
        summary_box = page.locator(".summary").bounding_box()
        assert summary_box["y"] < page.viewport_size["height"] / 2
        page.locator(".filters-jump").click()
        expect(panel).to_have_attribute("open", "")
        expect(page.locator("#filters-panel select, #filters-panel input").first).to_be_focused()
    shoot(page, "works", size)


def test_it_filters_works_and_runs_a_demo_with_the_keyboard_alone(sized, live_survey):
    page, size = sized
    page.goto(f"{live_survey.url}/works/")
    # From the top of the page: Tab to "Filters" (before the results), Enter, Tab to the level.
    tab_until(page, page.locator(".filters-jump"), 40)
    page.keyboard.press("Enter")
    level = page.locator("#filters-panel select[name=level]")
    tab_until(page, level, 15)
    page.keyboard.press("ArrowDown")
    expect(page).to_have_url(re.compile(r"level=ops"))
    expect(page.locator(".chips")).to_contain_text("operators")

    page.goto(f"{live_survey.url}/demos/pipeline-bubble/")
    settle(page)
    shoot(page, "demo", size)
    page.locator("input[name=M]").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("8")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/demos/pipeline-bubble/runs/\d+/$"))

    page.goto(f"{live_survey.url}/planner/")
    page.locator("input[name=P]").focus()
    page.keyboard.type("32")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"P=32"))
