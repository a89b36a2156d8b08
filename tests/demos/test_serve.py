"""`make run`'s command, `manage.py serve`: the web server and a demo worker together; Ctrl-C
(SIGINT) stops both."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from django.conf import settings as django_settings

from tests.helpers import database_url

DEADLINE = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, body: dict | None = None) -> dict | None:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=10) as r:
            return json.loads(r.read())
    except OSError:
        return None


def poll(condition, what: str):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if (value := condition()) is not None:
            return value
        time.sleep(0.3)
    pytest.fail(f"not within {DEADLINE} s: {what}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_serve_runs_the_web_server_and_a_worker_and_ctrl_c_stops_both(transactional_db):
    port = free_port()
    env = os.environ | {"DATABASE_URL": database_url(), "DEMO_TASKS_BACKEND": "database"}
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}"],
        cwd=django_settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        banner = serve.stdout.readline()
        pids = [int(pid) for pid in banner.split("(pids ")[1].rstrip(")\n").split(", ")]
        assert banner.startswith(f"web server on http://127.0.0.1:{port}/ and 1 demo worker(s)")
        base = f"http://127.0.0.1:{port}/api/demos"
        queued = poll(
            lambda: fetch(f"{base}/pipeline-bubble/runs/", {"params": {"M": 9}}), "it serves"
        )
        assert queued["status"] == "queued"

        def succeeded() -> dict | None:
            run = fetch(f"{base}/runs/{queued['id']}/")
            return run if run and run["status"] == "succeeded" else None

        run = poll(succeeded, "the worker runs the demo")
        assert run["params"]["M"] == 9
    finally:
        serve.send_signal(signal.SIGINT)  # what Ctrl-C in the terminal sends
        code = serve.wait(timeout=60)
        serve.stdout.close()
    assert code == 0
    assert [pid for pid in pids if alive(pid)] == []
