"""The demos' own records: demo runs (app label `explorer`, registered from explorer/models.py).
The survey's data lives in catalogue.

A `DemoRun` is one demo computed for one set of canonical parameters: queued by a request,
executed by a task worker (`explorer.demos.tasks`), kept with its result so that a link to it is
a link to the result and the same (demo, version, parameters) is never computed twice.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Avg, Q
from django.utils import timezone

TYPICAL_RUN_SECONDS = 2.0  # until runs have finished to measure: most demos take 0.2-2.5 s
MAX_RETRY_AFTER = 300


class QueueFull(Exception):
    """No room in the demo queue for this client or in total; try after `retry_after` s."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def params_digest(params: dict) -> str:
    """A short, stable key for canonical (sorted, typed) demo parameters."""
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class DemoRunQuerySet(models.QuerySet):
    def active(self) -> DemoRunQuerySet:
        """Runs that still hold a place in the queue: waiting or running."""
        return self.filter(status__in=DemoRun.ACTIVE)

    def finished(self) -> DemoRunQuerySet:
        return self.filter(status__in=(DemoRun.SUCCEEDED, DemoRun.FAILED))

    def for_params(self, slug: str, version: int, params: dict) -> DemoRunQuerySet:
        return self.filter(slug=slug, version=version, params_digest=params_digest(params))

    def reusable(self, slug: str, version: int, params: dict) -> DemoRun | None:
        """The run that answers these parameters without a new computation: succeeded, or still
        queued or running (at most one, by the `demo_run_one_live_per_params` constraint)."""
        live = (*DemoRun.ACTIVE, DemoRun.SUCCEEDED)
        return self.for_params(slug, version, params).filter(status__in=live).first()

    def recent(self, slug: str, limit: int = 10) -> DemoRunQuerySet:
        return self.filter(slug=slug).order_by("-queued_at", "-id")[:limit]

    def ahead_of(self, run: DemoRun) -> int:
        """Queued runs that a worker takes before this one (the queue is first in, first out)."""
        return self.filter(status=DemoRun.QUEUED, queued_at__lt=run.queued_at).count()

    def lost(self, now=None) -> DemoRunQuerySet:
        """Running runs whose worker stopped writing its heartbeat: it was killed or is gone."""
        now = now or timezone.now()
        cutoff = now - timedelta(seconds=settings.DEMO_WORKER_LOST_AFTER)
        return self.filter(status=DemoRun.RUNNING, heartbeat_at__lt=cutoff)

    def older_than(self, days: float) -> DemoRunQuerySet:
        return self.finished().filter(finished_at__lt=timezone.now() - timedelta(days=days))

    def typical_seconds(self) -> float:
        """Mean duration of the latest runs, to estimate waits (Retry-After)."""
        latest = self.filter(status=DemoRun.SUCCEEDED).order_by("-finished_at")[:20]
        mean = self.filter(id__in=latest.values("id")).aggregate(mean=Avg("elapsed_s"))["mean"]
        return mean or TYPICAL_RUN_SECONDS

    def check_room(self, client: str) -> None:
        """QueueFull when this client, or everyone together, has as many runs waiting or
        running as the settings allow."""
        active = self.active()
        mine = active.filter(client=client).count() if client else 0
        total = active.count()
        if mine < settings.DEMO_QUEUE_PER_CLIENT and total < settings.DEMO_QUEUE_TOTAL:
            return
        running = max(1, active.filter(status=DemoRun.RUNNING).count())
        # A place frees when one of the runs ahead finishes; the workers run `running` at once.
        waits = (total if mine < settings.DEMO_QUEUE_PER_CLIENT else mine) / running
        retry_after = min(MAX_RETRY_AFTER, max(1, round(waits * self.typical_seconds())))
        if mine >= settings.DEMO_QUEUE_PER_CLIENT:
            message = (
                f"you already have {mine} demo runs waiting or running "
                f"(at most {settings.DEMO_QUEUE_PER_CLIENT})"
            )
        else:
            message = f"the demo queue is full ({total} runs waiting or running)"
        raise QueueFull(f"{message}; retry in {retry_after} s", retry_after)

    def claim(self, run_id: int, attempt: int, worker_id: str) -> bool:
        """Mark a queued run as running for this attempt; False when another attempt has it or
        it has finished (a stale task then does nothing)."""
        now = timezone.now()
        return bool(
            self.filter(pk=run_id, status=DemoRun.QUEUED, attempts=attempt - 1).update(
                status=DemoRun.RUNNING,
                attempts=attempt,
                worker_id=worker_id[:64],
                started_at=now,
                heartbeat_at=now,
                progress=0.0,
                progress_message="started",
            )
        )

    def attempt_of(self, run_id: int, attempt: int) -> DemoRunQuerySet:
        """The run while this attempt still owns it: writes from a lost attempt change nothing."""
        return self.filter(pk=run_id, status=DemoRun.RUNNING, attempts=attempt)

    def beat(self, run_id: int, attempt: int, fraction: float, message: str) -> None:
        self.attempt_of(run_id, attempt).update(
            progress=min(max(fraction, 0.0), 1.0),
            progress_message=message[:200],
            heartbeat_at=timezone.now(),
        )

    def succeed(self, run_id: int, attempt: int, result: dict, elapsed_s: float) -> None:
        self.attempt_of(run_id, attempt).update(
            status=DemoRun.SUCCEEDED,
            result=result,
            elapsed_s=elapsed_s,
            progress=1.0,
            progress_message="done",
            finished_at=timezone.now(),
        )

    def fail(self, run_id: int, attempt: int, error: str, limit: str = "") -> None:
        self.attempt_of(run_id, attempt).update(
            status=DemoRun.FAILED, error=error[:500], limit=limit, finished_at=timezone.now()
        )

    def beyond_kept(self, kept: int) -> DemoRunQuerySet:
        """Finished runs past the newest `kept` ones (the stored runs stay bounded)."""
        newest = self.finished().order_by("-finished_at", "-id").values("id")[:kept]
        return self.finished().exclude(id__in=list(newest.values_list("id", flat=True)))


