"""The API's one body parser: JSON, with no NUL byte in any string (PostgreSQL refuses them in
text columns with a DataError, a 500; no field of the catalogue holds one)."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(key) or has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(has_nul(item) for item in value)
    return False


class NulFreeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if has_nul(data):
            raise ParseError("a string in the body contains a NUL byte (\\u0000)")
        return data
