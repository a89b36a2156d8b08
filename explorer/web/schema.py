"""The OpenAPI schema's contract, in one place (drf-spectacular's AutoSchema, subclassed):

- reads are anonymous: safe methods carry no security requirement; writes list session and token
  auth (and `{}` only where anyone may write, e.g. running a demo);
- every operation lists its error answers, all in the one error shape (explorer/web/errors.py), as
  the shared `Error` component; 429 with its Retry-After header;
- query parameters are generated from the form that declares and validates them (a view's
  `query_form`, explorer/web/query.py), with their enums, bounds and lengths, so that a request
  the schema allows is a request the code accepts.
"""

from __future__ import annotations

import math
import threading

from django import forms
from django.db import DatabaseError
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import build_parameter_type
from drf_spectacular.utils import inline_serializer
from rest_framework import permissions, serializers

from explorer.web.forms import ChoiceParameter, NumberParameter

# drf-spectacular keeps state on classes while it generates a schema (an extension imports its
# target on first use and sets it to None when the import fails): two threads of one process
# generating at once (gunicorn's gthread workers, on their first API requests) saw each other's
# half-set state and answered 500 (bench/load_bench.py found it). One generation at a time.
GENERATION = threading.RLock()

# No query value of this API contains a NUL byte: the server refuses them (a 400).
NO_NUL = "^[^\\x00]*$"
# A choice whose list is empty (read from an empty catalogue): any string, every one refused.
_NOTHING_YET = {"type": "string", "pattern": NO_NUL}


class ErrorSerializer(serializers.Serializer):
    """Every error under /api/ (4xx and 5xx)."""

    status = serializers.IntegerField(help_text="The HTTP status, repeated.")
    code = serializers.CharField(
        help_text="A stable word: invalid, not_found, method_not_allowed, throttled, "
        "not_authenticated, permission_denied, request_too_large, unprocessable, server_error..."
    )
    detail = serializers.CharField(help_text="One human-readable sentence.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Messages per parameter or field at fault ({} when none is); messages about "
        "no single one under non_field_errors.",
    )

    class Meta:
        ref_name = "Error"


READ_ERRORS = {
    "400": "Invalid parameters (unknown, repeated, out of range, not one of the choices).",
    "401": "Credentials were sent and are wrong (an unknown token): send none to read.",
    "404": "No such resource, or a page beyond the last one.",
    "406": "An Accept header or ?format= this operation cannot answer.",
    "429": "Too many requests: wait for Retry-After seconds.",
    "500": "An unexpected server error (a bug: please report it).",
}
WRITE_ERRORS = READ_ERRORS | {
    "400": "Invalid body or parameters; `errors` has the messages per field.",
    "401": "Not authenticated (token auth): send a curator's token or session.",
    "403": "Not allowed: no session/token, no model permission, or a missing CSRF token.",
    "405": "This method is not allowed here.",
    "413": "The request body is larger than DATA_UPLOAD_MAX_MEMORY_SIZE.",
    "415": "A body that is not JSON (or form data).",
}
RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer", "minimum": 1},
        "description": "Seconds to wait before trying again.",
    }
}

# Every answer under /api/ names the data release it was served from (explorer/web/middleware.py).
DATA_VERSION = {
    "X-Data-Version": {
        "schema": {"type": "string"},
        "description": "The data release this answer was served from (/api/data/): the latest "
        "release's version, +edits when the live catalogue differs from it, +unchecked until "
        "the current catalogue has been compared with it, `unreleased` before any release.",
    }
}


class ContractSchema(AutoSchema):
    def get_auth(self):
        if self.method in permissions.SAFE_METHODS:
            return []  # reading is anonymous by design; sessions and tokens change nothing
        auths = [auth for auth in super().get_auth() if auth]
        if permissions.AllowAny in [p.__class__ for p in self.view.get_permissions()]:
            auths.append({})
        return auths

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        error = self.resolve_serializer(ErrorSerializer, direction).ref
        documented = READ_ERRORS if self.method in permissions.SAFE_METHODS else WRITE_ERRORS
        for status, description in documented.items():
            if status == "401" and not self.view.get_authenticators():
                continue
            response = {
                "description": description,
                "content": {"application/json": {"schema": error}},
            }
            if status == "429":
                response["headers"] = RETRY_AFTER
            responses[status] = response
        for status in [code for code in responses if code not in documented]:
            if status.startswith(("4", "5")):  # declared by a view (e.g. 422): same error shape
                responses[status]["content"] = {"application/json": {"schema": error}}
        for response in responses.values():
            response["headers"] = response.get("headers", {}) | DATA_VERSION
        return responses

    def _get_parameters(self):
        parameters = super()._get_parameters()
        # A view whose parameters all take their default when given empty (?batch=) says so.
        empty_is_default = getattr(self.view, "empty_value_is_default", False)
        for parameter in parameters:
            if empty_is_default and parameter["in"] == "query":
                if parameter.get("schema", {}).get("type") != "array":  # ?strategy= is refused
                    parameter["allowEmptyValue"] = True
            schema = parameter.get("schema", {})
            if parameter["in"] == "query" and schema.get("type") == "string":
                if "enum" not in schema and "pattern" not in schema:
                    schema["pattern"] = NO_NUL
        return parameters

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction == "request" and schema.get("type") == "string":
            if not {"enum", "pattern", "format"} & set(schema):
                schema["pattern"] = NO_NUL  # the parser refuses NUL bytes (explorer/web/parsers.py)
        return schema

    def _get_filter_parameters(self):
        if self.method != "GET" or not hasattr(self.view, "get_query_form_class"):
            return super()._get_filter_parameters()
        return form_parameters(self.view.get_query_form_class())


