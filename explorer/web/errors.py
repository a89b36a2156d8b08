"""One JSON error shape for every error under /api/ (4xx and 5xx), whoever produced it:

    {"status": 400, "code": "invalid", "detail": "page_size: must be ...",
     "errors": {"page_size": ["must be ..."]}}

`status` repeats the HTTP status; `code` is a stable machine word (DRF's codes: invalid,
not_found, method_not_allowed, throttled, not_authenticated, permission_denied, ...); `detail` is
one human sentence; `errors` maps each parameter or field at fault to its messages (empty when
the error is not about one). Messages that concern no single parameter are under
`non_field_errors`.

A view refuses a request by raising `ApiError` (status, code, errors keyed by parameter): the
planner, the demos, the cost models and the query forms alike. It is rendered in this shape by
`api_exception_handler` (DRF's views) or ApiErrorMiddleware (plain Django views under /api/);
the pages catch it and show `errors` next to their fields. The middleware also writes Django's
own 404, 405, 413 and 500 answers under /api/ (HTML otherwise) in the shape; `error_response`
is for the few answers written outside a view (throttled cache hits, NUL bytes).
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus

from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
)
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler

logger = logging.getLogger(__name__)
DJANGO_ANSWERED = (Http404, PermissionDenied, SuspiciousOperation, BadRequest)

API_PREFIX = "/api/"
NON_FIELD = api_settings.NON_FIELD_ERRORS_KEY

# The code of an error that has no DRF exception behind it (Django's own answers).
STATUS_CODES = {
    400: "bad_request",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "request_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "throttled",
    500: "server_error",
    503: "unavailable",
}


def error_body(status: int, detail: str, errors: dict | None = None, code: str = "") -> dict:
    return {
        "status": status,
        "code": code or STATUS_CODES.get(status, "error"),
        "detail": detail,
        "errors": errors or {},
    }


class ApiError(Exception):
    """A request refused: its HTTP `status`, a `code` (invalid, unavailable, throttled, ...) and
    `errors`, the messages keyed by the parameter or field at fault. A message alone (a str) is
    about no single parameter: under NON_FIELD for a 400, else the detail of an error with no
    `errors` (a 429, a 503). `headers` go with the answer (Retry-After)."""

    def __init__(
        self,
        errors: dict[str, list[str]] | str,
        status: int = 400,
        code: str = "",
        headers: dict[str, str] | None = None,
    ) -> None:
        if isinstance(errors, str):
            self.detail, errors = errors, ({NON_FIELD: [errors]} if status == 400 else {})
        else:
            self.detail = summary(errors)
        self.errors, self.status, self.headers = errors, status, headers or {}
        self.code = code or ("invalid" if status == 400 else STATUS_CODES.get(status, "error"))
        super().__init__(self.detail)

    def messages(self) -> list[str]:
        """Every message, each naming its parameter (for a page's list of errors)."""
        return named_messages(self.errors) or [self.detail]

    def response(self) -> JsonResponse:
        return error_response(self.status, self.detail, self.errors, self.code, self.headers)


def error_response(
    status: int, detail: str, errors: dict | None = None, code: str = "", headers: dict = None
) -> JsonResponse:
    response = JsonResponse(error_body(status, detail, errors, code), status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def field_messages(detail) -> dict[str, list[str]]:
    """A ValidationError's detail as {name: [message]}: lists and strings go to non_field_errors,
    nested values are flattened into their messages."""
    if isinstance(detail, dict):
        return {str(name): flat_messages(value) for name, value in detail.items()}
    return {NON_FIELD: flat_messages(detail)}


def flat_messages(value) -> list[str]:
    if isinstance(value, dict):
        return [f"{name}: {m}" for name, item in value.items() for m in flat_messages(item)]
    if isinstance(value, list | tuple):
        return [m for item in value for m in flat_messages(item)]
    return [str(value)]


def named_messages(errors: dict[str, list[str]]) -> list[str]:
    """Each message naming its parameter (general messages are said as they are)."""
    return [
        message if name == NON_FIELD else f"{name}: {message}"
        for name, messages in errors.items()
        for message in messages
    ]


def summary(errors: dict[str, list[str]]) -> str:
    """One sentence naming each parameter at fault."""
    return "; ".join(named_messages(errors)) or "Invalid input."


def api_exception_handler(exc, context):
    """DRF's handler (which also turns Http404 and PermissionDenied into API errors), reshaped."""
    if isinstance(exc, ApiError):
        return exc.response()
    response = exception_handler(exc, context)
    if response is None:
        return None  # unexpected: a 500, shaped by ApiErrorMiddleware
    if isinstance(exc, exceptions.ValidationError):
        errors = field_messages(exc.detail)
        response.data = error_body(response.status_code, summary(errors), errors, "invalid")
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        text = summary(field_messages(detail)) if isinstance(detail, list | dict) else str(detail)
        code = getattr(detail, "code", None) or exc.default_code
        response.data = error_body(response.status_code, text, {}, code)
    else:  # Django's Http404 or PermissionDenied, already turned into a response by DRF
        response.data = error_body(response.status_code, str(response.data.get("detail", "")))
    return response


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def is_error_shape(response: HttpResponse) -> bool:
    if not response.get("Content-Type", "").startswith("application/json"):
        return False
    if getattr(response, "streaming", False):
        return False
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and set(body) == {"status", "code", "detail", "errors"}


class ApiErrorMiddleware:
    """Under /api/, every error answer is the JSON error shape: an ApiError a plain view raised,
    Django's own 404 (unknown paths), 405, 413 (a body over DATA_UPLOAD_MAX_MEMORY_SIZE) and the
    500 of an unexpected exception; answers already in the shape pass through, and nothing else
    is read for its words. Outermost but for security headers,
    so that errors raised by other middlewares are caught too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not is_api(request) or response.status_code < 400 or is_error_shape(response):
            return response
        status = response.status_code
        reshaped = error_response(status, default_detail(request, status))
        for name in ("Retry-After", "Allow", "WWW-Authenticate"):
            if name in response:
                reshaped[name] = response[name]
        return reshaped

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_api(request) and isinstance(exception, ApiError):
            return exception.response()
        if is_api(request) and isinstance(exception, RequestDataTooBig):
            return error_response(413, default_detail(request, 413))  # Django would say 400
        if not is_api(request) or isinstance(exception, DJANGO_ANSWERED):
            return None  # Django answers these (400, 403, 404, 413); __call__ reshapes them
        logger.exception("Unexpected error on %s %s", request.method, request.path)
        return error_response(500, "The server failed to answer this request.")


def default_detail(request: HttpRequest, status: int) -> str:
    if status == 404:
        return f"No API endpoint or resource at {request.path}."
    if status == 405:
        return f'Method "{request.method}" not allowed.'
    if status == 413:
        return "The request body is too large."
    try:
        return HTTPStatus(status).phrase + "."
    except ValueError:
        return "Error."
