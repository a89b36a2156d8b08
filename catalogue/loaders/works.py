"""The works of the fixtures, their authors, identifiers and the sources of their fields, and the
persons behind several spellings."""

from __future__ import annotations

import json
from pathlib import Path

from catalogue import bibtex
from catalogue.constants import WORK_FIELDS
from catalogue.loaders.merge import merge_fixture, shown_value
from catalogue.models import (
    Author,
    Authorship,
    Era,
    Person,
    Work,
)

# identifiers.json field -> the Work field it fills when the BibTeX record leaves it empty.
IDENTIFIER_FIELDS = {
    "doi": "doi",
    "arxiv": "arxiv_id",
    "openalex": "openalex_id",
    "landing_url": "url",
}


def read_identifiers(fixtures: Path) -> dict[str, dict]:
    """key -> {"doi", "arxiv", "openalex", "landing_url", "sources"} (fixtures/identifiers.json)."""
    path = fixtures / "identifiers.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def with_identifiers(values: dict[str, object], identifiers: dict) -> dict[str, object]:
    """The record's values, its empty identifier fields filled from the identifiers read."""
    filled = dict(values)
    for name, field in IDENTIFIER_FIELDS.items():
        if identifiers.get(name) and not filled.get(field):
            filled[field] = identifiers[name]
    filled.setdefault("openalex_id", "")
    return filled


def identifier_sources(work: Work, identifiers: dict) -> dict[str, str]:
    """The source of each identifier the work shows (one its BibTeX record gave wins)."""
    return {
        name: url
        for name, url in identifiers.get("sources", {}).items()
        if str(getattr(work, IDENTIFIER_FIELDS[name])).lower() == identifiers[name].lower()
    }


def load_works(
    path: Path, kept: list[str], identifiers: dict[str, dict] | None = None
) -> dict[str, Work]:
    """Bring every work of the BibTeX file to what it says (its empty identifiers filled from
    identifiers.json), in a few bulk queries."""
    parsed = bibtex.parse_bibtex(path.read_text(encoding="utf-8"))
    if parsed.errors:
        raise ValueError(f"{path.name}: " + "; ".join(parsed.errors))
    identifiers = identifiers or {}
    existing = {w.key: w for w in Work.objects.all()}
    new, changed = [], []
    for record in parsed.records:
        values = {name: getattr(record, name) for name in WORK_FIELDS}
        values["era"] = record.era or Era.SURVEY  # the fixtures' entries without era: the survey
        values["venue"] = record.venue
        values = with_identifiers(values, identifiers.get(record.key, {}))
        work = existing.get(record.key)
        if work is None:
            work = Work(key=record.key, **values)
        elif not merge_fixture(work, values, kept):
            continue
        work.full_clean(validate_unique=False, validate_constraints=False)
        (new if work.pk is None else changed).append(work)
    Work.objects.bulk_create(new)
    Work.objects.bulk_update(
        changed, [f.attname for f in Work._meta.concrete_fields if not f.primary_key]
    )
    works = {w.key: w for w in Work.objects.filter(key__in=[r.key for r in parsed.records])}
    set_all_authors(works, {r.key: r.authors for r in parsed.records}, kept)
    return works


def set_all_authors(
    works: dict[str, Work], names_by_key: dict[str, list[str]], kept: list[str]
) -> None:
    """Rewrite the author lists that differ from the fixtures; leave the others untouched, and
    the lists curators edited."""
    current: dict[int, list[str]] = {}
    rows = Authorship.objects.filter(work__in=works.values()).order_by("work", "position")
    for work_id, name in rows.values_list("work_id", "author__name"):
        current.setdefault(work_id, []).append(name)
    wanted = {works[key].pk: list(dict.fromkeys(names)) for key, names in names_by_key.items()}
    stale = []
    for key, work in works.items():
        if current.get(work.pk, []) == wanted[work.pk]:
            continue
        if "authors" in work.curated_fields:
            said = shown_value(wanted[work.pk])
            kept.append(f"kept the curator's authors of {key}; the fixture says {said}")
            continue
        stale.append(work.pk)
    if not stale:
        return
    all_names = {name for pk in stale for name in wanted[pk]}
    authors = {a.name: a for a in Author.objects.filter(name__in=all_names)}
    missing = [Author(name=name) for name in sorted(all_names - set(authors))]
    authors.update((a.name, a) for a in Author.objects.bulk_create(missing))
    Authorship.objects.filter(work_id__in=stale).delete()
    Authorship.objects.bulk_create(
        Authorship(work_id=pk, author=authors[name], position=position)
        for pk in stale
        for position, name in enumerate(wanted[pk], start=1)
    )


def load_field_sources(
    fixtures: Path, works: dict[str, Work], identifiers: dict[str, dict], kept: list[str]
) -> None:
    """Each work's field -> the URL it was read from: the fields of the works after the survey
    (after_sources.json) and every identifier read (identifiers.json)."""
    path = fixtures / "after_sources.json"
    after = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    changed = []
    for key, work in works.items():
        sources = {**after.get(key, {}), **identifier_sources(work, identifiers.get(key, {}))}
        if merge_fixture(work, {"field_sources": sources}, kept):
            changed.append(work)
    Work.objects.bulk_update(changed, ["field_sources"])


def load_identities(path: Path) -> None:
    """Link the spellings the identity table names to their person; mark those left apart."""
    table = json.loads(path.read_text(encoding="utf-8"))
    for entry in table["people"]:
        person, _ = Person.objects.get_or_create(name=entry["name"])
        Author.objects.filter(name__in=entry["spellings"]).update(person=person, identity_note="")
    for group in table["left_apart"]:
        note = f"left apart from {' / '.join(group['spellings'])}: {group['reason']}"
        Author.objects.filter(name__in=group["spellings"]).update(person=None, identity_note=note)
    # The table extended to the works after the survey (the same rule), applied over it.
    extended = table.get("after_survey", {"people": [], "left_apart": []})
    for entry in extended["people"]:
        person, _ = Person.objects.get_or_create(name=entry["name"])
        Author.objects.filter(name__in=entry["spellings"]).update(person=person, identity_note="")
    for group in extended["left_apart"]:
        note = f"left apart from {' / '.join(group['spellings'])}: {group['reason']}"
        Author.objects.filter(name__in=group["spellings"]).update(person=None, identity_note=note)
    Person.objects.filter(spellings__isnull=True).delete()  # a person the extension renamed
