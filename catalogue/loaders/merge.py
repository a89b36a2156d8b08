"""Bringing a record to what a fixture says, the fields a curator changed kept (and reported)."""

from __future__ import annotations

import csv
from pathlib import Path

from django.db import models

from catalogue.constants import SURVEY_KEY
from catalogue.models import (
    Assignment,
    Category,
    Citation,
    Result,
    Technique,
    Work,
)

DELETED = "a curator deleted it (--reset brings it back)"


def describe(record: models.Model) -> str:
    """How the report names a record: the natural key a curator knows it by."""
    if isinstance(record, Work):
        return record.key
    if isinstance(record, Category):
        return f"category {record.code}"
    if isinstance(record, Assignment):
        return f"the assignment of {record.work.key} to {record.category.code}"
    if isinstance(record, Citation):
        return f"the edge {record.citing.key} -> {record.cited.key} ({record.provenance})"
    if isinstance(record, Technique):
        return f"technique {record.slug}"
    if isinstance(record, Result):
        return f"result {record.slug}"
    return f"cost model {record.label!r} of {record.technique.slug}"


def shown_value(value: object) -> str:
    text = repr(value.pk if isinstance(value, models.Model) else value)
    return text if len(text) <= 120 else text[:117] + "..."


def merge_fixture(record: models.Model, values: dict[str, object], kept: list[str]) -> bool:
    """Set the fixture's values on `record`, except in the fields a curator changed: for those,
    add a line to `kept` when the fixture says otherwise. True when anything was set."""
    changed = False
    for name, wanted in values.items():
        field = record._meta.get_field(name)
        if field.is_relation:
            current, target = getattr(record, field.attname), getattr(wanted, "pk", None)
        else:
            current, target = getattr(record, name), wanted
        if current == target:
            continue
        if name in record.curated_fields:
            shown = getattr(wanted, "code", None) or getattr(wanted, "slug", None) or wanted
            said = shown_value(shown)
            kept.append(f"kept the curator's {name} of {describe(record)}; the fixture says {said}")
            continue
        setattr(record, name, wanted)
        changed = True
    return changed


def merge_works(record: models.Model, works: list[Work], kept: list[str]) -> None:
    """Link the fixture's works to a technique or cost model, unless a curator chose them."""
    wanted = sorted(w.pk for w in works)
    current = sorted(work.pk for work in record.works.all())  # prefetched by the caller
    if wanted == current:
        return
    if "works" in record.curated_fields:
        keys = sorted(w.key for w in works)
        kept.append(
            f"kept the curator's works of {describe(record)}; the fixture says {shown_value(keys)}"
        )
        return
    record.works.set(works)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def works_for(numbers: list, works: dict[str, Work]) -> list[Work]:
    """Survey reference numbers, "survey", or (after the survey) BibTeX keys."""
    by_ref = {w.survey_ref: w for w in works.values() if w.survey_ref}
    return [
        works[SURVEY_KEY]
        if n == "survey"
        else works[n]
        if isinstance(n, str) and not n.isdigit()
        else by_ref[int(n)]
        for n in numbers
    ]
