"""Running a demo for a page or the API: one path (validated once, sandboxed, cached) and one
answer, rendered as a page by views.py and as JSON by api.py."""

from __future__ import annotations

from django.http import Http404
from rest_framework import status

from explorer.demos import DEMOS
from explorer.demos.base import DemoError, ParamError
from explorer.demos.models import DemoResult
from explorer.demos.runner import DemoBusy, DemoLimitExceeded


def demo_or_404(slug: str):
    if slug not in DEMOS:
        raise Http404(f"No demo {slug!r} (known: {', '.join(DEMOS)}).")
    return DEMOS[slug]


def run_response(result: DemoResult, cached: bool) -> dict:
    return {
        "slug": result.slug,
        "version": result.version,
        "params": result.params,
        "cached": cached,
        "elapsed_s": result.elapsed_s,
        "result": result.result,
    }


def run_or_error(slug: str, raw_params: dict) -> tuple[dict, int, dict]:
    """(body, HTTP status, extra headers) for one run request; shared by the API and the page."""
    try:
        result, cached = DemoResult.objects.run(slug, raw_params)
    except ParamError as error:
        return {"error": str(error)}, status.HTTP_400_BAD_REQUEST, {}
    except DemoBusy as error:
        headers = {"Retry-After": str(error.retry_after)}
        return {"error": str(error)}, status.HTTP_429_TOO_MANY_REQUESTS, headers
    except DemoLimitExceeded as error:
        return {"error": str(error)}, status.HTTP_422_UNPROCESSABLE_ENTITY, {}
    except DemoError as error:
        return {"error": str(error)}, status.HTTP_500_INTERNAL_SERVER_ERROR, {}
    return run_response(result, cached), status.HTTP_200_OK, {}
