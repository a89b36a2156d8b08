"""Write every work in the catalogue as BibTeX, to standard output or a file."""

from pathlib import Path

from django.core.management.base import BaseCommand

from catalogue.bibtex import export_works
from catalogue.models import Work


class Command(BaseCommand):
    help = "Export all works as BibTeX (standard output, or --output FILE)."

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, help="write to this file instead of stdout")

    def handle(self, *args, output: Path | None, **options):
        text = export_works(Work.objects.for_list())
        if output is None:
            self.stdout.write(text, ending="")
        else:
            output.write_text(text, encoding="utf-8")
            self.stderr.write(f"Wrote {Work.objects.count()} entries to {output}")
