"""Demo runs for the pages and the API: one path that starts a run, one document of a run.

Every request that may start a run (the page's Run, `POST /api/demos/<slug>/runs/` and the old
synchronous `.../run/`) goes through `start_run`: the same parameter checks (400 before anything
is queued), the same throttle and queue caps (429 with Retry-After). views.py renders a run as a
page, api.py as JSON (`run_document`).
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse

from explorer.demos import DEMOS
from explorer.demos.base import Demo, ParamError
from explorer.demos.models import DemoRun, QueueFull
from explorer.demos.tasks import recover_lost_runs, submit_run
from explorer.web.errors import ApiError
from explorer.web.throttling import DemoRunThrottle, client_key


def demo_or_404(slug: str) -> Demo:
    if slug not in DEMOS:
        raise Http404(f"No demo {slug!r} (known: {', '.join(DEMOS)}).")
    return DEMOS[slug]


RUN_BODY_KEYS = {"params"}


def params_from_body(data: object, demo) -> dict:
    """The parameters of a run request's body, or ApiError (400) saying why the body is refused.

    Keys other than "params" are refused by name, not dropped: parameters sent without the
    wrapper would otherwise run the demo with its defaults and look like an answer."""
    shape = 'the body must be a JSON object {"params": {...}}'
    if not isinstance(data, dict):
        raise ApiError(shape)
    unknown = sorted(set(data) - RUN_BODY_KEYS)
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        own = {param.name for param in demo.params}
        hint = "; parameters go inside" if set(unknown) <= own else "; the only key is"
        plural = "s" if len(unknown) > 1 else ""
        message = f'unknown key{plural} {names} in the body{hint} "params": {{...}}'
        raise ApiError(message)  # about the body's shape, not one of the demo's parameters
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise ApiError({"params": [shape]})
    return params


def start_run(request, slug: str, raw_params: dict) -> tuple[DemoRun, bool]:
    """Queue a run (or find the one that answers these parameters): (run, created).
    Raises Http404 for an unknown demo and ApiError for a 400 or a 429. The caller has
    applied DemoRunThrottle already (DRF does for the API views; `throttle_or_refuse` for pages).
    """
    demo_or_404(slug)
    try:
        return submit_run(slug, raw_params, client_key(request))
    except ParamError as error:
        raise ApiError({error.parameter: [str(error)]}) from None
    except QueueFull as error:
        raise ApiError(str(error), 429, headers={"Retry-After": str(error.retry_after)}) from None


def throttle_or_refuse(request) -> None:
    """The API's run throttle, for the page form (a plain Django view)."""
    throttle = DemoRunThrottle()
    if not throttle.allow_request(request, None):
        wait = max(1, round(throttle.wait() or 1))
        message = f"too many demo runs from you; retry in {wait} s"
        raise ApiError(message, 429, headers={"Retry-After": str(wait)})


def run_urls(run: DemoRun) -> dict:
    return {
        "url": reverse("demos:api-demo-run-detail", args=[run.pk]),
        "html_url": reverse("demos:demo-run", args=[run.slug, run.pk]),
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


def run_response(run: DemoRun, cached: bool) -> dict:
    return {
        "slug": run.slug,
        "version": run.version,
        "params": run.params,
        "cached": cached,
        "elapsed_s": run.elapsed_s,
        "result": run.result,
    }


def finished_or_waiting(run: DemoRun, cached: bool) -> tuple[dict, int, dict]:
    """(body, HTTP status, headers) of the synchronous run endpoint once its wait is over;
    ApiError for a failed run (422 past a limit, else 500)."""
    if run.status == DemoRun.SUCCEEDED:
        return run_response(run, cached), 200, {}
    if run.status == DemoRun.FAILED:
        raise ApiError(run.error, 422 if run.limit in ("cpu", "memory", "wall") else 500)
    # Still queued or running after the wall-clock limit: the run goes on; poll its URL.
    body = {"id": run.pk, "status": run.status, **run_urls(run)}
    return body, 202, {"Location": body["url"], "Retry-After": "2"}
