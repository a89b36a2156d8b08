"""gunicorn server hooks for bench/load_bench.py: the CPU time of each request (its own thread's,
from the request read to the response written), by the kind of request the client names in the
X-Bench-Kind header, appended to one file per worker in the folder $BENCH_CPU_LOG.

    gunicorn --config python:bench.gunicorn_cpu explorer.wsgi:application

The app knows nothing of it: the hooks run in gunicorn's worker around the WSGI call.
"""

from __future__ import annotations

import os
import threading
import time

_local = threading.local()
_lock = threading.Lock()
_files: dict[int, object] = {}


def pre_request(worker, req) -> None:
    _local.started = time.thread_time_ns()


def post_request(worker, req, environ, resp) -> None:
    started = getattr(_local, "started", None)
    if started is None:
        return
    cpu_ns = time.thread_time_ns() - started
    kind = environ.get("HTTP_X_BENCH_KIND", "-")
    with _lock:
        log = _files.get(os.getpid())
        if log is None:
            path = os.path.join(os.environ["BENCH_CPU_LOG"], f"{os.getpid()}.tsv")
            log = _files[os.getpid()] = open(path, "a", buffering=1)  # noqa: SIM115
        log.write(f"{kind}\t{cpu_ns}\n")