def form_parameters(form_class: type[forms.Form]) -> list[dict]:
    """The query parameters a form declares, each with the schema of what its field accepts."""
    return [query_parameter(name, field) for name, field in form_fields(form_class).items()]


def form_fields(form_class: type[forms.Form]) -> dict[str, forms.Field]:
    """A form's fields; a form whose fields are made per request (the planner's) has them on
    an instance."""
    return dict(form_class().fields)


def query_parameter(name: str, field: forms.Field) -> dict:
    schema, many = field_schema(field)
    description = str(field.help_text or field.label or "")
    if many:  # every value must be one of the choices, an empty one too
        return build_parameter_type(
            name, schema, "query", description=description, explode=True, style="form"
        )
    parameter = build_parameter_type(name, schema, "query", description=description)
    if field.required:  # the export's ?format=: neither left out nor empty
        parameter["required"] = True
        return parameter
    # The forms count an empty value (?era=, a blank form field) as not given.
    parameter["allowEmptyValue"] = True
    return parameter


def field_schema(field: forms.Field) -> tuple[dict, bool]:
    """(schema of one value, whether the parameter repeats)."""
    if isinstance(field, forms.MultipleChoiceField):
        return {"type": "array", "items": {"type": "string", "enum": choices(field)}}, True
    if isinstance(field.widget, forms.MultipleHiddenInput):  # repeatable free text (?seeds=)
        return {"type": "array", "items": {"type": "string", "pattern": NO_NUL}}, True
    if isinstance(field, forms.ModelChoiceField):
        # Read at schema time: the codes the catalogue has (a curator may add some).
        try:
            values = list(field.queryset.values_list(field.to_field_name or "pk", flat=True))
        except DatabaseError:  # no database yet (a schema written before `migrate`)
            return {"type": "string", "pattern": NO_NUL}, False
        return {"type": "string", "enum": sorted(map(str, values))}, False
    if isinstance(field, forms.ChoiceField):
        # Choices read from the data (a technique) are none in an empty catalogue: an empty
        # enum is not valid OpenAPI, and no value is read then (each is refused, a 400).
        offered = choices(field)
        return ({"type": "string", "enum": offered} if offered else dict(_NOTHING_YET)), False
    if isinstance(field, ChoiceParameter):
        return {"type": "string", "enum": list(field.choices)}, False
    if isinstance(field, NumberParameter):
        schema = {"type": "integer" if field.whole else "number"}
        bounds = {"minimum": field.low, "maximum": field.high}
        schema |= {name: bound for name, bound in bounds.items() if math.isfinite(bound)}
        return schema, False
    if isinstance(field, forms.NullBooleanField):
        return {"type": "boolean"}, False
    if isinstance(field, forms.IntegerField | forms.DecimalField | forms.FloatField):
        # Django's FloatField and DecimalField are IntegerFields; a year has no decimals.
        whole = getattr(field, "decimal_places", None) == 0
        fraction = isinstance(field, forms.FloatField | forms.DecimalField) and not whole
        kind = "number" if fraction else "integer"
        schema = {"type": kind}
        if field.min_value is not None:
            schema["minimum"] = field.min_value
        if field.max_value is not None:
            schema["maximum"] = field.max_value
        return schema, False
    pattern = field.regex.pattern if isinstance(field, forms.RegexField) else NO_NUL
    if isinstance(field, forms.SlugField) and not field.allow_unicode:
        pattern = "^[-a-zA-Z0-9_]+$"  # Django's validate_slug: a value the schema allows is read
    schema = {"type": "string", "pattern": pattern}
    if getattr(field, "max_length", None):
        schema["maxLength"] = field.max_length
    return schema, False


def choices(field: forms.ChoiceField) -> list[str]:
    return [str(value) for value, _ in field.choices if value not in ("", None)]


# --- response documents ---------------------------------------------------------------------
# A view that answers a document built in a pure module (a dict, not a serializer's output)
# declares its shape here, so that a client or a fuzzer can check the body: each top-level key
# with its JSON type. Nested parts are objects and arrays, not detailed further.
_KINDS = {
    "str": serializers.CharField,
    "int": serializers.IntegerField,
    "num": serializers.FloatField,
    "bool": serializers.BooleanField,
    "time": serializers.DateTimeField,
    "obj": serializers.DictField,
    "list": serializers.ListField,
    "any": serializers.JSONField,
}


def document(name: str, fields: dict[str, str]) -> serializers.Serializer:
    """The response schema `name` (an OpenAPI component) of a document whose keys are `fields`:
    each a kind of _KINDS, "?" after it when the value may be null, "~" before it when the key
    is not always there (e.g. {"count": "int", "prediction": "obj?", "result": "~obj"})."""
    declared: dict[str, serializers.Field] = {}
    for key, spec in fields.items():
        optional, kind = spec.startswith("~"), spec.strip("~?")
        options = {"required": not optional, "allow_null": spec.endswith("?")}
        if kind == "str":
            options["allow_blank"] = True  # an empty text is a text (no minLength)
        declared[key] = _KINDS[kind](**options)
    return inline_serializer(name, declared)
