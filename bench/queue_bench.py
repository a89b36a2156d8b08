"""Demo-run queue benchmark: 100 queued runs drained by one worker, then by two, with readers
browsing meanwhile; then the time to detect a worker killed in the middle of a run.

    python -m bench.queue_bench                    # 100 runs, 1 then 2 workers, 4 readers
    python -m bench.queue_bench --runs 40 --workers 1 2 3 --readers 8

Builds a fresh SQLite file with the real survey (as bench/load_bench.py does), starts gunicorn
with production settings (throttling and queue caps raised so that they do not distort the
measurement) and `manage.py demo_worker` processes (the database task backend, as `make run`
and a deployment). Each phase queues `--runs` runs with fresh seeds over the API at once, then
measures until every run has ended: the drain time and runs per second, each run's own time
(`elapsed_s`: worker start-up and the demo), and the latency of the readers' pages (the
catalogue pages of load_bench, the run permalinks and the runs API) while the queue drains.
The lost-worker phase starts two workers with known ids, queues one slow run, SIGKILLs the worker
that took it once its progress shows, and times until the run leaves "running" (found by the
other worker's recovery thread) and until it succeeds on the other worker. Figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from bench.browse_bench import BIN, DATA, REPO, Timing, free_port, running
from bench.load_bench import (
    DEMO_SLUGS,
    PAGE_KINDS,
    TARGET_BROWSE_P95_MS,
    discover,
    load_average,
    prepare,
    send,
    server_env,
)

SLOW_RUN = ("data-parallel", {"P": 64, "B": 1024, "d": 1024, "steps": 100})  # a few seconds
QUEUE_ENV = {"DEMO_QUEUE_PER_CLIENT": "100000", "DEMO_QUEUE_TOTAL": "100000"}


def web_env(setup, lost_after: float) -> dict[str, str]:
    return (
        server_env(setup, high_rates=True, demo_slots=None)
        | QUEUE_ENV
        | {
            "DEMO_TASKS_BACKEND": "database",
            "DEMO_WORKER_LOST_AFTER": f"{lost_after:g}",
        }
    )


@contextmanager
def web(setup, workers: int, lost_after: float):
    port = free_port()
    command = [str(BIN / "gunicorn"), "explorer.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    command += ["--workers", str(workers), "--log-level", "warning", "--timeout", "120"]
    with running("gunicorn-queue", command, web_env(setup, lost_after), port, "/demos/") as server:
        yield server


@contextmanager
def demo_workers(setup, count: int, lost_after: float):
    """`count` demo_worker processes with ids bench-w1..; each in its own process group."""
    env = web_env(setup, lost_after)
    workers = {
        f"bench-w{index}": subprocess.Popen(
            [sys.executable, "manage.py", "demo_worker", "--no-reload", "--no-startup-delay"]
            + ["--worker-id", f"bench-w{index}", "--verbosity", "0"],
            cwd=REPO,
            env=env,
            start_new_session=True,
        )
        for index in range(1, count + 1)
    }
    try:
        time.sleep(3)  # Django's start-up: the phase measures the queue, not the imports
        yield workers
    finally:
        for worker in workers.values():
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            worker.wait()


def queue_run(port: int, slug: str, params: dict) -> int:
    body = json.dumps({"params": params}).encode()
    status, content, _ = send(port, "POST", f"/api/demos/{slug}/runs/", body)
    if status not in (200, 202):
        raise RuntimeError(f"queueing {slug}: {status} {content[:200]!r}")
    return json.loads(content)["id"]


def statuses(db: Path, ids: list[int]) -> dict[str, int]:
    with sqlite3.connect(db, timeout=30) as connection:
        marks = ",".join("?" * len(ids))
        rows = connection.execute(
            f"SELECT status, COUNT(*) FROM explorer_demorun WHERE id IN ({marks}) GROUP BY status",
            ids,
        )
        return dict(rows.fetchall())


def run_times(db: Path, ids: list[int]) -> list[float]:
    with sqlite3.connect(db, timeout=30) as connection:
        marks = ",".join("?" * len(ids))
        query = f"SELECT elapsed_s FROM explorer_demorun WHERE id IN ({marks}) AND elapsed_s > 0"
        return sorted(row[0] for row in connection.execute(query, ids))


def reader(port: int, plan, ids: list[int], slugs: dict[int, str], stop, timings, seed: int):
    """A closed loop over the catalogue pages, a run's permalink and its JSON, no think time."""
    rng = random.Random(seed)
    while not stop.is_set():
        choice = rng.random() if ids else 0.0
        if choice < 0.5:
            group, path = "pages", plan.path(rng.choice(PAGE_KINDS), rng)
        else:
            run = rng.choice(ids)
            group, path = (
                ("permalink", f"/demos/{slugs[run]}/runs/{run}/")
                if choice < 0.75
                else ("run api", f"/api/demos/runs/{run}/")
            )
        started = time.perf_counter()
        status = send(port, "GET", path)[0]
        if status == 200:
            timings[group].latencies.append(time.perf_counter() - started)
        else:
            timings["errors"].latencies.append(0.0)


