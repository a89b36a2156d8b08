"""Run a demo in a separate, resource-limited worker process, a few at a time per machine.

The worker is `python -m explorer.demos.worker` (JSON in on stdin, JSON out on stdout). It sets
its own CPU-time and address-space limits before it imports any demo, so a runaway demo is
stopped by the kernel; this process only enforces the wall-clock limit, by killing the worker.
A plain subprocess (no fork of the server, no pickling) keeps the server's threads, sockets and
memory out of the child.

Concurrency: `max_concurrent` lock files in `slot_dir`, taken with a non-blocking flock, cap the
runs across every server process on the machine; the kernel drops a lock when its holder dies.
The task workers (`explorer.demos.tasks`) pass `max_concurrent=None`: each worker process runs
one demo at a time, so the number of workers is the cap.

Progress: the worker writes JSON progress lines before its reply; `on_progress(fraction,
message)` hears the latest one every `HEARTBEAT_SECONDS` while the demo runs, also when nothing
new arrived, so a caller can use it as the heartbeat of a live run.
"""

import fcntl
import importlib
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .base import Demo, DemoError, validate_params

logger = logging.getLogger(__name__)

DEFAULT_REGISTRY = "explorer.demos:DEMOS"
DEFAULT_SLOT_DIR = Path(tempfile.gettempdir()) / "survey-explorer-demo-slots"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
RETRY_AFTER_SECONDS = 5
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
HEARTBEAT_SECONDS = 0.5
WALL_SECONDS = 15.0  # the default wall-clock limit of a run
ProgressCallback = Callable[[float, str], None]


class UnknownDemo(DemoError):
    """No demo has this slug."""


class DemoBusy(DemoError):
    """Every run slot is taken; try again after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: int = RETRY_AFTER_SECONDS) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class DemoLimitExceeded(DemoError):
    """The run hit a resource limit; `limit` is "cpu", "memory" or "wall"."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


