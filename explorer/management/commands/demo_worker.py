"""`manage.py demo_worker`: a worker for the demo-run queue.

django-tasks-db's `db_worker` (same options: --interval, --max-tasks, --batch, --worker-id...)
plus a thread that recovers runs whose worker was lost (`recover_lost_runs`) once a second. Run
any number of them, on any machine that reaches the database (PostgreSQL beyond one machine);
each runs one demo at a time. SIGINT or SIGTERM finishes the current run, then stops.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from django.db import DatabaseError, close_old_connections
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from explorer.demos.tasks import recover_lost_runs

logger = logging.getLogger(__name__)

RECOVERY_INTERVAL = 1.0  # seconds; a lost run is found at most this long after it is overdue


def recover_forever(interval: float = RECOVERY_INTERVAL) -> None:
    while True:
        try:
            close_old_connections()
            recover_lost_runs()
        except DatabaseError:  # a locked SQLite file or a restarting database: next round
            logger.warning("recovering lost demo runs failed; retrying", exc_info=True)
        time.sleep(interval)


class Command(db_worker.Command):
    help = "Run demo runs from the queue (django-tasks-db's worker plus lost-run recovery)"

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        # Half a second between two looks at an empty queue: a run starts soon after "Run".
        parser.set_defaults(interval=0.5)

    def handle(self, *args, **options) -> None:
        in_reloader_parent = options["reload"] and os.environ.get(DJANGO_AUTORELOAD_ENV) != "true"
        if not in_reloader_parent:  # the process that runs tasks also recovers lost ones
            threading.Thread(target=recover_forever, name="recover-lost-runs", daemon=True).start()
        super().handle(*args, **options)
