"""`manage.py serve [addr:port] [--workers N]`: the development server and N demo workers
(default 1), supervised together: a worker that dies is started again, and Ctrl-C (or SIGTERM)
stops everything (each worker finishes its current run first, for at most `STOP_GRACE` s).
This is what `make run` starts; a deployment runs gunicorn and `demo_worker` under its own
process manager instead.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

STOP_GRACE = 20.0  # seconds: the wall-clock limit of a run (15 s) plus its start-up
RESTART_DELAY = 1.0


class Command(BaseCommand):
    help = "Run the development web server and the demo workers; Ctrl-C stops them all"

    def add_arguments(self, parser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--workers", type=int, default=1, help="demo workers (default 1)")

    def handle(self, *args, addrport: str, workers: int, **options) -> None:
        if not 1 <= workers <= 16:
            raise CommandError("--workers must be between 1 and 16")
        if settings.DEMO_TASKS_BACKEND != "database":
            workers = 0  # the immediate backend runs demos inside the requests
        self.stopping = False
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self.stop)
        web = self.start("runserver", addrport)
        pool = [self.start("demo_worker", "--no-reload") for _ in range(workers)]
        pids = ", ".join(str(process.pid) for process in [web, *pool])
        self.stdout.write(
            f"web server on http://{addrport}/ and {workers} demo worker(s) (pids {pids})",
        )
        self.stdout.flush()
        code = self.supervise(web, pool)
        self.terminate([web, *pool])
        sys.exit(code)

    def start(self, command: str, *arguments: str) -> subprocess.Popen:
        manage = Path(settings.BASE_DIR) / "manage.py"
        # A session of its own: the terminal's Ctrl-C reaches this supervisor only, which then
        # stops each child's whole process group (runserver's reloader has a child too).
        return subprocess.Popen(
            [sys.executable, str(manage), command, *arguments], start_new_session=True
        )

    def supervise(self, web: subprocess.Popen, pool: list[subprocess.Popen]) -> int:
        while not self.stopping:
            if web.poll() is not None:
                self.stderr.write(f"the web server stopped (exit {web.returncode})")
                return web.returncode or 1
            for index, worker in enumerate(pool):
                if worker.poll() is not None and not self.stopping:
                    code = worker.returncode
                    self.stderr.write(f"a demo worker stopped (exit {code}); restarting")
                    time.sleep(RESTART_DELAY)
                    pool[index] = self.start("demo_worker", "--no-reload")
            time.sleep(0.2)
        return 0

    def stop(self, signum, frame) -> None:
        self.stopping = True

    def terminate(self, processes: list[subprocess.Popen]) -> None:
        for process in processes:
            self.signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for process in processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.signal_group(process, signal.SIGKILL)
                process.wait()

    @staticmethod
    def signal_group(process: subprocess.Popen, signum: int) -> None:
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            pass
