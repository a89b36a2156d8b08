"""Demo runs as queued tasks: the runs API, the pages' POST, the throttle and the queue caps, the
recovery of runs whose worker was lost, pruning and the admin. Tasks run in the request
(immediate backend) or not at all (dummy backend, to hold runs in the queue)."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from explorer.demos import DEMOS, runner
from explorer.demos.models import DemoRun, params_digest
from explorer.demos.tasks import WORKER_LOST, recover_lost_runs

PIPELINE = "pipeline-bubble"
PARAMS = {"P": 4, "M": 8}
CANONICAL = {"M": 8, "P": 4, "backward_cost": 2.0, "seed": 0}
DUMMY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}


def post_run(client, params, slug=PIPELINE, **extra):
    return client.post(
        f"/api/demos/{slug}/runs/", {"params": params}, content_type="application/json", **extra
    )


def make_run(status="queued", params=None, **fields) -> DemoRun:
    params = params or {**CANONICAL, "seed": DemoRun.objects.count() + 100}
    return DemoRun.objects.create(
        slug=PIPELINE,
        version=DEMOS[PIPELINE].version,
        params=params,
        params_digest=params_digest(params),
        status=status,
        **fields,
    )


@pytest.fixture
def counted_runs(monkeypatch):
    """How many times the sandboxed runner was started."""
    calls = []
    real = runner.run_demo

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "run_demo", counting)
    return calls


@pytest.fixture
def demo_rate(monkeypatch):
    def set_rate(rate: str) -> None:
        rates = {**SimpleRateThrottle.THROTTLE_RATES, "demo_run": rate}
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)

    return set_rate


@pytest.mark.django_db
def test_it_queues_a_run_then_serves_the_same_parameters_without_computing_again(
    client, counted_runs
):
    created = post_run(client, PARAMS)
    assert created.status_code == 202, created.content
    run = DemoRun.objects.get()
    assert created.json() == {
        "id": run.pk,
        "status": "succeeded",  # the immediate backend has run it already
        "url": f"/api/demos/runs/{run.pk}/",
        "html_url": f"/demos/{PIPELINE}/runs/{run.pk}/",
    }
    assert created["Location"] == f"/api/demos/runs/{run.pk}/"

    document = client.get(f"/api/demos/runs/{run.pk}/").json()
    assert document == {
        "id": run.pk,
        "slug": PIPELINE,
        "version": DEMOS[PIPELINE].version,
        "params": CANONICAL,
        "status": "succeeded",
        "progress": 1.0,
        "progress_message": "done",
        "queue_position": None,
        "attempts": 1,
        "queued_at": run.queued_at.isoformat().replace("+00:00", "Z"),
        "started_at": run.started_at.isoformat().replace("+00:00", "Z"),
        "finished_at": run.finished_at.isoformat().replace("+00:00", "Z"),
        "elapsed_s": run.elapsed_s,
        "url": f"/api/demos/runs/{run.pk}/",
        "html_url": f"/demos/{PIPELINE}/runs/{run.pk}/",
        "result": run.result,
    }
    assert all(claim["holds"] for claim in document["result"]["agreement"])

    # The same canonical parameters, written differently: the existing run, with a 200.
    again = post_run(client, {"M": "8", "P": 4, "seed": 0})
    assert again.status_code == 200
    assert again.json() == document
    assert counted_runs == [PIPELINE]
    assert DemoRun.objects.count() == 1


@pytest.mark.django_db
def test_it_refuses_bad_parameters_naming_them_before_queueing_anything(client):
    response = post_run(client, {"M": 100000})
    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "invalid",
        "detail": "M: M must be between 1 and 1024 (got 100000)",
        "errors": {"M": ["M must be between 1 and 1024 (got 100000)"]},
    }
    assert post_run(client, {"nope": 1}).status_code == 400
    assert client.post(
        f"/api/demos/{PIPELINE}/runs/", [], content_type="application/json"
    ).json() == {
        "status": 400,
        "code": "invalid",
        "detail": 'the body must be a JSON object {"params": {...}}',
        "errors": {"non_field_errors": ['the body must be a JSON object {"params": {...}}']},
    }
    assert post_run(client, {}, slug="no-such-demo").status_code == 404
    assert not DemoRun.objects.exists()


@pytest.mark.django_db
def test_it_shares_a_queued_run_between_requests_for_the_same_parameters(client, settings):
    settings.TASKS = DUMMY
    first = post_run(client, PARAMS)
    second = post_run(client, {**PARAMS, "seed": 0}, REMOTE_ADDR="10.0.0.2")
    assert first.status_code == second.status_code == 202
    assert first.json() == second.json()
    assert first.json()["status"] == "queued"
    assert DemoRun.objects.count() == 1


@pytest.mark.django_db
def test_it_caps_the_queue_per_client_and_in_total_with_retry_after(client, settings):
    settings.TASKS = DUMMY
    settings.DEMO_QUEUE_PER_CLIENT = 2
    settings.DEMO_QUEUE_TOTAL = 3
    codes = [post_run(client, {**PARAMS, "seed": seed}).status_code for seed in (1, 2, 3)]
    assert codes == [202, 202, 429]
    full = post_run(client, {**PARAMS, "seed": 3})
    assert full["Retry-After"] == "4"  # 2 runs ahead of a place, one at a time, ~2 s each
    assert full.json() == {
        "status": 429,
        "code": "throttled",
        "detail": "you already have 2 demo runs waiting or running (at most 2); retry in 4 s",
        "errors": {},
    }

    other = {"REMOTE_ADDR": "10.0.0.2"}
    assert post_run(client, {**PARAMS, "seed": 4}, **other).status_code == 202
    total = post_run(client, {**PARAMS, "seed": 5}, **other)
    assert total.status_code == 429
    assert total.json()["detail"].startswith("the demo queue is full (3 runs waiting or running)")
    # A run already computed needs no place in the queue.
    assert post_run(client, {**PARAMS, "seed": 1}, **other).status_code == 202
    assert DemoRun.objects.count() == 3


@pytest.mark.django_db
def test_every_way_to_start_a_run_shares_one_throttle(client, demo_rate):
    # The defect: with DEMO_RUN_RATE=2/minute the page's GET ?run=1 ran five times out of five.
    demo_rate("2/minute")
    codes = [client.get(f"/demos/{PIPELINE}/?seed={seed}&run=1").status_code for seed in range(5)]
    assert codes == [200] * 5
    assert not DemoRun.objects.exists()  # a GET never runs anything

    page = client.post(f"/demos/{PIPELINE}/runs/", {**PARAMS, "seed": 1})
    api = post_run(client, {**PARAMS, "seed": 2})
    old_api = client.post(
        f"/api/demos/{PIPELINE}/run/", {"params": PARAMS}, content_type="application/json"
    )
    page_again = client.post(f"/demos/{PIPELINE}/runs/", {**PARAMS, "seed": 3})
    assert [page.status_code, api.status_code, old_api.status_code] == [303, 202, 429]
    assert page_again.status_code == 429
    assert page_again["Retry-After"]
    assert b"too many demo runs from you" in page_again.content
    assert DemoRun.objects.count() == 2


@pytest.mark.django_db
def test_the_run_form_needs_its_csrf_token():
    browser = Client(enforce_csrf_checks=True)
    response = browser.post(f"/demos/{PIPELINE}/runs/", PARAMS)
    assert response.status_code == 403
    assert not DemoRun.objects.exists()
    page = browser.get(f"/demos/{PIPELINE}/")
    token = page.cookies["csrftoken"].value
    ok = browser.post(f"/demos/{PIPELINE}/runs/", {**PARAMS, "csrfmiddlewaretoken": token})
    assert ok.status_code == 303


@pytest.mark.django_db
def test_run_leads_to_the_permalink_that_shows_the_result(client):
    response = client.post(f"/demos/{PIPELINE}/runs/", PARAMS)
    run = DemoRun.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"/demos/{PIPELINE}/runs/{run.pk}/"

    page = client.get(response["Location"])
    assert page.status_code == 200
    assert b"<strong>Succeeded</strong>" in page.content
    assert b'id="demo-run"' in page.content  # the result, drawn by demo.js
    assert b"htmx.min.js" not in page.content  # nothing left to poll

    detail = client.get(f"/demos/{PIPELINE}/?M=8&P=4").content.decode()
    assert f'href="/demos/{PIPELINE}/runs/{run.pk}/">ready: see its result' in detail
    assert f'<a href="/demos/{PIPELINE}/runs/{run.pk}/">#{run.pk}</a>' in detail
    assert "M=8, P=4, backward_cost=2.0, seed=0" in detail


@pytest.mark.django_db
def test_the_permalink_shows_the_queue_position_then_the_progress(client, settings):
    first, second = make_run(), make_run()
    page = client.get(f"/demos/{PIPELINE}/runs/{second.pk}/").content.decode()
    assert "number 2 in the queue" in page
    assert '<meta http-equiv="refresh" content="2">' in page  # without JavaScript
    assert f'hx-get="/demos/{PIPELINE}/runs/{second.pk}/" hx-trigger="every 1s"' in page

    DemoRun.objects.filter(pk=first.pk).update(
        status="running", heartbeat_at=timezone.now(), progress=0.25, progress_message="step 1"
    )
    polled = client.get(f"/demos/{PIPELINE}/runs/{first.pk}/", HTTP_HX_REQUEST="true")
    fragment = polled.content.decode()
    assert fragment.startswith('<div id="run-status" class="run-status run-running"')
    assert 'value="0.250"' in fragment and "25 %" in fragment and "step 1" in fragment
    assert "next in line" in client.get(f"/demos/{PIPELINE}/runs/{second.pk}/").content.decode()

    DemoRun.objects.filter(pk=first.pk).update(status="failed", error="the demo failed: boom")
    done = client.get(f"/demos/{PIPELINE}/runs/{first.pk}/", HTTP_HX_REQUEST="true")
    assert done["HX-Refresh"] == "true"  # reload the page, which draws the outcome
    assert "the demo failed: boom" in client.get(f"/demos/{PIPELINE}/runs/{first.pk}/").text
    assert client.get(f"/demos/fc-gemm/runs/{first.pk}/").status_code == 404


@pytest.mark.django_db
def test_the_old_run_endpoint_answers_202_when_the_run_outlasts_its_wait(client, settings):
    settings.TASKS = DUMMY
    settings.DEMO_WALL_SECONDS = 0.2
    response = client.post(
        f"/api/demos/{PIPELINE}/run/", {"params": PARAMS}, content_type="application/json"
    )
    run = DemoRun.objects.get()
    assert response.status_code == 202
    assert response.json() == {
        "id": run.pk,
        "status": "queued",
        "url": f"/api/demos/runs/{run.pk}/",
        "html_url": f"/demos/{PIPELINE}/runs/{run.pk}/",
    }
    assert response["Retry-After"] == "2"


@pytest.mark.django_db
def test_a_run_whose_worker_was_lost_is_queued_again_once_then_fails(settings):
    settings.TASKS = DUMMY
    settings.DEMO_WORKER_LOST_AFTER = 10
    long_ago = timezone.now() - timedelta(seconds=11)
    lost = make_run(status="running", attempts=1, heartbeat_at=long_ago)
    alive = make_run(status="running", attempts=1, heartbeat_at=timezone.now())

    assert recover_lost_runs() == 1
    lost.refresh_from_db()
    assert (lost.status, lost.attempts, lost.progress_message) == (
        "queued",
        1,
        "queued again: its worker was lost",
    )
    assert lost.task_id  # a new task was queued for attempt 2

    DemoRun.objects.filter(pk=lost.pk).update(status="running", attempts=2, heartbeat_at=long_ago)
    assert recover_lost_runs() == 1
    lost.refresh_from_db()
    assert (lost.status, lost.limit, lost.error) == ("failed", "worker", WORKER_LOST)
    alive.refresh_from_db()
    assert alive.status == "running"
    assert recover_lost_runs() == 0


@pytest.mark.django_db
def test_a_retried_run_completes_and_a_stale_attempt_changes_nothing(client, settings):
    settings.DEMO_WORKER_LOST_AFTER = 10
    lost = make_run(
        status="running",
        params=CANONICAL,
        attempts=1,
        heartbeat_at=timezone.now() - timedelta(seconds=60),
    )
    # Reading the run recovers it (no worker needs to be alive for that); the immediate
    # backend then runs attempt 2 at once.
    document = client.get(f"/api/demos/runs/{lost.pk}/").json()
    assert (document["status"], document["attempts"]) == ("succeeded", 2)

    DemoRun.objects.beat(lost.pk, 1, 0.5, "a lost attempt woke up")
    DemoRun.objects.fail(lost.pk, 1, "late")
    lost.refresh_from_db()
    assert (lost.status, lost.progress_message) == ("succeeded", "done")


@pytest.mark.django_db
def test_it_names_the_limit_a_run_hit(client, monkeypatch):
    def too_slow(*args, **kwargs):
        raise runner.DemoLimitExceeded("the demo ran out of time (15 s wall-clock limit)", "wall")

    monkeypatch.setattr(runner, "run_demo", too_slow)
    run_id = post_run(client, PARAMS).json()["id"]
    document = client.get(f"/api/demos/runs/{run_id}/").json()
    assert document["status"] == "failed"
    assert document["error"] == "the demo ran out of time (15 s wall-clock limit)"
    assert document["limit"] == "wall"
    assert "result" not in document
    # A failed run does not block a new try with the same parameters.
    monkeypatch.undo()
    assert post_run(client, PARAMS).status_code == 202
    assert DemoRun.objects.filter(status="succeeded").count() == 1


@pytest.mark.django_db
def test_it_reads_a_run_in_constant_queries(client, django_assert_num_queries):
    queued = [make_run() for _ in range(3)]
    running = make_run(status="running", heartbeat_at=timezone.now())
    with django_assert_num_queries(2):  # the run, its queue position
        assert client.get(f"/api/demos/runs/{queued[2].pk}/").json()["queue_position"] == 3
    with django_assert_num_queries(2):  # the run, whether its worker is lost
        assert client.get(f"/api/demos/runs/{running.pk}/").json()["status"] == "running"
    assert client.get("/api/demos/runs/999999/").status_code == 404


@pytest.mark.django_db
def test_it_prunes_old_finished_runs_and_keeps_a_bounded_number(settings):
    settings.DEMO_RUNS_KEPT = 2
    old = timezone.now() - timedelta(days=40)
    for days_ago in (40, 3, 2, 1):
        make_run(status="succeeded", finished_at=timezone.now() - timedelta(days=days_ago))
    waiting = make_run(queued_at=old)

    call_command("prune_demo_runs", "--days", "30", verbosity=0)

    remaining = DemoRun.objects.order_by("finished_at")
    assert [run.finished_at.date() for run in remaining.exclude(pk=waiting.pk)] == [
        (timezone.now() - timedelta(days=days)).date() for days in (2, 1)
    ]
    assert DemoRun.objects.filter(pk=waiting.pk).exists()  # never touched while queued


@pytest.mark.django_db
def test_curators_list_and_filter_runs_in_the_admin(client, django_user_model):
    admin = django_user_model.objects.create_superuser("boss", password="a-long-test-password")
    client.force_login(admin)
    failed = make_run(status="failed", error="boom", limit="cpu")
    make_run(status="succeeded")
    page = client.get("/admin/explorer/demorun/?status__exact=failed").content.decode()
    assert f"/admin/explorer/demorun/{failed.pk}/change/" in page
    assert "1 demo run" in page
    assert client.get("/admin/explorer/demorun/add/").status_code == 403
