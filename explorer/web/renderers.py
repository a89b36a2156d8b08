"""The API's JSON renderer: DRF's output, encoded by orjson.

DRF's JSONRenderer goes through the standard library's encoder, a large share of a list's time
(bench/pages_bench.py). orjson writes the same compact UTF-8 JSON several times faster; what it
does not know (dates, decimals, lazy strings, numpy scalars) goes to DRF's own encoder, so every
value is written as before. An `indent` asked in the Accept header keeps DRF's renderer.
"""

from __future__ import annotations

import csv
import io

import orjson
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY
_fallback = JSONEncoder()


def dumps(data: object) -> bytes:
    """Compact JSON of `data`, as DRF's JSONRenderer writes it."""
    try:
        text = orjson.dumps(data, default=_fallback.default, option=OPTIONS)
    except TypeError as error:
        # PostgreSQL's jsonb gives a figure such as 3.14e23 FLOP back as a whole number, which
        # orjson cannot write beyond 64 bits: such numbers are written as floats, as stored.
        if "64-bit" not in str(error):
            raise
        text = orjson.dumps(huge_ints_as_floats(data), default=_fallback.default, option=OPTIONS)
    # As DRF does: these two are valid JSON but end a line in JavaScript.
    return text.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")


INT64 = 2**63


def huge_ints_as_floats(data: object) -> object:
    if isinstance(data, dict):
        return {key: huge_ints_as_floats(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [huge_ints_as_floats(value) for value in data]
    if isinstance(data, int) and not isinstance(data, bool) and not -INT64 <= data < INT64:
        return float(data)
    return data


class FastJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)
        return dumps(data)


def csv_response(rows: list[dict], columns: list[str], filename: str) -> HttpResponse:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
