"""Worker process for `runner.run_demo`: `python -m explorer.demos.worker`.

Reads {"registry", "slug", "params", "cpu_seconds", "memory_bytes"} as JSON on stdin, limits
itself, runs the demo and writes JSON lines on stdout: progress reports {"progress": 0.4,
"message": "round 2 of 5"} while the demo runs (at most ten a second), then one reply:
{"result": ...} or {"error": "memory" | "exception", "message": ...}. Tracebacks go to stderr
only, which the parent logs and never shows to a user.
"""

import json
import math
import resource
import sys
import time
import traceback
from typing import Any, TextIO

MESSAGE_LIMIT = 200
PROGRESS_INTERVAL = 0.1  # seconds between two progress lines: a tight loop cannot flood the pipe


def limit_resources(cpu_seconds: float, memory_bytes: int) -> None:
    """Kernel-enforced limits: SIGXCPU at the CPU limit (SIGKILL one second later), and
    allocations beyond the address-space limit fail with MemoryError."""
    cpu = math.ceil(cpu_seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would otherwise dump core


def handle(request: dict[str, Any]) -> dict[str, Any]:
    limit_resources(request["cpu_seconds"], request["memory_bytes"])
    try:
        # `python -m` has imported the explorer.demos package (and its demos) already; a
        # registry given by path, such as the tests' tiny demos, is imported under the limits.
        from explorer.demos.base import run_in_process
        from explorer.demos.runner import load_registry

        demo = load_registry(request["registry"])[request["slug"]]
        return {"result": run_in_process(demo, request["params"])}
    except MemoryError:
        return {"error": "memory"}
    except Exception as error:  # a demo bug must become a clean reply, not a crash
        traceback.print_exc(file=sys.stderr)
        message = f"{type(error).__name__}: {error}".splitlines()[0][:MESSAGE_LIMIT]
        return {"error": "exception", "message": message}


def progress_writer(stdout: TextIO):
    """A progress hook writing one JSON line per report, skipping reports that come too fast."""
    last_sent = -math.inf

    def write(fraction: float, message: str) -> None:
        nonlocal last_sent
        now = time.monotonic()
        if now - last_sent < PROGRESS_INTERVAL:
            return
        last_sent = now
        stdout.write(json.dumps({"progress": fraction, "message": message}) + "\n")
        stdout.flush()

    return write


def main(stdin: TextIO, stdout: TextIO) -> None:
    from explorer.demos.base import set_progress_hook

    request = json.load(stdin)
    sys.stdout = sys.stderr  # stray prints from a demo must not corrupt the reply
    set_progress_hook(progress_writer(stdout))
    reply = handle(request)
    stdout.write(json.dumps(reply, allow_nan=False) + "\n")
    stdout.flush()


if __name__ == "__main__":
    main(sys.stdin, sys.stdout)
