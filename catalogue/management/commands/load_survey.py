"""Load the survey's data from fixtures/ into the catalogue, in one transaction; then the works
after the survey (fixtures/after_*), each with its source URL, mapped onto the taxonomy.

Idempotent: records are matched on their natural keys (BibTeX key, category code, technique slug,
(citing, cited, provenance), ...) and brought to what the fixtures say, so a second run changes
nothing. Records that curators added and that the fixtures do not mention are left alone.

Curators' edits win: a field named in a record's `curated_fields` (set by the admin, the API and
BibTeX imports) keeps the curator's value, and the command reports each difference it left alone.
`--reset KEY` / `--reset-all` clear those marks, so that the fixtures' values come back.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import models, transaction
from django.db.models import Count, Q

from catalogue import bibtex
from catalogue.constants import SURVEY_KEY, WORK_FIELDS
from catalogue.models import (
    Assignment,
    Author,
    Authorship,
    Category,
    Citation,
    CostModel,
    CuratorDeletion,
    Era,
    Person,
    Result,
    Technique,
    Work,
    WorkSearchText,
)
from catalogue.version import bump_generation

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
DELETED = "a curator deleted it (--reset brings it back)"


class Command(BaseCommand):
    help = (
        "Load the survey's works, taxonomy, assignments, citations and cost models; "
        "fields a curator changed are kept unless reset."
    )

    def add_arguments(self, parser):
        parser.add_argument("--fixtures", type=Path, default=FIXTURES, help="fixtures folder")
        parser.add_argument(
            "--reset",
            action="append",
            default=[],
            metavar="KEY",
            help="bring back the fixtures' version of this work (BibTeX key, with its "
            "assignments and edges), category (code) or technique (slug, with its cost models); "
            "repeatable",
        )
        parser.add_argument(
            "--reset-all",
            action="store_true",
            help="bring back the fixtures' version of everything",
        )
        parser.add_argument("--yes", action="store_true", help="reset without asking")

    def handle(
        self, *args, fixtures: Path, reset: list[str], reset_all: bool, yes: bool, **options
    ):
        to_reset = curated_records(None if reset_all else reset) if reset or reset_all else []
        if to_reset and not yes:
            self.confirm(to_reset)
        kept: list[str] = []
        try:
            with transaction.atomic():
                for record in to_reset:
                    forget_curation(record)
                load_all(fixtures, kept)
                # Bulk writes send no signals: say the catalogue changed, once it has.
                transaction.on_commit(bump_generation)
        except (OSError, ValueError, KeyError, ValidationError) as error:
            raise CommandError(f"Nothing was loaded: {error}") from error
        for line in kept:
            self.stdout.write(line)
        if to_reset:
            self.stdout.write(f"Reset {len(to_reset)} curated records to the fixtures.")
        self.stdout.write(self.style.SUCCESS(describe_catalogue()))

    def confirm(self, records: list[models.Model]) -> None:
        self.stdout.write("These curators' changes will be replaced by the fixtures' values:")
        for record in records:
            if isinstance(record, CuratorDeletion):
                self.stdout.write(f"  {record.kind} {record.key}: deleted by a curator")
            else:
                self.stdout.write(f"  {describe(record)}: {', '.join(record.curated_fields)}")
        if not sys.stdin.isatty():
            raise CommandError("Nothing was reset: add --yes to confirm without a terminal.")
        if input("Type 'yes' to continue: ").strip().lower() != "yes":
            raise CommandError("Nothing was reset.")


CURATED_MODELS: list[type[models.Model]] = [
    Work,
    Category,
    Assignment,
    Citation,
    Technique,
    CostModel,
    Result,
]


def curated_records(keys: list[str] | None) -> list[models.Model]:
    """The records with curators' marks that a reset of `keys` (None: everything) clears."""
    if keys is None:
        filters = {model: Q() for model in CURATED_MODELS}
    else:
        unknown = [k for k in keys if not _reset_target_exists(k)]
        if unknown:
            raise CommandError(
                f"Nothing was reset: no work, category or technique {', '.join(unknown)}."
            )
        filters = {
            Work: Q(key__in=keys),
            Category: Q(code__in=keys),
            Assignment: Q(work__key__in=keys) | Q(category__code__in=keys),
            Citation: Q(citing__key__in=keys) | Q(cited__key__in=keys),
            Technique: Q(slug__in=keys),
            CostModel: Q(technique__slug__in=keys),
            Result: Q(slug__in=keys) | Q(work__key__in=keys),
        }
    deletions = (
        CuratorDeletion.objects.all() if keys is None else CuratorDeletion.objects.about(keys)
    )
    return [
        record
        for model in CURATED_MODELS
        for record in model.objects.filter(filters[model]).exclude(curated_fields=[]).order_by("pk")
    ] + list(deletions)


