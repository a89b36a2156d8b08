"""Import a BibTeX file atomically: all entries or none.

An entry is matched with the work it describes by key, DOI, arXiv id (wherever reference managers
put it) or title, year and first author ("same work as <key>"), and never creates a second work.
New works are added by curators (era "curated"), or after the survey with `era = {after}` and a
`sourceurl`; the survey is closed, so an entry that would add a work to it is an error. On a
stored work an import changes nothing by itself: each field that differs is reported (stored ->
file) and written only with --update; a field the file leaves out never erases one; era, source
URL and survey reference are never changed. Any invalid entry aborts the whole import with a
non-zero exit status and a message naming each problem with its line.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalogue.bibtex import BibtexError, apply_import, decode_bibtex, plan_import
from catalogue.models import Era, Work

SHOWN = 80  # characters of a value in the report


class Command(BaseCommand):
    help = "Import works from a BibTeX file (atomic; --dry-run shows what would change)."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true", help="report, write nothing")
        parser.add_argument(
            "--update",
            action="store_true",
            help="also write the fields that differ on works already in the catalogue",
        )

    def handle(self, *args, file: Path, dry_run: bool, update: bool, **options):
        try:
            text = decode_bibtex(file.read_bytes())
        except OSError as error:
            raise CommandError(f"Cannot read {file}: {error.strerror}") from error
        except BibtexError as error:
            raise CommandError(f"Nothing was imported; {file}: {error}") from error
        plan = plan_import(text)
        for line in plan.duplicates:
            self.stderr.write(f"duplicate: {line}")
        if not plan.ok:
            details = "\n".join(f"  - {error}" for error in plan.errors)
            count = f"{len(plan.errors)} error{'' if len(plan.errors) == 1 else 's'}"
            raise CommandError(f"Nothing was imported; {count} in {file}:\n{details}")
        self.report(plan, update)
        counts = self.era_counts()
        if dry_run:
            self.stdout.write(f"Dry run, nothing written: {plan.summary()}")
            return
        applied = apply_import(plan, accepted=True if update else None)
        self.stdout.write(self.style.SUCCESS(f"Imported: {plan.summary()}"))
        if plan.update and not update:
            self.stdout.write("Differences left as they are; pass --update to write them.")
        self.stdout.write(f"Fields written on stored works: {len(applied)}")
        self.stdout.write(f"Works by era before: {counts}; after: {self.era_counts()}")

    def report(self, plan, update: bool) -> None:
        for line in plan.same_work:
            self.stdout.write(f"same work: {line}")
        for line in plan.kept:
            self.stdout.write(f"kept: {line}")
        verb = "will write" if update else "differs (not written without --update)"
        for item in plan.update:
            for name, (stored, given) in item.changes.items():
                self.stdout.write(f"{verb}: {item.key} {name}: {shown(stored)} -> {shown(given)}")
        for record in plan.create:
            self.stdout.write(f"new ({Era(record.era).label}): {record.key}: {shown(record.title)}")

    @staticmethod
    def era_counts() -> dict[str, int]:
        return {era: Work.objects.filter(era=era).count() for era in Era.values}


def shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."
