"""End to end with real worker processes (`manage.py demo_worker`) on the test database, SQLite
or PostgreSQL (CI runs the suite on both): runs are queued over HTTP, taken by a worker, report
progress, and end succeeded or failed, also when a worker is killed in the middle of a run."""

import os
import signal
import time

import pytest

from explorer.demos.models import DemoRun
from explorer.demos.tasks import WORKER_LOST

SLOW = "data-parallel"
SLOW_PARAMS = {"P": 64, "B": 1024, "d": 1024, "steps": 100}  # seconds, in 100 reported steps
QUICK_PARAMS = {"P": 8, "B": 64, "d": 64, "steps": 20}  # about the worker's start-up time
DEADLINE = 180  # seconds: a bound on every wait below, so that a broken queue fails, not hangs


def queue(client, seed: int, params: dict = QUICK_PARAMS) -> int:
    response = client.post(
        f"/api/demos/{SLOW}/runs/",
        {"params": {**params, "seed": seed}},
        content_type="application/json",
    )
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"
    return response.json()["id"]


def wait_until(condition, what: str):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.1)
    pytest.fail(f"not within {DEADLINE} s: {what}")


def statuses(ids: list[int]) -> dict[int, str]:
    return dict(DemoRun.objects.filter(pk__in=ids).values_list("pk", "status"))


def test_a_worker_runs_queued_runs_and_reports_their_progress(client, demo_workers):
    ids = [queue(client, 1, SLOW_PARAMS), queue(client, 2)]
    assert client.get(f"/api/demos/runs/{ids[1]}/").json()["queue_position"] == 2
    demo_workers()

    seen = []

    def finished() -> bool:
        document = client.get(f"/api/demos/runs/{ids[0]}/").json()
        seen.append((document["status"], document["progress_message"]))
        return document["status"] == "succeeded"

    wait_until(finished, "the first run succeeds")
    running = [message for status, message in seen if status == "running"]
    assert any(message.startswith("step ") and message.endswith(" of 100") for message in running)
    wait_until(lambda: set(statuses(ids).values()) == {"succeeded"}, "the queue drains")
    assert DemoRun.objects.get(pk=ids[1]).attempts == 1


def test_a_run_whose_worker_is_killed_ends_and_a_new_worker_drains_the_queue(client, demo_workers):
    ids = [queue(client, 1, SLOW_PARAMS), queue(client, 2), queue(client, 3)]
    first = demo_workers()
    wait_until(
        lambda: DemoRun.objects.filter(pk=ids[0], status="running", progress__gt=0).exists(),
        "the first run is under way",
    )
    os.kill(first.pid, signal.SIGKILL)  # the worker only: its demo process is orphaned
    first.wait()

    # No worker is alive: reading the run is enough to find that its worker was lost.
    assert client.get(f"/api/demos/{SLOW}/").status_code == 200  # the web keeps answering
    wait_until(
        lambda: client.get(f"/api/demos/runs/{ids[0]}/").json()["status"] != "running",
        "the killed run leaves 'running'",
    )
    lost = DemoRun.objects.get(pk=ids[0])
    assert (lost.status, lost.attempts) == ("queued", 1)  # queued again for its second attempt

    demo_workers()
    wait_until(
        lambda: not (set(statuses(ids).values()) & {"queued", "running"}),
        "every run ends",
    )
    runs = {run.pk: run for run in DemoRun.objects.filter(pk__in=ids)}
    assert (runs[ids[0]].status, runs[ids[0]].attempts) in {("succeeded", 2), ("failed", 2)}
    if runs[ids[0]].status == "failed":
        assert runs[ids[0]].error == WORKER_LOST
    assert [runs[pk].status for pk in ids[1:]] == ["succeeded", "succeeded"]
