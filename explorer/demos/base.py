"""The demo interface: parameter declarations, validation, the schema and the in-process run.

A demo is a pure, seeded function of a few bounded parameters. The server never calls it with
raw input: `validate_params` turns a query string or a JSON body into the canonical parameter
dict (all parameters present, typed, sorted by name), which is also the cache key.
"""

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from explorer.web.readers import Refused, read_bool, read_choice, read_number
from explorer.web.words import unknown_message

ParamType = Literal["int", "float", "choice", "bool"]
Level = Literal["operators", "networks", "training", "distributed"]
RunFunction = Callable[[dict[str, Any], np.random.Generator], dict[str, Any]]
ProgressHook = Callable[[float, str], None]

LEVELS = ("operators", "networks", "training", "distributed")
REFERENCE_COUNT = 269  # entries in the survey's v2 bibliography
RESULT_KEYS = ("metrics", "tables", "figures", "agreement")


class DemoError(ValueError):
    """A demo could not produce a result; the message is safe to show to a user."""


class ParamError(DemoError):
    """A parameter is unknown, of the wrong type or out of bounds; `parameter` names it."""

    def __init__(self, message: str, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True)
class Param:
    """A demo's parameter: what the schema and the forms show (type, bounds, choices, help,
    unit). Its value, from a query's text or a run's JSON body, is read and refused as the query
    parameters of explorer/web/forms.py read theirs (explorer/web/readers.py: one reader per
    kind, one wording)."""

    name: str
    type: ParamType
    default: int | float | str | bool
    min: int | float | None = None
    max: int | float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""
    unit: str = ""

    def __post_init__(self) -> None:
        # A bad declaration is a programming error: fail at import time, not on a user's request.
        if self.type in ("int", "float") and (self.min is None or self.max is None):
            raise TypeError(f"numeric parameter {self.name!r} needs min and max")
        if self.type == "choice" and not self.choices:
            raise TypeError(f"choice parameter {self.name!r} needs choices")
        try:
            canonical = self.parse(self.default) == self.default
        except ParamError:
            canonical = False
        if not canonical:
            raise TypeError(f"default of {self.name!r} is not a canonical valid value")

    def parse(self, raw: object) -> int | float | str | bool:
        """The canonical value of `raw`, or ParamError naming this parameter and its bounds."""
        try:
            if self.type in ("int", "float"):
                return read_number(self.name, raw, self.min, self.max, whole=self.type == "int")
            if self.type == "choice":
                allowed = ", ".join(repr(choice) for choice in self.choices)
                return read_choice(raw, self.choices, f"{self.name} must be one of {allowed}")
            return read_bool(self.name, raw)
        except Refused as refused:
            raise ParamError(str(refused), self.name) from None


SEED = Param(
    "seed", "int", 0, 0, 2**31 - 1, help="random seed; the same seed gives the same result"
)


@dataclass(frozen=True)
class Demo:
    slug: str
    title: str
    version: int  # bump whenever results for the same parameters change (it keys the cache)
    level: Level
    techniques: tuple[str, ...]
    works: tuple[int, ...]  # v2 reference numbers of the survey's bibliography
    summary: str
    look_for: str
    params: tuple[Param, ...]
    run: RunFunction

    def __post_init__(self) -> None:
        names = [param.name for param in self.params]
        if "seed" not in names:
            raise TypeError(f"demo {self.slug!r} must declare the seed parameter")
        if len(set(names)) != len(names):
            raise TypeError(f"demo {self.slug!r} declares a parameter twice")
        if self.level not in LEVELS:
            raise TypeError(f"demo {self.slug!r} has unknown level {self.level!r}")
        if not all(1 <= work <= REFERENCE_COUNT for work in self.works):
            raise TypeError(f"demo {self.slug!r} cites a work outside 1..{REFERENCE_COUNT}")

    def param(self, name: str) -> Param:
        return next(param for param in self.params if param.name == name)


def validate_params(demo: Demo, raw: Mapping[str, object]) -> dict[str, Any]:
    """Canonical parameters: defaults filled in, values typed and bounded, keys sorted.

    Accepts JSON values and query-string texts ("12", "0.5", "true"); raises ParamError with a
    message that names the parameter and its bounds.
    """
    known = {param.name: param for param in demo.params}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ParamError(unknown_message(unknown[0], known), unknown[0])
    values = {
        name: param.parse(raw[name]) if name in raw else param.default
        for name, param in known.items()
    }
    return dict(sorted(values.items()))


def schema(demo: Demo) -> dict[str, Any]:
    """A JSON-able description of a demo and its parameters, for the API and the forms."""
    return {
        "slug": demo.slug,
        "title": demo.title,
        "version": demo.version,
        "level": demo.level,
        "techniques": list(demo.techniques),
        "works": list(demo.works),
        "summary": demo.summary,
        "look_for": demo.look_for,
        "params": [
            {
                "name": param.name,
                "type": param.type,
                "default": param.default,
                "min": param.min,
                "max": param.max,
                "choices": list(param.choices) or None,
                "help": param.help,
                "unit": param.unit or None,
            }
            for param in demo.params
        ],
    }


_progress_hook: ProgressHook | None = None


def set_progress_hook(hook: ProgressHook | None) -> None:
    """Where `report_progress` sends its reports: the sandbox worker sets it to its reply pipe."""
    global _progress_hook
    _progress_hook = hook


def report_progress(fraction: float, message: str) -> None:
    """A demo's progress (0 to 1, and a short message such as "sweep point 3 of 8"). A no-op
    outside a worker, so a demo stays a pure function that tests call directly."""
    if _progress_hook is not None:
        _progress_hook(min(max(float(fraction), 0.0), 1.0), message[:200])


def tracked[T](items: Iterable[T], label: str) -> Iterator[T]:
    """The items, reporting "<label> i of n" before each: a loop over sweep points or rounds
    that shows its progress."""
    items = list(items)
    for index, item in enumerate(items):
        report_progress(index / len(items), f"{label} {index + 1} of {len(items)}")
        yield item


def run_in_process(demo: Demo, raw: Mapping[str, object]) -> dict[str, Any]:
    """Validate, run with a generator seeded from `seed`, and return a JSON-safe result.

    No limits apply here: the server goes through `explorer.demos.runner.run_demo`, which calls
    this inside a resource-limited child process.
    """
    params = validate_params(demo, raw)
    result = demo.run(dict(params), np.random.default_rng(params["seed"]))
    return check_result(to_jsonable(result))


def check_result(result: Any) -> dict[str, Any]:
    if not isinstance(result, dict) or set(result) != set(RESULT_KEYS):
        raise DemoError(f"a demo result must have exactly the keys {', '.join(RESULT_KEYS)}")
    return result


def to_jsonable(value: Any) -> Any:
    """Plain Python containers and numbers; non-finite floats become None (JSON has no NaN)."""
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [to_jsonable(item) for item in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        number = float(value)
        return number if math.isfinite(number) else None
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"cannot turn {type(value).__name__} into JSON")
