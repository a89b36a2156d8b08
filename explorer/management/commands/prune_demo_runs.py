"""`manage.py prune_demo_runs --days N`: delete finished demo runs older than N days, then keep
at most DEMO_RUNS_KEPT finished runs, and the task backend's records of finished demo tasks
older than N days. Runs waiting or running are never touched."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from explorer.demos.models import DemoRun
from explorer.demos.tasks import prune_task_records


class Command(BaseCommand):
    help = "Delete finished demo runs older than --days (default 30), and any beyond DEMO_RUNS_KEPT"

    def add_arguments(self, parser) -> None:
        parser.add_argument("--days", type=float, default=30.0)
        parser.add_argument("--dry-run", action="store_true", help="count, delete nothing")

    def handle(self, *args, days: float, dry_run: bool, **options) -> None:
        if not days >= 0:
            raise CommandError("--days must be zero or more")
        old = DemoRun.objects.older_than(days)
        extra = DemoRun.objects.beyond_kept(settings.DEMO_RUNS_KEPT).exclude(
            id__in=old.values("id")
        )
        counts = (old.count(), extra.count())
        if not dry_run:
            old.delete()
            extra.delete()
            prune_task_records(days)
        verb = "would delete" if dry_run else "deleted"
        self.stdout.write(
            f"{verb} {counts[0]} runs finished more than {days:g} days ago and {counts[1]} "
            f"beyond the {settings.DEMO_RUNS_KEPT} kept"
        )
