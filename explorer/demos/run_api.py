"""The demo runs over JSON: queue a run, read its status, progress and result.

`POST /api/demos/<slug>/runs/ {"params": {...}}` answers 202 {id, status, url, html_url} for a
run queued now or already waiting, or 200 with the whole run when the same demo, version and
canonical parameters already succeeded (nothing is computed twice). `GET /api/demos/runs/<id>/`
is the run. Every path that starts a run (these, the old synchronous `.../run/` and the page's
form) goes through `start_run`: the same parameter checks, throttle and queue caps.
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.demos import DEMOS
from explorer.demos.base import ParamError
from explorer.demos.tasks import recover_lost_runs
from explorer.models import DemoRun, QueueFull
from explorer.throttling import DemoRunThrottle, client_key


class RunRefused(Exception):
    """A run request that cannot be queued: `body`, `status` and `headers` of the answer."""

    def __init__(self, body: dict, status_code: int, headers: dict | None = None) -> None:
        super().__init__(body.get("error", ""))
        self.body, self.status_code, self.headers = body, status_code, headers or {}


def params_from_body(data) -> dict:
    params = data.get("params", {}) if isinstance(data, dict) else None
    if not isinstance(params, dict):
        raise RunRefused({"error": 'the body must be a JSON object {"params": {...}}'}, 400)
    return params


def start_run(request, slug: str, raw_params: dict) -> tuple[DemoRun, bool]:
    """Queue a run (or find the one that answers these parameters): (run, created).
    Raises Http404 for an unknown demo and RunRefused for a 400 or a 429. The caller has
    applied DemoRunThrottle already (DRF does for the API views; `throttle_or_refuse` for pages).
    """
    if slug not in DEMOS:
        raise Http404(f"No demo {slug!r} (known: {', '.join(DEMOS)}).")
    try:
        return DemoRun.objects.submit(slug, raw_params, client_key(request))
    except ParamError as error:
        raise RunRefused({"error": str(error)}, 400) from None
    except QueueFull as error:
        raise RunRefused(
            {"error": str(error)}, 429, {"Retry-After": str(error.retry_after)}
        ) from None


def throttle_or_refuse(request) -> None:
    """The API's run throttle, for the page form (a plain Django view)."""
    throttle = DemoRunThrottle()
    if not throttle.allow_request(request, None):
        wait = max(1, round(throttle.wait() or 1))
        raise RunRefused(
            {"error": f"too many demo runs from you; retry in {wait} s"},
            429,
            {"Retry-After": str(wait)},
        )


def run_urls(run: DemoRun) -> dict:
    return {
        "url": reverse("api-demo-run-detail", args=[run.pk]),
        "html_url": reverse("demo-run", args=[run.slug, run.pk]),
    }


def run_document(run: DemoRun) -> dict:
    """The run as the API shows it: `result` only once succeeded, `error` only once failed."""
    document = {
        "id": run.pk,
        "slug": run.slug,
        "version": run.version,
        "params": run.params,
        "status": run.status,
        "progress": run.progress,
        "progress_message": run.progress_message,
        "queue_position": queue_position(run),
        "attempts": run.attempts,
        "queued_at": run.queued_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "elapsed_s": run.elapsed_s,
        **run_urls(run),
    }
    if run.status == DemoRun.SUCCEEDED:
        document["result"] = run.result
    if run.status == DemoRun.FAILED:
        document["error"] = run.error
        document["limit"] = run.limit or None
    return document


def queue_position(run: DemoRun) -> int | None:
    """1 for the next run a worker takes; None once the run has left the queue."""
    if run.status != DemoRun.QUEUED:
        return None
    return DemoRun.objects.ahead_of(run) + 1


def fresh_run(pk: int) -> DemoRun:
    """The run, after any run whose worker was lost has been recovered: a reader never sees a
    dead run as "running" for longer than DEMO_WORKER_LOST_AFTER, even with no worker alive."""
    run = get_object_or_404(DemoRun, pk=pk)
    if run.status == DemoRun.RUNNING and DemoRun.objects.lost().filter(pk=pk).exists():
        recover_lost_runs()
        run.refresh_from_db()
    return run


RUN_REQUEST = inline_serializer("DemoRunRequest", {"params": serializers.DictField(required=False)})


class DemoRunCreateView(APIView):
    """Queue a demo run. Anyone may; runs are throttled per client (DEMO_RUN_RATE) and the queue
    is capped per client and in total (DEMO_QUEUE_PER_CLIENT, DEMO_QUEUE_TOTAL: then 429 with
    Retry-After)."""

    permission_classes = [AllowAny]
    throttle_classes = [DemoRunThrottle]

    @extend_schema(
        summary="Queue a demo run with {params}; the same parameters share one run",
        request=RUN_REQUEST,
        examples=[OpenApiExample("pipeline-bubble", value={"params": {"P": 4, "M": 8}})],
        operation_id="demos_runs_create",
        responses={code: OpenApiTypes.OBJECT for code in (200, 202, 400, 404, 429)},
    )
    def post(self, request, slug: str):
        try:
            run, created = start_run(request, slug, params_from_body(request.data))
        except RunRefused as refused:
            return Response(refused.body, status=refused.status_code, headers=refused.headers)
        if not created and run.status == DemoRun.SUCCEEDED:  # computed before: not again
            return Response(run_document(run), status=status.HTTP_200_OK)
        body = {"id": run.pk, "status": run.status, **run_urls(run)}
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})


class DemoRunDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="One demo run: status, progress, and its result or error once finished",
        operation_id="demos_runs_retrieve",
        responses={200: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request, pk: int):
        return Response(run_document(fresh_run(pk)))
