"""The values the results' filters offer, read from the data: a reader picks a technique, a
round or a benchmark from a list instead of guessing its spelling, and the OpenAPI schema lists
the same values as an enum (explorer/web/schema.py), so that a value the schema allows is one
the API accepts.

Each list is kept per catalogue version (one query when the catalogue changed, none otherwise).
"""

from __future__ import annotations

from django.db import DatabaseError

from catalogue.models import MlperfBenchmark, MlperfRound, Technique
from catalogue.version import per_version

Choices = list[tuple[str, str]]


def _or_none(read) -> Choices:
    """The choices, or none before the tables exist (a schema written before `migrate`)."""
    try:
        return per_version(f"results-choices{read.__name__}", read)
    except DatabaseError:
        return []


def _techniques() -> Choices:
    return list(Technique.objects.order_by("name").values_list("slug", "name"))


def _rounds() -> Choices:
    # Newest first: the rounds a reader asks about most.
    versions = MlperfRound.objects.order_by("-order", "-version").values_list("version", flat=True)
    return [(version, version) for version in versions]


def _benchmarks() -> Choices:
    rows = MlperfBenchmark.objects.order_by("order", "slug").values_list("slug", "name")
    return [(slug, f"{name} ({slug})" if name and name != slug else slug) for slug, name in rows]


def technique_choices() -> Choices:
    return [("", "any technique"), *_or_none(_techniques)]


def round_choices() -> Choices:
    return [("", "any round"), *_or_none(_rounds)]


def benchmark_choices() -> Choices:
    return [("", "any benchmark"), *_or_none(_benchmarks)]
