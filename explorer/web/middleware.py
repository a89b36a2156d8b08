"""A cache of whole responses for anonymous readers, keyed by the catalogue's version.

A view says that its answers may be kept with `@cached_for_anonymous` (a function view or a view
class); the middleware looks up the view the path resolves to, so a new page is cached only
when its author says so.

Measured under load (bench/load_bench.py), a page costs 100-400 ms of CPU to build and the machine
has two cores: without this, 20 readers saturate it. Every catalogue write changes the version
(signals, plus explicit bumps after bulk writes), so a cached page is never stale. Curators,
non-GET requests, the admin and the demos (whose runs have their own cache) are never cached.
With several workers, set CACHE_URL so that they share the cache and the version.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.urls import Resolver404, resolve

from catalogue.release.shelf import data_version
from catalogue.version import REQUEST_SCOPE, catalogue_version
from explorer.web.errors import NON_FIELD, ApiError, error_response, named_messages
from explorer.web.throttling import AnonThrottle
from explorer.web.words import echoed

KEPT_HEADERS = ("Content-Type", "Content-Disposition", "Retry-After")
CACHE_SECONDS = 60 * 60
MAX_CACHED_BYTES = 2 * 1024 * 1024
DATA_VERSION_HEADER = "X-Data-Version"


CACHE_MARK = "cached_for_anonymous"


def cached_for_anonymous[View](view: View) -> View:
    """Marks a view (function or class) whose GET answers the response cache may keep.

    Only for views whose answer depends on nothing but the catalogue (the cache key's version),
    the URL, the Accept and X-Fragment headers, the host and the scheme.
    """
    setattr(view, CACHE_MARK, True)
    return view


def view_is_cached(request: HttpRequest) -> bool:
    try:
        func = resolve(request.path_info).func
    except Resolver404:
        return False
    # A class's as_view() keeps the class on the function: Django's view_class, DRF's cls.
    view = getattr(func, "view_class", None) or getattr(func, "cls", None) or func
    return getattr(view, CACHE_MARK, False)


def is_cacheable(request: HttpRequest) -> bool:
    if request.method != "GET" or not settings.RESPONSE_CACHE:
        return False
    if not view_is_cached(request):
        return False
    return not request.user.is_authenticated


def cache_key(request: HttpRequest) -> str:
    varying = "\n".join(
        [
            catalogue_version(),
            # A page's footer and an answer's header name it; no query (two cache reads).
            data_version(),
            request.get_full_path(),
            request.headers.get("Accept", ""),
            request.headers.get("X-Fragment", ""),
            request.get_host(),
            request.scheme,
        ]
    )
    return "response:" + hashlib.sha256(varying.encode("utf-8")).hexdigest()


def throttled(request: HttpRequest) -> HttpResponse | None:
    """A cached API answer still counts against the anonymous rate (DRF's view would)."""
    if not request.path.startswith("/api/"):
        return None
    throttle = AnonThrottle()
    if throttle.allow_request(request, None):
        return None
    wait = int(throttle.wait()) + 1
    return error_response(
        429,
        f"Request was throttled. Expected available in {wait} seconds.",
        code="throttled",
        headers={"Retry-After": str(wait)},
    )


class VersionOncePerRequestMiddleware:
    """A GET or HEAD reads the catalogue's version once, whoever asks (catalogue.version's
    REQUEST_SCOPE): nothing it does changes the catalogue. Other methods read it afresh."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        token = REQUEST_SCOPE.set({})
        try:
            return self.get_response(request)
        finally:
            REQUEST_SCOPE.reset(token)


class DataVersionHeaderMiddleware:
    """Every API answer names the data version it was served from (X-Data-Version: the latest
    release, "+edits" when the live catalogue differs from it; catalogue/release/shelf.py).
    Two cache reads and a stat of the releases folder, no query."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith("/api/"):
            response[DATA_VERSION_HEADER] = data_version()
        return response


class AnonymousResponseCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_cacheable(request):
            return self.get_response(request)
        key = cache_key(request)
        responses = caches["responses"]
        if (stored := responses.get(key)) is not None:
            return throttled(request) or self.rebuild(stored)
        response = self.get_response(request)
        if self.worth_storing(response):
            headers = {name: response[name] for name in KEPT_HEADERS if name in response}
            responses.set(key, (response.status_code, headers, response.content), CACHE_SECONDS)
        return response

    @staticmethod
    def worth_storing(response: HttpResponse) -> bool:
        return (
            response.status_code == 200
            and not response.streaming
            and not response.cookies
            and len(response.content) <= MAX_CACHED_BYTES
        )

    @staticmethod
    def rebuild(stored: tuple[int, dict[str, str], bytes]) -> HttpResponse:
        status, headers, content = stored
        response = HttpResponse(content, status=status)
        for name, value in headers.items():
            response[name] = value
        response["X-Cache"] = "hit"
        return response


class RejectNulBytesMiddleware:
    """A NUL byte in the path or the query string gets a 400 before any view sees it.

    PostgreSQL refuses NUL in text parameters with a DataError (a 500); SQLite would quietly
    match nothing. No key, code or search term of the catalogue contains one.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        errors = nul_errors(request)
        if not errors:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return ApiError(errors).response()
        message = "; ".join(named_messages(errors))
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


def nul_errors(request: HttpRequest) -> dict[str, list[str]]:
    """Each parameter whose name or value holds a NUL byte, or the path (non_field_errors)."""
    errors = {
        echoed(name)[1:-1]: ["contains a NUL byte (%00)"]
        for name, values in request.GET.lists()
        if "\x00" in name or any("\x00" in value for value in values)
    }
    if "\x00" in request.path:
        errors[NON_FIELD] = ["the request's path contains a NUL byte (%00)"]
    return errors
