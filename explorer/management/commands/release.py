"""Cut an immutable, versioned release of the public catalogue (catalogue/release/)."""

from datetime import UTC, date, datetime

from django.core.management.base import BaseCommand, CommandError

from catalogue.release import shelf
from catalogue.release.cut import ReleaseError, cut
from explorer.demos import DEMOS
from explorer.demos.base import schema


class Command(BaseCommand):
    help = (
        "Cut release VERSION (default: the next) of the public catalogue into "
        "RELEASES_DIR/VERSION/: SQLite, data package, BibTeX, changelog, SHA256SUMS."
    )

    def add_arguments(self, parser):
        parser.add_argument("number", nargs="?", help="MAJOR.MINOR.PATCH (default: the next)")
        parser.add_argument(
            "--date", type=date.fromisoformat, help="the release date, YYYY-MM-DD (today)"
        )

    def handle(self, *args, number: str | None, date: date | None, **options):
        released = date or datetime.now(UTC).date()
        root = shelf.releases_dir()
        try:
            manifest = cut(root, [schema(demo) for demo in DEMOS.values()], released, number)
        except ReleaseError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"Release {manifest['version']} ({manifest['date']}) in {root}:")
        for entry in manifest["files"]:
            self.stdout.write(f"  {entry['name']}  {entry['bytes']} bytes  {entry['sha256']}")
