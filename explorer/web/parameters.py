"""Query parameters read like everywhere else: on every read of the API, a parameter the
operation does not declare, or one given twice that takes one value, is a 400 naming it.

What an operation declares is what its OpenAPI operation lists (explorer/web/schema.py builds
them from the forms that validate them), so the schema and the refusal cannot disagree. An
exploded object parameter declares its properties; one with `additionalProperties` (a cost
model's variables, ?N=1&C_in=3) leaves the other names to its view, which checks them against
the model. A repeated value is refused unless the parameter is an array.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from django.http import HttpRequest, HttpResponse

from explorer.web.errors import error_response, is_api

# Accepted by every operation: DRF's format override (a value it cannot answer is a 404/406).
EVERYWHERE = frozenset({"format"})


@dataclass(frozen=True)
class Declared:
    """The query parameters one operation declares."""

    names: frozenset[str]
    arrays: frozenset[str]  # may be repeated (?seeds=a&seeds=b)
    open: bool  # further names are the view's to check (a cost model's variables)


def declared_from_schema(schema: dict) -> list[tuple[re.Pattern, Declared]]:
    """(path pattern, parameters) of every GET operation, the most literal paths first (so
    that /api/demos/runs/{id}/ is preferred to a pattern with more placeholders)."""
    found = []
    for path, operations in schema.get("paths", {}).items():
        operation = operations.get("get")
        if operation is None:
            continue
        query = [p for p in operation.get("parameters", []) if p.get("in") == "query"]
        names, arrays, open_names = set(EVERYWHERE), set(), False
        for parameter in query:
            schema = parameter.get("schema", {})
            if schema.get("type") == "object":  # exploded: its properties are the names
                names |= set(schema.get("properties", {}))
                open_names |= bool(schema.get("additionalProperties"))
                continue
            names.add(parameter["name"])
            if schema.get("type") == "array":
                arrays.add(parameter["name"])
        declared = Declared(frozenset(names), frozenset(arrays), open_names)
        literal = len(re.sub(r"\{[^}]+\}", "", path))
        pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
        found.append((literal, pattern, declared))
    found.sort(key=lambda row: -row[0])
    return [(pattern, declared) for _, pattern, declared in found]


@cache
def declared_parameters() -> list[tuple[re.Pattern, Declared]]:
    """Built once per process from the schema (about a quarter of a second): only the names
    matter here, and they do not change with the catalogue."""
    from drf_spectacular.generators import SchemaGenerator

    return declared_from_schema(SchemaGenerator().get_schema(request=None, public=True))


def declared_for(path: str) -> Declared | None:
    for pattern, declared in declared_parameters():
        if pattern.match(path):
            return declared
    return None


def parameter_errors(query, declared: Declared) -> dict[str, list[str]]:
    """Parameter -> messages for the unknown and the repeated ones (empty when none is)."""
    errors: dict[str, list[str]] = {}
    allowed = ", ".join(sorted(declared.names - EVERYWHERE)) or "none"
    for name in query:
        if name not in declared.names and not declared.open:
            errors[name] = [f"unknown parameter {name!r} (allowed: {allowed})"]
        elif len(query.getlist(name)) > 1 and name not in declared.arrays:
            errors[name] = [f"{name} is given {len(query.getlist(name))} times; give it once"]
    return errors


class QueryParameterMiddleware:
    """Refuses an API read with an unknown or repeated parameter, before any cache or view."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in ("GET", "HEAD") and request.GET and is_api(request):
            declared = declared_for(request.path_info)
            errors = parameter_errors(request.GET, declared) if declared else {}
            if errors:
                detail = "; ".join(messages[0] for messages in errors.values())
                return error_response(400, detail, errors, code="invalid")
        return self.get_response(request)
