"""A reader runs a demo on the queue: Run leads to the run's permalink, which shows its place in
the queue, then its progress while a real worker runs it, then the charts; the link survives a
reload, and the same parameters lead to the same run."""

import re
import time

from playwright.sync_api import expect

from explorer.demos.models import DemoRun

SLOW = "/demos/data-parallel/?P=64&B=1024&d=1024&steps=100&seed=7"  # seconds, 100 steps


def test_it_queues_a_run_then_shows_its_progress_and_its_charts(page, live_survey, demo_workers):
    page.goto(f"{live_survey.url}{SLOW}")
    page.click("button:has-text('Run')")
    expect(page).to_have_url(re.compile(r"/demos/data-parallel/runs/\d+/$"))
    expect(page.locator("#run-status")).to_contain_text("next in line")  # no worker yet

    demo_workers()
    expect(page.locator("#run-progress")).to_be_visible(timeout=60000)  # htmx polls the status
    expect(page.locator(".run-message")).to_contain_text(re.compile(r"started|step \d+ of 100"))
    # The steps may pass between two of the page's polls (1 s) on a fast machine: the messages
    # the page shows are read more often here, from the run itself.
    assert any(re.fullmatch(r"step \d+ of 100", m) for m in progress_messages(run_id(page)))
    plot = page.locator("#demo-results .plot[data-drawn=true]").first
    expect(plot).to_be_visible(timeout=90000)
    expect(page.locator("#run-status")).to_contain_text("Succeeded")

    permalink = page.url
    page.reload()
    expect(page).to_have_url(permalink)
    expect(plot).to_be_visible(timeout=15000)
    expect(page.locator("#demo-results")).to_contain_text("Agreement with the model")


def run_id(page) -> int:
    return int(re.search(r"/runs/(\d+)/$", page.url).group(1))


def progress_messages(pk: int, seconds: float = 90) -> set[str]:
    """Every progress message of a run seen while it runs, read every 20 ms."""
    seen, deadline = set(), time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = DemoRun.objects.get(pk=pk)
        seen.add(run.progress_message)
        if not run.is_active:
            break
        time.sleep(0.02)
    return seen


def test_the_same_parameters_lead_to_the_same_run(page, live_survey):
    page.goto(f"{live_survey.url}/demos/pipeline-bubble/?M=12")
    page.click("button:has-text('Run')")
    expect(page).to_have_url(re.compile(r"/demos/pipeline-bubble/runs/\d+/$"))
    permalink = page.url
    expect(page.locator("#demo-results .plot[data-drawn=true]").first).to_be_visible(timeout=30000)

    page.click("text=Change the parameters")
    expect(page.locator("input[name=M]")).to_have_value("12")
    expect(page.locator("#demo-existing")).to_contain_text("ready: see its result")
    expect(page.locator("#demo-recent-runs")).to_contain_text("M=12")
    page.click("button:has-text('Run')")
    expect(page).to_have_url(permalink)
    assert DemoRun.objects.count() == 1