def forget_curation(record: models.Model) -> None:
    """Clear a curator's marks (or forget a deletion), so that the fixtures' values come back."""
    if isinstance(record, CuratorDeletion):
        record.delete()
    else:
        type(record).objects.filter(pk=record.pk).update(curated_fields=[])


def _reset_target_exists(key: str) -> bool:
    return (
        Work.objects.filter(key=key).exists()
        or Category.objects.filter(code=key).exists()
        or Technique.objects.filter(slug=key).exists()
        or Result.objects.filter(slug=key).exists()
    )


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


def _shown(value: object) -> str:
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
            kept.append(
                f"kept the curator's {name} of {describe(record)}; the fixture says {_shown(shown)}"
            )
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
            f"kept the curator's works of {describe(record)}; the fixture says {_shown(keys)}"
        )
        return
    record.works.set(works)


def load_all(fixtures: Path, kept: list[str] | None = None) -> None:
    kept = [] if kept is None else kept
    identifiers = read_identifiers(fixtures)
    works = load_works(fixtures / "survey.bib", kept, identifiers)
    load_categories(fixtures / "taxonomy.json", kept)
    load_assignments(fixtures / "assignments.csv", works, kept)
    load_citations(fixtures / "citations.csv", works, kept)
    if (fixtures / "techniques.json").exists():
        load_techniques(fixtures / "techniques.json", works, kept)
        load_cost_models(fixtures / "cost_models.json", works, kept)
    if (fixtures / "seminal.json").exists():
        load_seminal(fixtures / "seminal.json", works, kept)
    if (fixtures / "after_survey.bib").exists():
        works = load_after_survey(fixtures, works, kept, identifiers)
        if (fixtures / "after_techniques.json").exists():  # theirs: works cited by key
            load_techniques(fixtures / "after_techniques.json", works, kept, first=100)
            load_cost_models(fixtures / "after_cost_models.json", works, kept, first=100)
    load_field_sources(fixtures, works, identifiers, kept)
    if (fixtures / "identities.json").exists():
        load_identities(fixtures / "identities.json")
    if (fixtures / "results.json").exists():
        load_results(fixtures / "results.json", works, kept)
    # Bulk writes send no signals: the search text of the works, anew.
    WorkSearchText.objects.refresh(Work.objects.values_list("pk", flat=True))


def load_after_survey(
    fixtures: Path, survey_works: dict[str, Work], kept: list[str], identifiers: dict[str, dict]
) -> dict[str, Work]:
    """The works after the survey, their categories (ours, with the evidence level "curated
    after the survey") and the edges read in their reference lists. Returns every work."""
    works = {**survey_works, **load_works(fixtures / "after_survey.bib", kept, identifiers)}
    load_categories(fixtures / "after_taxonomy.json", kept)
    load_assignments(fixtures / "after_assignments.csv", works, kept)
    load_citations(fixtures / "after_citations.csv", works, kept)
    return works


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
            kept.append(
                f"kept the curator's authors of {key}; the fixture says {_shown(wanted[work.pk])}"
            )
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


