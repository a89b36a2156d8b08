"""Worker process for `runner.run_demo`: `python -m explorer.demos.worker`.

Reads {"registry", "slug", "params", "cpu_seconds", "memory_bytes"} as JSON on stdin, limits
itself, runs the demo and writes one JSON reply on stdout: {"result": ...} or
{"error": "memory" | "exception", "message": ...}. Tracebacks go to stderr only, which the
parent logs and never shows to a user.
"""

import json
import math
import resource
import sys
import traceback
from typing import Any, TextIO

MESSAGE_LIMIT = 200


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


def main(stdin: TextIO, stdout: TextIO) -> None:
    request = json.load(stdin)
    sys.stdout = sys.stderr  # stray prints from a demo must not corrupt the reply
    reply = handle(request)
    stdout.write(json.dumps(reply, allow_nan=False))
    stdout.flush()


if __name__ == "__main__":
    main(sys.stdin, sys.stdout)