class DemoRun(models.Model):
    """One demo run: queued, then running (with progress), then succeeded or failed."""

    QUEUED, RUNNING, SUCCEEDED, FAILED = "queued", "running", "succeeded", "failed"
    STATUSES = [(s, s) for s in (QUEUED, RUNNING, SUCCEEDED, FAILED)]
    ACTIVE = (QUEUED, RUNNING)

    slug = models.SlugField(max_length=80)
    version = models.PositiveIntegerField()
    params_digest = models.CharField(max_length=64)
    params = models.JSONField()
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    progress = models.FloatField(default=0.0)  # 0 to 1
    progress_message = models.CharField(max_length=200, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    # The resource limit a failed run hit: "cpu", "memory", "wall", or "worker" (worker lost).
    limit = models.CharField(max_length=10, blank=True)
    elapsed_s = models.FloatField(null=True, blank=True)
    # Who queued it, as a keyed hash of the throttling identity (no address is stored).
    client = models.CharField(max_length=64, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    worker_id = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = DemoRunQuerySet.as_manager()

    class Meta:
        constraints = [
            # Two requests for the same parameters at once share one computation.
            models.UniqueConstraint(
                fields=["slug", "version", "params_digest"],
                condition=Q(status__in=["queued", "running", "succeeded"]),
                name="demo_run_one_live_per_params",
            ),
            models.CheckConstraint(
                condition=Q(progress__gte=0, progress__lte=1), name="demo_run_progress_0_1"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "queued_at"], name="demo_run_status_queued"),
            models.Index(fields=["slug", "queued_at"], name="demo_run_slug_queued"),
            models.Index(fields=["client", "status"], name="demo_run_client_status"),
            models.Index(fields=["finished_at"], name="demo_run_finished"),
        ]

    def __str__(self) -> str:
        return f"{self.slug} v{self.version} #{self.pk} ({self.status})"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("demos:demo-run", args=[self.slug, self.pk])

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def sorted_params(self) -> list[tuple[str, object]]:
        """By name (PostgreSQL's jsonb keeps no key order)."""
        return sorted(self.params.items())
