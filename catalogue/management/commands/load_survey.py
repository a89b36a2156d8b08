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

import sys
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import models, transaction
from django.db.models import Count, Q

from catalogue.loaders.merge import describe
from catalogue.loaders.records import (
    load_assignments,
    load_categories,
    load_citations,
    load_cost_models,
    load_results,
    load_seminal,
    load_techniques,
)
from catalogue.loaders.works import (
    load_field_sources,
    load_identities,
    load_works,
    read_identifiers,
)
from catalogue.mlperf.load import load_mlperf
from catalogue.models import (
    Assignment,
    Category,
    Citation,
    CostModel,
    CuratorDeletion,
    Result,
    Technique,
    Work,
    WorkSearchText,
)
from catalogue.version import bump_generation

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


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
                kept.append(load_mlperf(fixtures))
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
