"""Load the survey's data from fixtures/ into the catalogue, in one transaction; then the works
after the survey (fixtures/after_*), each with its source URL, mapped onto the taxonomy.

Idempotent: records are matched on their natural keys (BibTeX key, category code, technique slug,
(citing, cited, provenance), ...) and brought to what the fixtures say, so a second run changes
nothing. Records that curators added and that the fixtures do not mention are left alone.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.db.models import Count

from catalogue import bibtex
from catalogue.constants import SURVEY_KEY
from catalogue.graph import bump_generation
from catalogue.models import (
    Assignment,
    Author,
    Authorship,
    Category,
    Citation,
    CostModel,
    Technique,
    Work,
    WorkSearchText,
)

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


class Command(BaseCommand):
    help = "Load the survey's works, taxonomy, assignments, citations and cost models."

    def add_arguments(self, parser):
        parser.add_argument("--fixtures", type=Path, default=FIXTURES, help="fixtures folder")

    def handle(self, *args, fixtures: Path, **options):
        try:
            with transaction.atomic():
                load_all(fixtures)
                # Bulk writes send no signals: say the catalogue changed, once it has.
                transaction.on_commit(bump_generation)
        except (OSError, ValueError, KeyError, ValidationError) as error:
            raise CommandError(f"Nothing was loaded: {error}") from error
        self.stdout.write(self.style.SUCCESS(describe_catalogue()))


def load_all(fixtures: Path) -> None:
    works = load_works(fixtures / "survey.bib")
    load_categories(fixtures / "taxonomy.json")
    load_assignments(fixtures / "assignments.csv", works)
    load_citations(fixtures / "citations.csv", works)
    if (fixtures / "techniques.json").exists():
        load_techniques(fixtures / "techniques.json", works)
        load_cost_models(fixtures / "cost_models.json", works)
    if (fixtures / "seminal.json").exists():
        load_seminal(fixtures / "seminal.json", works)
    if (fixtures / "after_survey.bib").exists():
        load_after_survey(fixtures, works)
    # Bulk writes send no signals: the search text of the works, anew.
    WorkSearchText.objects.refresh(Work.objects.values_list("pk", flat=True))


def load_after_survey(fixtures: Path, survey_works: dict[str, Work]) -> None:
    """The works after the survey, their categories (ours, with the evidence level "curated
    after the survey"), the edges read in their reference lists, and each field's source."""
    works = {**survey_works, **load_works(fixtures / "after_survey.bib")}
    load_categories(fixtures / "after_taxonomy.json")
    load_assignments(fixtures / "after_assignments.csv", works)
    load_citations(fixtures / "after_citations.csv", works)
    field_sources = json.loads((fixtures / "after_sources.json").read_text(encoding="utf-8"))
    for key, sources in field_sources.items():
        work = works[key]
        if work.field_sources != sources:
            work.field_sources = sources
            work.save(update_fields=["field_sources"])


def load_works(path: Path) -> dict[str, Work]:
    """Bring every work of survey.bib to what the file says, in a few bulk queries."""
    parsed = bibtex.parse_bibtex(path.read_text(encoding="utf-8"))
    if parsed.errors:
        raise ValueError(f"{path.name}: " + "; ".join(parsed.errors))
    existing = {w.key: w for w in Work.objects.all()}
    new, changed = [], []
    for record in parsed.records:
        work = existing.get(record.key) or Work(key=record.key)
        before = _field_values(work)
        work.set_record_fields(record)
        if work.pk is None or _field_values(work) != before:
            work.full_clean(validate_unique=False, validate_constraints=False)
            (new if work.pk is None else changed).append(work)
    Work.objects.bulk_create(new)
    Work.objects.bulk_update(
        changed, [f.attname for f in Work._meta.concrete_fields if not f.primary_key]
    )
    works = {w.key: w for w in Work.objects.filter(key__in=[r.key for r in parsed.records])}
    set_all_authors(works, {r.key: r.authors for r in parsed.records})
    return works


def _field_values(work: Work) -> dict[str, object]:
    return {f.attname: getattr(work, f.attname) for f in Work._meta.concrete_fields}


def set_all_authors(works: dict[str, Work], names_by_key: dict[str, list[str]]) -> None:
    """Rewrite the author lists that differ from the fixtures; leave the others untouched."""
    current: dict[int, list[str]] = {}
    rows = Authorship.objects.filter(work__in=works.values()).order_by("work", "position")
    for work_id, name in rows.values_list("work_id", "author__name"):
        current.setdefault(work_id, []).append(name)
    wanted = {works[key].pk: list(dict.fromkeys(names)) for key, names in names_by_key.items()}
    stale = [pk for pk, names in wanted.items() if current.get(pk, []) != names]
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


def load_categories(path: Path) -> None:
    for order, node in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        parent = Category.objects.get(code=node["parent"]) if node.get("parent") else None
        Category.objects.update_or_create(
            code=node["code"],
            defaults={
                "name": node["name"],
                "section": node.get("section", ""),
                "parent": parent,
                "order": node.get("order", order),
                "description": node.get("description", ""),
                "status": node.get("status", "confirmed"),
                "extends": node.get("extends", ""),
            },
        )


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def load_assignments(path: Path, works: dict[str, Work]) -> None:
    categories = {c.code: c for c in Category.objects.all()}
    existing = {(a.work_id, a.category_id): a for a in Assignment.objects.all()}
    new, changed = [], []
    for row in read_csv(path):
        work, category = works[row["key"]], categories[row["category"]]
        values = {"evidence": row["evidence"], "source_note": row["source_note"]}
        assignment = existing.get((work.pk, category.pk))
        if assignment is None:
            new.append(Assignment(work=work, category=category, **values))
        elif {k: getattr(assignment, k) for k in values} != values:
            for name, value in values.items():
                setattr(assignment, name, value)
            changed.append(assignment)
    Assignment.objects.bulk_create(new)
    Assignment.objects.bulk_update(changed, ["evidence", "source_note"])


def load_citations(path: Path, works: dict[str, Work]) -> None:
    existing = {(c.citing_id, c.cited_id, c.provenance): c for c in Citation.objects.all()}
    new = []
    for row in read_csv(path):
        citing, cited = works[row["citing"]], works[row["cited"]]
        evidence = {
            "evidence_source": row["evidence_source"],
            "evidence_excerpt": row["evidence_excerpt"],
        }
        citation = existing.get((citing.pk, cited.pk, row["provenance"]))
        if citation is None:
            new.append(
                Citation(citing=citing, cited=cited, provenance=row["provenance"], **evidence)
            )
        elif {k: getattr(citation, k) for k in evidence} != evidence:
            Citation.objects.filter(pk=citation.pk).update(**evidence)
    Citation.objects.bulk_create(new)


def _works_for(numbers: list, works: dict[str, Work]) -> list[Work]:
    by_ref = {w.survey_ref: w for w in works.values() if w.survey_ref}
    return [works[SURVEY_KEY] if n == "survey" else by_ref[int(n)] for n in numbers]


def load_techniques(path: Path, works: dict[str, Work]) -> None:
    categories = {c.code: c for c in Category.objects.all()}
    for order, item in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        technique, _ = Technique.objects.update_or_create(
            slug=item["slug"],
            defaults={
                "name": item["name"],
                "category": categories[item["category"]],
                "summary": item.get("summary", ""),
                "demo_slug": item.get("demo") or "",
                "order": order,
            },
        )
        technique.works.set(_works_for(item.get("works", []), works))


def load_cost_models(path: Path, works: dict[str, Work]) -> None:
    techniques = {t.slug: t for t in Technique.objects.all()}
    for order, item in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        model, _ = CostModel.objects.update_or_create(
            technique=techniques[item["technique"]],
            label=item["label"],
            defaults={
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
            },
        )
        model.full_clean(validate_unique=False, validate_constraints=False)
        model.works.set(_works_for(item.get("works", []), works))


def load_seminal(path: Path, works: dict[str, Work]) -> None:
    for item in json.loads(path.read_text(encoding="utf-8")):
        work = works[item["key"]]
        if not work.seminal or work.seminal_reason != item["reason"]:
            work.seminal, work.seminal_reason = True, item["reason"]
            work.save(update_fields=["seminal", "seminal_reason"])


def describe_catalogue() -> str:
    eras = dict(Work.objects.values_list("era").annotate(n=Count("pk")).order_by())
    evidence = dict(Assignment.objects.values_list("evidence").annotate(n=Count("pk")).order_by())
    provenance = dict(Citation.objects.values_list("provenance").annotate(n=Count("pk")).order_by())
    return (
        f"Catalogue: {Work.objects.count()} works {eras}, "
        f"{Category.objects.count()} categories, "
        f"{Assignment.objects.count()} assignments {evidence}, "
        f"{Citation.objects.count()} citation edges {provenance}, "
        f"{Technique.objects.count()} techniques, {CostModel.objects.count()} cost models."
    )
