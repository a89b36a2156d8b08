"""Demo runs as tasks of Django's task framework (django.tasks).

A request validates the parameters and queues a `DemoRun` (`submit_run`); a worker
(`manage.py demo_worker`, django-tasks-db's worker plus the recovery below) takes the task and
runs the demo through the sandboxed runner: a child process with CPU, memory and wall-clock
limits, whose progress lines become the run's progress and its heartbeat.

Attempts: a task carries the attempt number it was queued for, and every write it makes is
conditional on the run still belonging to that attempt. A worker killed mid-run stops writing
its heartbeat; `recover_lost_runs` (called by every worker once a second and by the pages that
show a run) queues such a run again, once, and fails it with "worker lost" after that. A task
of a lost attempt that turns out to be alive after all can then change nothing.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.apps import apps
from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.tasks import TaskContext, task
from django.utils import timezone

from explorer.demos import DEMOS, runner
from explorer.demos.base import DemoError, validate_params
from explorer.demos.models import DemoRun, params_digest
from explorer.demos.runner import DemoLimitExceeded

logger = logging.getLogger(__name__)

WORKER_LOST = (
    "worker lost: the worker running this demo stopped (killed, or its machine went away) "
    "on every attempt"
)


@task(takes_context=True)
def execute_demo_run(context: TaskContext, run_id: int, attempt: int) -> str:
    """Run one queued demo run; returns its final status (for the task backend's records)."""
    worker_id = (context.task_result.worker_ids or [""])[-1]
    if not DemoRun.objects.claim(run_id, attempt, worker_id):
        return "skipped"  # finished already, or a newer attempt owns it
    run = DemoRun.objects.get(pk=run_id)
    try:
        outcome = runner.run_demo(
            run.slug,
            run.params,
            max_concurrent=None,  # one run per worker process: the workers are the cap
            cpu_seconds=settings.DEMO_CPU_SECONDS,
            memory_bytes=settings.DEMO_MEMORY_BYTES,
            wall_seconds=settings.DEMO_WALL_SECONDS,
            on_progress=lambda fraction, message: heartbeat(run_id, attempt, fraction, message),
        )
    except DemoLimitExceeded as error:
        DemoRun.objects.fail(run_id, attempt, str(error), error.limit)
        return DemoRun.FAILED
    except DemoError as error:
        DemoRun.objects.fail(run_id, attempt, str(error))
        return DemoRun.FAILED
    except Exception:
        DemoRun.objects.fail(run_id, attempt, "the demo could not be run (a server error)")
        raise  # the task backend keeps the traceback
    DemoRun.objects.succeed(run_id, attempt, outcome["result"], outcome["elapsed_s"])
    keep_stored_runs_bounded()
    return DemoRun.SUCCEEDED


def submit_run(slug: str, raw_params: dict, client: str = "") -> tuple[DemoRun, bool]:
    """The run for these parameters: an existing one (succeeded, queued or running), or a
    new one queued for a worker. Returns (run, created).

    Raises ParamError (bad parameters: nothing is queued) and QueueFull.
    """
    demo = DEMOS[slug]
    params = validate_params(demo, raw_params)
    if existing := DemoRun.objects.reusable(slug, demo.version, params):
        return existing, False
    DemoRun.objects.check_room(client)
    try:
        with transaction.atomic():
            run = DemoRun.objects.create(
                slug=slug,
                version=demo.version,
                params_digest=params_digest(params),
                params=params,
                client=client,
            )
            # With the database backend the task row commits with the run, or neither does.
            enqueue(run, attempt=1)
    except IntegrityError:  # the same parameters were queued meanwhile: share that run
        if existing := DemoRun.objects.reusable(slug, demo.version, params):
            return existing, False
        raise
    run.refresh_from_db()
    return run, True


def enqueue(run: DemoRun, attempt: int) -> None:
    """Queue a task for this attempt of the run and remember the task's id (call it inside the
    transaction that saved the run, so that with the database backend both commit together)."""
    result = execute_demo_run.enqueue(run.pk, attempt)
    DemoRun.objects.filter(pk=run.pk).update(task_id=str(result.id)[:64])


def wait_for_run(run: DemoRun, timeout: float, poll: float = 0.1) -> DemoRun:
    """The run, read again until it has finished or `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while run.is_active and time.monotonic() < deadline:
        time.sleep(poll)
        run.refresh_from_db()
    return run


def heartbeat(run_id: int, attempt: int, fraction: float, message: str) -> None:
    try:
        DemoRun.objects.beat(run_id, attempt, fraction, message)
    except DatabaseError:  # a locked SQLite file: the next heartbeat comes half a second later
        logger.warning("demo run %s: heartbeat not written", run_id, exc_info=True)


def keep_stored_runs_bounded() -> None:
    """Past DEMO_RUNS_KEPT finished runs, delete the oldest (checked cheaply, trimmed in bulk)."""
    kept = settings.DEMO_RUNS_KEPT
    if DemoRun.objects.finished().count() > kept + max(10, kept // 100):
        DemoRun.objects.beyond_kept(kept).delete()


def recover_lost_runs() -> int:
    """Queue again (once) or fail every run whose worker was lost; returns how many."""
    lost = list(DemoRun.objects.lost()) + list(orphaned_queued_runs())
    for run in lost:
        recover(run)
    return len(lost)


def recover(run: DemoRun) -> None:
    # A run still queued never got its claim in: its dead task used up an attempt all the same.
    used = run.attempts if run.status == DemoRun.RUNNING else run.attempts + 1
    with transaction.atomic():
        owned = DemoRun.objects.filter(pk=run.pk, status=run.status, attempts=run.attempts)
        mark_task_lost(run.task_id)
        if used >= settings.DEMO_RUN_ATTEMPTS:
            owned.update(
                status=DemoRun.FAILED,
                attempts=used,
                error=WORKER_LOST,
                limit="worker",
                finished_at=timezone.now(),
            )
            return
        changed = owned.update(
            status=DemoRun.QUEUED,
            attempts=used,
            progress=0.0,
            progress_message="queued again: its worker was lost",
            heartbeat_at=None,
            queued_at=timezone.now(),
        )
        if changed:
            enqueue(run, attempt=used + 1)
    logger.warning("demo run %s lost its worker (attempt %s)", run.pk, used)


def uses_database_backend() -> bool:
    if not apps.is_installed("django_tasks_db"):
        return False
    from django_tasks_db.backend import DatabaseBackend

    return isinstance(execute_demo_run.get_backend(), DatabaseBackend)


def orphaned_queued_runs():
    """Queued runs whose task a worker claimed and then died before the run started (the
    database backend's row stays "running" forever: django-tasks-db does not look back)."""
    if not uses_database_backend():
        return DemoRun.objects.none()
    from django_tasks_db.models import DBTaskResult

    cutoff = timezone.now() - timedelta(seconds=settings.DEMO_WORKER_LOST_AFTER)
    stuck = DBTaskResult.objects.filter(
        status="RUNNING", task_path=execute_demo_run.module_path, started_at__lt=cutoff
    ).values_list("id", flat=True)
    return DemoRun.objects.filter(
        status=DemoRun.QUEUED, task_id__in=[str(task_id) for task_id in stuck]
    )


def mark_task_lost(task_id: str) -> None:
    """The backend's record of a lost task says failed, not running forever."""
    if not task_id or not uses_database_backend():
        return
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.filter(id=task_id, status="RUNNING").update(
        status="FAILED",
        finished_at=timezone.now(),
        exception_class_path="explorer.demos.tasks.WorkerLost",
        traceback="the worker running this task stopped without finishing it",
    )


def prune_task_records(days: float) -> None:
    """Finished demo tasks in the backend's own table, older than `days` (the runs keep what
    matters; the task rows only repeat it)."""
    if not uses_database_backend():
        return
    from django_tasks_db.models import DBTaskResult

    cutoff = timezone.now() - timedelta(days=days)
    DBTaskResult.objects.filter(
        task_path=execute_demo_run.module_path,
        status__in=("SUCCESSFUL", "FAILED"),
        finished_at__lt=cutoff,
    ).delete()
