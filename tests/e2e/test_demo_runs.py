"""A reader runs a demo on the queue: Run leads to the run's permalink, which shows its place in
the queue, then its progress while a real worker runs it, then the charts; the link survives a
reload, and the same parameters lead to the same run."""

import re

from django.utils import timezone
from playwright.sync_api import expect

from explorer.demos.models import DemoRun

SLOW = "/demos/data-parallel/?P=64&B=1024&d=1024&steps=100&seed=7"  # the longest: 100 steps


def test_it_queues_a_run_then_shows_its_progress_and_its_charts(page, live_survey, demo_workers):
    page.goto(f"{live_survey.url}{SLOW}")
    page.click("button:has-text('Run')")
    expect(page).to_have_url(re.compile(r"/demos/data-parallel/runs/\d+/$"))
    expect(page.locator("#run-status")).to_contain_text("next in line")  # no worker yet

    # A demo runs in about a second, less than the page's poll (1 s): the page is shown a
    # worker's beat first (what a worker writes), then a real worker runs the demo.
    # tests/demos/test_worker.py follows a real worker's progress through the API.
    run = DemoRun.objects.filter(pk=run_id(page))
    beat = {"heartbeat_at": timezone.now(), "progress": 0.42, "progress_message": "step 42 of 100"}
    run.update(status="running", **beat)
    expect(page.locator(".run-message")).to_have_text("step 42 of 100")
    expect(page.locator("#run-progress")).to_have_attribute("value", "0.420")
    expect(page.locator(".run-percent")).to_have_text("42 %")
    run.update(status="queued", heartbeat_at=None, progress=0.0, progress_message="")
    demo_workers()
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