def load_categories(path: Path, kept: list[str]) -> None:
    existing = {c.code: c for c in Category.objects.all()}
    for order, node in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        values = {
            "name": node["name"],
            "section": node.get("section", ""),
            "parent": existing[node["parent"]] if node.get("parent") else None,
            "order": node.get("order", order),
            "description": node.get("description", ""),
            "status": node.get("status", "confirmed"),
            "extends": node.get("extends", ""),
        }
        category = existing.get(node["code"]) or Category(code=node["code"])
        if merge_fixture(category, values, kept) or category.pk is None:
            category.save()
        existing[category.code] = category


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def load_assignments(path: Path, works: dict[str, Work], kept: list[str]) -> None:
    categories = {c.code: c for c in Category.objects.all()}
    existing = {
        (a.work_id, a.category_id): a for a in Assignment.objects.select_related("work", "category")
    }
    deleted = CuratorDeletion.objects.keys_of("assignment")
    new, changed = [], []
    for row in read_csv(path):
        work, category = works[row["key"]], categories[row["category"]]
        values = {
            "evidence": row["evidence"],
            "source_note": row["source_note"],
            "alternatives": row.get("alternatives", ""),
        }
        assignment = existing.get((work.pk, category.pk))
        if assignment is None and f"{work.key} {category.code}" in deleted:
            kept.append(f"left out the assignment of {work.key} to {category.code}: {DELETED}")
        elif assignment is None:
            new.append(Assignment(work=work, category=category, **values))
        elif merge_fixture(assignment, values, kept):
            changed.append(assignment)
    Assignment.objects.bulk_create(new)
    Assignment.objects.bulk_update(changed, ["evidence", "source_note", "alternatives"])


def load_citations(path: Path, works: dict[str, Work], kept: list[str]) -> None:
    existing = {
        (c.citing_id, c.cited_id, c.provenance): c
        for c in Citation.objects.select_related("citing", "cited")
    }
    deleted = CuratorDeletion.objects.keys_of("citation")
    new, changed = [], []
    for row in read_csv(path):
        citing, cited = works[row["citing"]], works[row["cited"]]
        evidence = {
            "evidence_source": row["evidence_source"],
            "evidence_excerpt": row["evidence_excerpt"],
        }
        citation = existing.get((citing.pk, cited.pk, row["provenance"]))
        natural_key = f"{citing.key} {cited.key} {row['provenance']}"
        if citation is None and natural_key in deleted:
            kept.append(
                f"left out the edge {citing.key} -> {cited.key} ({row['provenance']}): {DELETED}"
            )
        elif citation is None:
            new.append(
                Citation(citing=citing, cited=cited, provenance=row["provenance"], **evidence)
            )
        elif merge_fixture(citation, evidence, kept):
            changed.append(citation)
    Citation.objects.bulk_create(new)
    Citation.objects.bulk_update(changed, ["evidence_source", "evidence_excerpt"])


def _works_for(numbers: list, works: dict[str, Work]) -> list[Work]:
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


def load_techniques(path: Path, works: dict[str, Work], kept: list[str], first: int = 0) -> None:
    categories = {c.code: c for c in Category.objects.all()}
    existing = {t.slug: t for t in Technique.objects.prefetch_related("works")}
    for order, item in enumerate(json.loads(path.read_text(encoding="utf-8")), start=first):
        values = {
            "name": item["name"],
            "category": categories[item["category"]],
            "summary": item.get("summary", ""),
            "demo_slug": item.get("demo") or "",
            "order": order,
        }
        technique = existing.get(item["slug"]) or Technique(slug=item["slug"])
        if merge_fixture(technique, values, kept) or technique.pk is None:
            technique.save()
        merge_works(technique, _works_for(item.get("works", []), works), kept)


RESULT_CONFIG = (
    "network",
    "dataset",
    "global_batch",
    "batch_unit",
    "devices",
    "device_kind",
    "interconnect",
    "precision",
    "family",
    "strategy",
    "layout",
    "parameters",
)


