"""Add citation edges from a CSV file: all of them, or none.

The columns are those of fixtures/citations.csv and of /api/graph/?format=csv:

    citing,cited,provenance,evidence_source,evidence_excerpt

`citing` and `cited` are BibTeX keys of works in the catalogue; `provenance` is one of the
Citation provenances; every edge needs its evidence (a source, an excerpt, or both). A file with
any bad row writes nothing and exits non-zero, naming each bad row by its line number.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from catalogue.models import Citation, Provenance, Work
from catalogue.version import bump_generation

COLUMNS = ["citing", "cited", "provenance", "evidence_source", "evidence_excerpt"]


@dataclass
class CitationPlan:
    citations: list[Citation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def read_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) pairs; the line is where the row starts (the header is line 1)."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CommandError(
                f"{path.name}: the header must name the columns {', '.join(COLUMNS)} "
                f"(missing: {', '.join(missing)}). Nothing was imported."
            )
        rows, start = [], reader.line_num + 1
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + 1
        return rows


def plan_citations(rows: list[tuple[int, dict[str, str]]]) -> CitationPlan:
    """Check every row against the catalogue (two queries) and say what would be written."""
    keys = {row.get(c, "").strip() for _, row in rows for c in ("citing", "cited")}
    works = {w.key: w for w in Work.objects.filter(key__in=keys).only("pk", "key")}
    existing = set(
        Citation.objects.filter(citing__key__in=keys, cited__key__in=keys)
        .order_by()
        .values_list("citing__key", "cited__key", "provenance")
    )
    plan, seen_at = CitationPlan(), {}
    for line, row in rows:
        problems = row_problems(row, works)
        triple = tuple(row.get(c, "").strip() for c in ("citing", "cited", "provenance"))
        if triple in seen_at:
            problems.append(f"duplicates line {seen_at[triple]}")
        elif triple in existing:
            problems.append("this edge (citing, cited, provenance) is already in the catalogue")
        seen_at.setdefault(triple, line)
        if problems:
            plan.errors.append(f"line {line}: " + "; ".join(problems))
            continue
        citing, cited, provenance = triple
        plan.citations.append(
            Citation(
                citing=works[citing],
                cited=works[cited],
                provenance=provenance,
                evidence_source=row["evidence_source"].strip(),
                evidence_excerpt=row["evidence_excerpt"].strip(),
            )
        )
    return plan


def row_problems(row: dict[str, str], works: dict[str, Work]) -> list[str]:
    if None in row:
        return ["more fields than the header has columns"]
    values = {c: (row.get(c) or "").strip() for c in COLUMNS}
    if any("\x00" in value for value in values.values()):
        return ["a NUL byte in a field (a binary file?)"]  # PostgreSQL would refuse it
    problems = [
        f"unknown {c} work key {values[c]!r}" for c in ("citing", "cited") if values[c] not in works
    ]
    if values["citing"] and values["citing"] == values["cited"]:
        problems.append("a work cannot cite itself")
    if values["provenance"] not in Provenance.values:
        problems.append(
            f"unknown provenance {values['provenance']!r} (one of: {', '.join(Provenance.values)})"
        )
    if not (values["evidence_source"] or values["evidence_excerpt"]):
        problems.append("no evidence: give evidence_source, evidence_excerpt or both")
    return problems


class Command(BaseCommand):
    help = (
        "Add citation edges from a CSV file (citing,cited,provenance,evidence_source,"
        "evidence_excerpt). All rows or none: any bad row means nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="CSV file of citation edges")

    def handle(self, *args, file: Path, **options):
        try:
            rows = read_rows(file)
        except (OSError, UnicodeDecodeError, csv.Error) as error:
            raise CommandError(
                f"{file}: cannot be read ({error}). Nothing was imported."
            ) from error
        plan = plan_citations(rows)
        if plan.errors:
            raise CommandError(
                f"{file.name}: {len(plan.errors)} bad row(s); nothing was imported.\n"
                + "\n".join(plan.errors)
            )
        with transaction.atomic():
            Citation.objects.bulk_create(plan.citations)
        bump_generation()  # bulk_create sends no signals
        self.stdout.write(self.style.SUCCESS(f"Added {len(plan.citations)} citation edges."))
