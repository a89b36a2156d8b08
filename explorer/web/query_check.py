"""Every GET under /api/ refuses an unknown or a repeated query parameter with a 400 naming it
(code "invalid", the error shape's `errors` keyed by parameter): a misspelt name is never
silently ignored, a repeated one never silently takes its last value.

What each operation reads is what the OpenAPI schema says it reads (explorer/web/schema.py
generates the parameters from the forms and FilterSets that validate them), plus `format`
(DRF's renderer choice); the parameters of `array` type may repeat; an exploded object's
properties are parameters, and an operation with open-ended names (a cost model's variables)
is left to its view, which refuses unknown names itself. The schema is generated once
per process, for the names alone (no catalogue read: the enums are left out). An operation the
schema does not list is not checked here.
"""

from __future__ import annotations

import functools
import re

from django.http import HttpRequest

from explorer.web.errors import error_response, is_api, summary
from explorer.web.forms import query_problems
from explorer.web.schema import GENERATION, NAMES_ONLY

ALWAYS = frozenset({"format"})


def normalised(route: str) -> str:
    """A URL route (Django's path syntax or a router's regex) as the schema writes its path."""
    route = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", route)
    route = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
    route = route.replace("{pk}", "{id}")  # drf-spectacular names a primary key `id`
    return "/" + route.replace("^", "").replace("$", "").lstrip("/")


def get_parameters() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """{schema path: (parameters its GET reads, those that may repeat)}, generated once per
    process by the first request that asks (the others wait for it)."""
    with GENERATION:
        return parameters_from_schema()


@functools.cache
def parameters_from_schema() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    from drf_spectacular.generators import SchemaGenerator

    token = NAMES_ONLY.set(True)
    try:
        schema = SchemaGenerator().get_schema(request=None, public=True)
    finally:
        NAMES_ONLY.reset(token)
    table = {}
    for path, methods in schema["paths"].items():
        if "get" not in methods:
            continue
        query = [p for p in methods["get"].get("parameters", []) if p["in"] == "query"]
        names, repeatable, open_ended = set(ALWAYS), set(), False
        for parameter in query:
            schema = parameter.get("schema", {})
            if schema.get("type") == "object":  # exploded: its properties are the names
                names.update(schema.get("properties", {}))
                open_ended |= bool(schema.get("additionalProperties"))
                continue
            names.add(parameter["name"])
            if schema.get("type") == "array":
                repeatable.add(parameter["name"])
        if not open_ended:  # names the schema cannot list (a model's variables): the view's
            table[path] = (frozenset(names), frozenset(repeatable))
    return table


class QueryParametersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if request.method not in ("GET", "HEAD") or not is_api(request) or not request.GET:
            return None
        match = request.resolver_match
        known = get_parameters().get(normalised(match.route)) if match else None
        if known is None:
            return None
        problems = query_problems(request.GET, *known)
        if not problems:
            return None
        return error_response(400, summary(problems), problems, "invalid")