def load_results(path: Path, works: dict[str, Work], kept: list[str]) -> None:
    """The measured results (fixtures/results.json), each linked to its work and techniques;
    the fields a curator changed are kept, as for every other record."""
    techniques = {t.slug: t for t in Technique.objects.all()}
    existing = {r.slug: r for r in Result.objects.prefetch_related("techniques")}
    for order, item in enumerate(json.loads(path.read_text(encoding="utf-8"))["results"]):
        config = item["config"]
        values = {
            "work": works.get(item["work"]) if item["work"] else None,
            "outside": item["outside"],
            "year": item["year"],
            **{name: config.get(name) or default_of(name) for name in RESULT_CONFIG},
            "figures": item["figures"],
            "status": item["status"],
            "source_url": item["source_url"],
            "config_sources": item["config_sources"],
            "location": item["location"],
            "claim": item["claim"],
            "note": item["note"],
            "order": order,
        }
        result = existing.get(item["id"]) or Result(slug=item["id"])
        if merge_fixture(result, values, kept) or result.pk is None:
            result.save()
        wanted = sorted(techniques[slug].pk for slug in item["techniques"])
        if sorted(t.pk for t in result.techniques.all()) != wanted:
            if "techniques" in result.curated_fields:
                kept.append(f"kept the curator's techniques of {describe(result)}")
            else:
                result.techniques.set(wanted)


def default_of(name: str) -> object:
    """The empty value of a result's configuration field (null for numbers, {} for the layout)."""
    if name in ("global_batch", "devices", "parameters"):
        return None
    return {} if name == "layout" else ""


def load_cost_models(path: Path, works: dict[str, Work], kept: list[str], first: int = 0) -> None:
    techniques = {t.slug: t for t in Technique.objects.all()}
    models_with_works = CostModel.objects.select_related("technique").prefetch_related("works")
    existing = {(m.technique_id, m.label): m for m in models_with_works}
    deleted = CuratorDeletion.objects.keys_of("cost model")
    for order, item in enumerate(json.loads(path.read_text(encoding="utf-8")), start=first):
        technique = techniques[item["technique"]]
        if (technique.pk, item["label"]) not in existing and (
            f"{technique.slug} {item['label']}" in deleted
        ):
            kept.append(f"left out cost model {item['label']!r} of {technique.slug}: {DELETED}")
            continue
        values = {
            "quantity": item["quantity"],
            "eval": item.get("eval", ""),
            "formula": item["formula"],
            "variables": item["variables"],
            "unit": item.get("unit", ""),
            "asymptotic": item.get("asymptotic", False),
            "section": item.get("section", ""),
            "status": item["status"],
            "status_note": item.get("status_note", ""),
            "order": order,
        }
        model = existing.get((technique.pk, item["label"]))
        model = model or CostModel(technique=technique, label=item["label"])
        if merge_fixture(model, values, kept) or model.pk is None:
            model.full_clean(validate_unique=False, validate_constraints=False)
            model.save()
        merge_works(model, _works_for(item.get("works", []), works), kept)


def load_seminal(path: Path, works: dict[str, Work], kept: list[str]) -> None:
    for item in json.loads(path.read_text(encoding="utf-8")):
        work = works[item["key"]]
        if merge_fixture(work, {"seminal": True, "seminal_reason": item["reason"]}, kept):
            work.save(update_fields=["seminal", "seminal_reason"])


def describe_catalogue() -> str:
    eras = dict(Work.objects.values_list("era").annotate(n=Count("pk")).order_by())
    evidence = dict(Assignment.objects.values_list("evidence").annotate(n=Count("pk")).order_by())
    provenance = dict(Citation.objects.values_list("provenance").annotate(n=Count("pk")).order_by())
    results = dict(Result.objects.values_list("status").annotate(n=Count("pk")).order_by())
    return (
        f"Catalogue: {Work.objects.count()} works {eras}, "
        f"{Category.objects.count()} categories, "
        f"{Assignment.objects.count()} assignments {evidence}, "
        f"{Citation.objects.count()} citation edges {provenance}, "
        f"{Technique.objects.count()} techniques, {CostModel.objects.count()} cost models, "
        f"{Result.objects.count()} measured results {results}."
    )