def baseline_phase(setup, args, seconds: float = 30.0) -> list[str]:
    """The same readers on the catalogue pages with no demo running: the reference figure on
    this machine, as loaded as it is now."""
    timings = {name: Timing() for name in ("pages", "permalink", "run api", "errors")}
    with web(setup, args.web_workers, args.lost_after) as server:
        plan = discover(server, 0)
        stop = threading.Event()
        readers = [
            threading.Thread(
                target=reader, args=(server.port, plan, [], {}, stop, timings, n), daemon=True
            )
            for n in range(args.readers)
        ]
        for thread in readers:
            thread.start()
        time.sleep(seconds)
        stop.set()
        for thread in readers:
            thread.join()
    pages = timings["pages"]
    return [
        f"## baseline: {args.readers} readers, no demo runs, {seconds:.0f} s",
        f"pages      n={pages.n:<5} p50 {pages.p50:6.1f} ms  p95 {pages.p95:6.1f} ms; "
        f"load {load_average()}",
    ]


def drain_phase(setup, args, workers: int, seed_base: int) -> list[str]:
    lines = [f"## {args.runs} queued runs, {workers} worker(s), {args.readers} readers"]
    with web(setup, args.web_workers, args.lost_after) as server:
        plan = discover(server, seed_base)
        with demo_workers(setup, workers, args.lost_after):
            rng = random.Random(seed_base)
            slugs, ids = {}, []
            started = time.perf_counter()
            for index in range(args.runs):
                slug = rng.choice(DEMO_SLUGS)
                run = queue_run(server.port, slug, {"seed": seed_base + index})
                slugs[run] = slug
                ids.append(run)
            queued_in = time.perf_counter() - started
            timings = {name: Timing() for name in ("pages", "permalink", "run api", "errors")}
            stop = threading.Event()
            readers = [
                threading.Thread(
                    target=reader,
                    args=(server.port, plan, ids, slugs, stop, timings, seed_base + n),
                    daemon=True,
                )
                for n in range(args.readers)
            ]
            for thread in readers:
                thread.start()
            while statuses(setup.db, ids).keys() & {"queued", "running"}:
                if time.perf_counter() - started > args.timeout:
                    raise RuntimeError(
                        f"not drained in {args.timeout} s: {statuses(setup.db, ids)}"
                    )
                time.sleep(0.25)
            drained = time.perf_counter() - started
            stop.set()
            for thread in readers:
                thread.join()
    own = run_times(setup.db, ids)
    lines.append(f"queued {args.runs} runs over the API in {queued_in:.1f} s")
    lines.append(
        f"drained in {drained:.1f} s: {args.runs / drained:.2f} runs/s; outcomes "
        f"{statuses(setup.db, ids)}"
    )
    if own:
        lines.append(
            f"a run's own time (worker process start-up + demo): median "
            f"{own[len(own) // 2]:.2f} s, max {own[-1]:.2f} s, sum {sum(own):.0f} s"
        )
    for group in ("pages", "permalink", "run api"):
        timing = timings[group]
        if timing.n:
            lines.append(
                f"{group:<10} n={timing.n:<5} p50 {timing.p50:6.1f} ms  p95 {timing.p95:6.1f} ms"
            )
    pages_p95 = timings["pages"].p95 if timings["pages"].n else float("nan")
    verdict = "met" if pages_p95 < TARGET_BROWSE_P95_MS else "MISSED"
    lines.append(
        f"target pages p95 < {TARGET_BROWSE_P95_MS:.0f} ms while the queue drains: "
        f"{pages_p95:.1f} ms -> {verdict}; errors {timings['errors'].n}; load {load_average()}"
    )
    return lines


def worker_of(db: Path, run: int) -> tuple[str, str, float]:
    with sqlite3.connect(db, timeout=30) as connection:
        return connection.execute(
            "SELECT status, worker_id, progress FROM explorer_demorun WHERE id = ?", (run,)
        ).fetchone()


def lost_worker_phase(setup, args) -> list[str]:
    lines = [f"## lost worker (DEMO_WORKER_LOST_AFTER={args.lost_after:g} s)"]
    with (
        web(setup, args.web_workers, args.lost_after) as server,
        demo_workers(setup, 2, args.lost_after) as workers,
    ):
        slug, params = SLOW_RUN
        run = queue_run(server.port, slug, {**params, "seed": random.randrange(10**6)})
        deadline = time.monotonic() + args.timeout
        while (state := worker_of(setup.db, run))[0] != "running" or state[2] <= 0:
            if time.monotonic() > deadline:
                raise RuntimeError(f"run {run} never got under way: {state}")
            time.sleep(0.05)
        killed = time.perf_counter()
        os.kill(workers[state[1]].pid, signal.SIGKILL)  # the worker only, as a crash would
        while worker_of(setup.db, run)[0] == "running":
            time.sleep(0.05)
        detected = time.perf_counter() - killed
        while (status := worker_of(setup.db, run)[0]) not in ("succeeded", "failed"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"run {run} never ended")
            time.sleep(0.1)
        ended = time.perf_counter() - killed
    lines.append(f"killed {state[1]} at {state[2]:.0%} of the run")
    lines.append(f"lost worker detected (run queued again) {detected:.1f} s after the SIGKILL")
    lines.append(f"the run {status} on the other worker {ended:.1f} s after the SIGKILL")
    return lines


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--lost-after", type=float, default=10.0)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--skip-lost", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, load {load_average()}", flush=True)
    DATA.mkdir(exist_ok=True)  # the servers' logs
    with tempfile.TemporaryDirectory(prefix="queue-bench-") as tmp:
        setup = prepare(Path(tmp), 0, "")
        print("\n".join(baseline_phase(setup, args)), flush=True)
        for phase, workers in enumerate(args.workers, start=1):
            print("\n".join(drain_phase(setup, args, workers, phase * 100_000)), flush=True)
        if not args.skip_lost:
            print("\n".join(lost_worker_phase(setup, args)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