def run_demo(
    slug: str,
    params: Mapping[str, object],
    *,
    cpu_seconds: float = 10,
    memory_bytes: int = 1_500_000_000,
    wall_seconds: float = WALL_SECONDS,
    max_concurrent: int | None = 2,
    slot_dir: Path | str | None = None,
    registry: str = DEFAULT_REGISTRY,
    on_progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Validate `params`, run the demo in a limited worker, return the run and its result.

    `registry` is a trusted "module:attribute" path to a {slug: Demo} dict that the worker
    imports; it exists so that tests can run tiny misbehaving demos. Never take it from a request.
    Returns {"slug", "version", "params" (canonical), "result", "elapsed_s" (wall time of the
    whole run, worker start-up included)}.
    """
    demo = find_demo(registry, slug)
    canonical = validate_params(demo, params)
    request = {
        "registry": registry,
        "slug": slug,
        "params": canonical,
        "cpu_seconds": cpu_seconds,
        "memory_bytes": memory_bytes,
    }
    with run_slot(Path(slot_dir) if slot_dir else DEFAULT_SLOT_DIR, max_concurrent):
        started = time.perf_counter()
        result = _run_worker(request, wall_seconds, on_progress)
        elapsed = time.perf_counter() - started
    return {
        "slug": slug,
        "version": demo.version,
        "params": canonical,
        "result": result,
        "elapsed_s": elapsed,
    }


def load_registry(path: str) -> dict[str, Demo]:
    module_name, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def find_demo(registry: str, slug: str) -> Demo:
    demos = load_registry(registry)
    if slug not in demos:
        raise UnknownDemo(f"unknown demo {slug!r}")
    return demos[slug]


@contextmanager
def run_slot(slot_dir: Path, count: int | None) -> Iterator[int | None]:
    """Hold one of `count` machine-wide slots for the duration of the block, or raise DemoBusy.
    `count=None` takes no slot (the caller bounds concurrency itself)."""
    if count is None:
        yield None
        return
    slot_dir.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        handle = open(slot_dir / f"slot-{index}.lock", "a")  # noqa: SIM115 - held across yield
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        try:
            yield index
        finally:
            handle.close()  # closing the file releases the lock
        return
    raise DemoBusy(f"all {count} demo slots are busy; retry in {RETRY_AFTER_SECONDS} s")


def _run_worker(
    request: dict[str, Any], wall_seconds: float, on_progress: ProgressCallback | None = None
) -> dict[str, Any]:
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer.demos.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=PROJECT_ROOT,
        env=_worker_environment(),
    )
    lines: queue.Queue[str | None] = queue.Queue()
    stderr: list[str] = []
    readers = [
        threading.Thread(target=_pump_lines, args=(process.stdout, lines), daemon=True),
        threading.Thread(target=lambda: stderr.append(process.stderr.read()), daemon=True),
    ]
    for reader in readers:
        reader.start()
    try:
        process.stdin.write(json.dumps(request))
        process.stdin.close()
    except BrokenPipeError:  # the worker died at once; its exit status tells why
        pass
    try:
        reply = _follow(lines, time.monotonic() + wall_seconds, on_progress)
    except subprocess.TimeoutExpired:
        raise DemoLimitExceeded(
            f"the demo ran out of time ({wall_seconds:g} s wall-clock limit)", "wall"
        ) from None
    finally:
        if process.poll() is None:  # out of time, or the progress callback failed
            process.kill()
            process.wait()
        for reader in readers:
            reader.join(timeout=5)
        _close_pipes(process)
    returncode = process.wait()
    completed = subprocess.CompletedProcess(process.args, returncode, reply, "".join(stderr))
    return _read_reply(completed, request)


def _close_pipes(process: subprocess.Popen) -> None:
    """The readers have met the end of the worker's output (or given up on it): the pipes are
    ours to close (left to the garbage collector, each raised a ResourceWarning)."""
    for stream in (process.stdout, process.stderr):
        stream.close()


def _pump_lines(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)  # end of the worker's output


def _follow(lines: queue.Queue, deadline: float, on_progress: ProgressCallback | None) -> str:
    """The worker's reply line, passing its progress on; TimeoutExpired at the deadline."""
    latest, reply, next_beat = (0.0, "started"), "", time.monotonic()
    while True:
        now = time.monotonic()
        if on_progress and now >= next_beat:
            on_progress(*latest)
            next_beat = now + HEARTBEAT_SECONDS
        wait = min(deadline, next_beat if on_progress else deadline) - now
        if now >= deadline:
            raise subprocess.TimeoutExpired("explorer.demos.worker", deadline)
        try:
            line = lines.get(timeout=max(wait, 0.001))
        except queue.Empty:
            continue
        if line is None:
            return reply
        message = _progress_line(line)
        if message is None:
            reply = line
        else:
            if latest == (0.0, "started"):  # the first step is reported at once, then each beat
                next_beat = time.monotonic()
            latest = message


def _progress_line(line: str) -> tuple[float, str] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if isinstance(message, dict) and set(message) == {"progress", "message"}:
        return float(message["progress"]), str(message["message"])
    return None


def _read_reply(completed: subprocess.CompletedProcess, request: dict[str, Any]) -> dict[str, Any]:
    if completed.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise DemoLimitExceeded(
            f"the demo ran out of CPU time ({request['cpu_seconds']:g} s CPU limit)", "cpu"
        )
    try:
        reply = json.loads(completed.stdout)
    except ValueError:
        reply = None
    if completed.returncode != 0 or not isinstance(reply, dict):
        logger.warning(
            "demo worker failed (exit %s): %s", completed.returncode, completed.stderr[-2000:]
        )
        if "MemoryError" in completed.stderr:
            raise _memory_error(request)
        raise DemoError("the demo stopped without a result")
    if reply.get("error") == "memory":
        raise _memory_error(request)
    if "error" in reply:
        raise DemoError(f"the demo failed: {reply.get('message', 'unknown error')}")
    return reply["result"]


def _memory_error(request: dict[str, Any]) -> DemoLimitExceeded:
    limit = request["memory_bytes"] / 1e9
    return DemoLimitExceeded(f"the demo ran out of memory ({limit:g} GB memory limit)", "memory")


def _worker_environment() -> dict[str, str]:
    """Numpy's thread pools pinned to one thread, and the project importable."""
    env = dict(os.environ) | SINGLE_THREAD
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    return env
