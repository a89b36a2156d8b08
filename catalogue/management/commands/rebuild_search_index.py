"""Rebuild the search text (and so the full-text index) of every work, in one transaction.

Needed after rows were written around the ORM (bench/synthetic.py inserts with sqlite3);
the app keeps the index in step by itself otherwise (catalogue/signals.py).
"""

from django.core.management.base import BaseCommand
from django.db import transaction

from catalogue.models import Work, WorkSearchText


class Command(BaseCommand):
    help = "Rebuild the full-text search index of the works."

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty", action="store_true", help="only when no work has its search text yet"
        )

    def handle(self, *args, if_empty: bool = False, **options):
        if if_empty and (WorkSearchText.objects.count() or not Work.objects.exists()):
            self.stdout.write("The search index is already filled.")
            return
        with transaction.atomic():
            count = WorkSearchText.objects.rebuild()
        self.stdout.write(self.style.SUCCESS(f"Search index rebuilt: {count:,} works."))
