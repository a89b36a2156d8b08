"""How a parameter's value is read, and refused: one reader per kind (a number, one of some
choices, true or false), each refusal naming the parameter and what it allows, e.g. "N must be
between 1 and 1024 (got 0)". No Django: the query parameters of explorer/web/forms.py read their
values here, and so do the demos' parameters in their sandboxed worker (a run's JSON body)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from explorer.web.words import echoed


class Refused(ValueError):
    """A value a parameter does not take; the message names the parameter."""


def plain_number(value: object) -> str:
    """A number as people write it: 3, not 3.0; the raw text when it is text."""
    if isinstance(value, str):
        return value
    value = float(value)
    return f"{value:g}" if not value.is_integer() or abs(value) >= 1e16 else str(int(value))


def shown(raw: object) -> str:
    """A value given, for a message: a JSON number as written, anything else quoted and cut."""
    number = isinstance(raw, int | float) and not isinstance(raw, bool)
    return plain_number(raw) if number else echoed(raw)


def bound(value: float) -> str:
    """A bound as declared: an int in full (2147483647), a float short (1e+07, 0.5)."""
    return str(value) if isinstance(value, int) else f"{value:g}"


def bounds_message(name: str, low: float, high: float, got: object) -> str:
    return f"{name} must be between {bound(low)} and {bound(high)} (got {plain_number(got)})"


def read_number(name: str, raw: object, low: float, high: float, whole: bool) -> float | int:
    """A finite number in [low, high] (a whole one when `whole`, as an int), from a query's text
    (ASCII digits only: Python reads ٣ and ３ too) or a JSON number, never a JSON true or false."""
    value = _finite(raw)
    if value is None or (whole and not value.is_integer()):
        kind = "a whole number" if whole else "a number"
        between = f"between {bound(low)} and {bound(high)}"
        raise Refused(f"{name} must be {kind} {between} (got {shown(raw)})")
    if not low <= value <= high:
        raise Refused(bounds_message(name, low, high, raw))
    return int(value) if whole else value


def _finite(raw: object) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        return None
    if isinstance(raw, str) and not raw.isascii():
        return None
    try:
        value = float(raw)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def read_choice(raw: object, choices: Iterable[str], message: str) -> str:
    """One of `choices`; `message` says what is allowed (the value given is added)."""
    if not isinstance(raw, str) or raw not in choices:
        raise Refused(f"{message} (got {shown(raw)})")
    return raw


BOOLEAN_WORDS: Mapping[str, bool] = {
    **dict.fromkeys(("true", "1", "yes", "on"), True),
    **dict.fromkeys(("false", "0", "no", "off"), False),
}


def read_bool(name: str, raw: object) -> bool:
    """True or false: a JSON boolean, or one of the words a form or a person sends."""
    if isinstance(raw, bool):
        return raw
    value = BOOLEAN_WORDS.get(raw.strip().lower()) if isinstance(raw, str) else None
    if value is None:
        raise Refused(f"{name} must be true or false (got {shown(raw)})")
    return value
