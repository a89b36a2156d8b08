"""Import a BibTeX file atomically: all entries or none.

Entries with the key of an existing work update it; an entry whose DOI or arXiv id belongs to
another work is reported as a duplicate and skipped. Any invalid entry aborts the whole import
with a non-zero exit status and a message naming each problem with its line: syntax errors
(unclosed braces or quotes, missing commas or keys, stray text), an empty or non-BibTeX file, a file
that is not UTF-8.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalogue.bibtex import BibtexError, apply_import, decode_bibtex, plan_import


class Command(BaseCommand):
    help = "Import works from a BibTeX file (atomic; --dry-run shows what would change)."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true", help="report, write nothing")

    def handle(self, *args, file: Path, dry_run: bool, **options):
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
        for record, changes in plan.update:
            self.stdout.write(f"change {record.key}: {', '.join(sorted(changes))}")
        for record in plan.create:
            self.stdout.write(f"new {record.key}")
        if dry_run:
            self.stdout.write(f"Dry run, nothing written: {plan.summary()}")
            return
        apply_import(plan)
        self.stdout.write(self.style.SUCCESS(f"Imported: {plan.summary()}"))
