"""Load benchmark: mixed browsing, API and demo traffic against gunicorn with production settings.

    python -m bench.load_bench                        # 60 s of load, then the throttling check
    python -m bench.load_bench --seconds 30 --baseline-seconds 20
    python -m bench.load_bench --demo-nice 10         # experiment: demo workers at nice 10

Builds a fresh SQLite file with the real survey (`migrate` + `load_survey`) and collects the static
files, both in a temporary directory, then starts gunicorn on a free loopback port with production
settings (DEBUG=false, SECURE_SSL_REDIRECT=false, throttling rates raised so that they do not
distort the measurement). `--clients` threads browse the pages and call the API, with a new
connection per request and no think time (a closed loop), while `--demo-clients` threads keep the
demo run slots saturated with fresh seeds. Prints throughput and p50/p95/p99 latencies per group,
errors, demo outcomes and where the CPU went. A second, short phase restarts the server at the
default throttling rates and checks that the API and demo runs do answer 429. Every server is
stopped at the end, on error too.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from bench import synthetic
from bench.browse_bench import BIN, DATA, REPO, Server, Timing, free_port, optional, running

# Default runtime through the runner about 0.6-1.2 s on this machine (bench/demos_bench.py).
DEMO_SLUGS = ["large-minibatch", "model-parallel", "gossip-averaging", "consistency-sgd"]
DEMO_BUSY_PAUSE = 0.2  # s: a demo client retries this soon after a 429, to keep the slots full
HIGH_RATE = "1000000/minute"
REQUEST_TIMEOUT = 60.0
TARGET_BROWSE_P95_MS = 200.0

WORKS_FILTERS = [
    {},
    {"level": "train"},
    {"level": "ops", "year_min": "2014"},
    {"q": "gradient"},
    {"category": "train-cons-async"},
    {"evidence": "confirmed", "ordering": "-year"},
    {"level": "net", "q": "parallel", "year_min": "2012"},
    {"year_min": "2016", "year_max": "2018", "ordering": "title"},
]
CITATION_FILTERS = [{}, {"page": "2"}, {"provenance": "reference-list-note"}]
# The planner (page and API): the networks people plan, at a few sizes, so that most requests
# compute a plan (a P or network the process has not kept yet) rather than read a kept default.
PLANS = [
    {"network": "resnet-50"},
    {"network": "gpt3-175b"},
    {"network": "llama2-70b", "device": "h100-sxm"},
    {"network": "llama3.1-405b", "device": "h100-sxm"},
    {"network": "megatron-1t", "machine": "a100-cluster"},
]
PLAN_SIZES = ["", "32", "256", "1024", "4096"]
COST_SIZES = ["", "16", "64", "256"]
HUBS = ["train", "net", "net-pipe", "ops"]


@dataclass
class Outcome:
    group: str  # "pages", "api" or "demos"
    kind: str  # the path without its variable part, e.g. "/works/<key>/"
    status: int  # 0: connection error or timeout
    seconds: float
    note: str = ""  # an error's message, a 429's reason, "cached" for a cached demo result
    run_seconds: float = 0.0  # a demo run's own time (elapsed_s: worker start-up and run)


PAGE_KINDS = [
    "/",
    "/works/?<filter>",
    "/works/<key>/",
    "/categories/",
    "/graph/",
    "/costs/",
    "/techniques/",
    "/demos/",
    "/planner/?<plan>",
    "/costs/?<P>",
    "/categories/<hub>/",
    "/data-quality/",
]
API_KINDS = [
    "/api/works/?<filter>",
    "/api/works/<key>/",
    "/api/categories/",
    "/api/citations/",
    "/api/graph/?format=json",
    "/api/cost-models/<id>/evaluate/",
    "/api/planner/?<plan>",
]


@dataclass
class TrafficPlan:
    """What the browsing clients ask for: the API with probability `api_share`, else a page; a
    kind of request picked uniformly within its group, then its variable part (a work key, a
    filter, a cost model's variables). `only`: the kinds to keep (an experiment), empty: all."""

    keys: list[str]
    cost_models: list[dict]
    api_share: float = 0.4
    only: frozenset[str] = frozenset()

    def kinds(self, group: str) -> list[str]:
        kinds = PAGE_KINDS if group == "pages" else API_KINDS
        return [kind for kind in kinds if not self.only or kind in self.only]

    def pick(self, rng: random.Random) -> tuple[str, str, str]:
        api = rng.random() < self.api_share
        group = "api" if api and self.kinds("api") or not self.kinds("pages") else "pages"
        kind = rng.choice(self.kinds(group))
        return group, kind, self.path(kind, rng)

    def path(self, kind: str, rng: random.Random) -> str:
        if kind.endswith("?<filter>"):
            return kind.removesuffix("?<filter>") + query(rng.choice(WORKS_FILTERS))
        if "<key>" in kind:
            return kind.replace("<key>", rng.choice(self.keys))
        if kind == "/api/citations/":
            return kind + query(rng.choice(CITATION_FILTERS))
        if kind.endswith("?<plan>"):
            return kind.removesuffix("?<plan>") + plan_query(rng)
        if kind.endswith("?<P>"):
            return kind.removesuffix("?<P>") + query(
                {"P": size} if (size := rng.choice(COST_SIZES)) else {}
            )
        if "<hub>" in kind:
            return kind.replace("<hub>", rng.choice(HUBS))
        if "<id>" in kind:
            return self.evaluate_path(rng)
        return kind

    def evaluate_path(self, rng: random.Random) -> str:
        model = rng.choice(self.cost_models)
        values = {}
        for variable in model["variables"]:
            scaled = variable["default"] * rng.choice([1, 2, 4])
            values[variable["name"]] = str(min(scaled, variable["max"]))
        return f"/api/cost-models/{model['id']}/evaluate/" + query(values)


def plan_query(rng: random.Random) -> str:
    params = dict(rng.choice(PLANS))
    if size := rng.choice(PLAN_SIZES):
        params["P"] = size
    return query(params)


def query(params: dict[str, str]) -> str:
    return "?" + urllib.parse.urlencode(params) if params else ""


def send(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    source: str = "127.0.0.1",
    extra: dict[str, str] | None = None,
) -> tuple[int, bytes, dict]:
    """One request on a new connection (as a browser behind no proxy, or urllib, would), from
    the loopback address `source` (the server sees it as the client's address)."""
    headers = {"Accept": "text/html" if not path.startswith("/api/") else "application/json"}
    headers["Connection"] = "close"
    if body is not None:
        headers["Content-Type"] = "application/json"
    headers |= extra or {}
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=REQUEST_TIMEOUT, source_address=(source, 0)
    )
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read(), dict(response.getheaders())
    finally:
        conn.close()


def timed(port: int, group: str, kind: str, method: str, path: str, body=None) -> Outcome:
    started = time.perf_counter()
    try:
        # The kind, for the server's CPU log (bench/gunicorn_cpu.py; the app ignores it).
        status, content, _ = send(port, method, path, body, extra={"X-Bench-Kind": kind})
    except (OSError, http.client.HTTPException) as error:
        return Outcome(group, kind, 0, time.perf_counter() - started, f"{path}: {error!r}")
    seconds = time.perf_counter() - started
    if status == 429:
        return Outcome(group, kind, status, seconds, throttle_reason(content))
    if status != 200:
        return Outcome(group, kind, status, seconds, f"{path}: {content[:200]!r}")
    if group == "demos":
        run = json.loads(content)
        note = "cached" if run["cached"] else ""
        return Outcome(group, kind, status, seconds, note, run_seconds=run["elapsed_s"])
    return Outcome(group, kind, status, seconds)


def throttle_reason(content: bytes) -> str:
    """DRF's throttle says "Request was throttled"; the demo runner says its slots are busy."""
    return "throttled" if b"throttled" in content else "busy"


# The clients ------------------------------------------------------------------------------------


def browse_client(
    port: int, plan: TrafficPlan, seed: int, deadline: float, max_requests: int, think: float
) -> list[Outcome]:
    rng = random.Random(seed)
    outcomes = []
    for _ in range(max_requests):
        if time.monotonic() >= deadline:
            break
        group, kind, path = plan.pick(rng)
        outcomes.append(timed(port, group, kind, "GET", path))
        if think:
            time.sleep(rng.expovariate(1 / think))
    return outcomes


def demo_client(port: int, seeds, deadline: float, max_requests: int) -> list[Outcome]:
    """POST demo runs with fresh seeds (a seed is never asked twice, so nothing comes from the
    result cache); after a 429 (all slots busy) try again soon, so that the slots stay full."""
    outcomes = []
    for _ in range(max_requests):
        if time.monotonic() >= deadline:
            break
        seed = next(seeds)
        slug = DEMO_SLUGS[seed % len(DEMO_SLUGS)]
        body = json.dumps({"params": {"seed": seed}}).encode()
        outcome = timed(port, "demos", slug, "POST", f"/api/demos/{slug}/run/", body)
        outcomes.append(outcome)
        if outcome.status != 200:
            time.sleep(DEMO_BUSY_PAUSE)
    return outcomes


class Seeds:
    """Thread-safe fresh seeds."""

    def __init__(self, start: int):
        self._next = start
        self._lock = threading.Lock()

    def __iter__(self):
        return self

    def __next__(self) -> int:
        with self._lock:
            self._next += 1
            return self._next


def run_clients(targets: list) -> list[Outcome]:
    """Run each callable in its own thread; every outcome, once all have returned. A client
    that fails (a bug here, not a bad response) fails the run."""
    results: list[list[Outcome]] = [[] for _ in targets]
    failures: list[BaseException] = []

    def call(index: int) -> None:
        try:
            results[index] = targets[index]() or []
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=call, args=(i,), daemon=True) for i in range(len(targets))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return [outcome for result in results for outcome in result]


# CPU accounting ---------------------------------------------------------------------------------


@dataclass
class CpuSample:
    machine_busy: float  # CPU seconds, all processes, since boot
    web: float  # gunicorn workers' own CPU seconds
    demos: float  # CPU seconds of the workers' reaped children: the demo subprocesses
    bench: float  # this process (the load generator)
    at: float


def cpu_sample(pid_file: Path) -> CpuSample:
    tick = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    busy = (sum(fields[:8]) - fields[3] - fields[4]) / tick  # minus idle and iowait
    web = demos = 0.0
    master = int(pid_file.read_text().strip())
    for pid in child_pids(master):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                after_name = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        utime, stime, cutime, cstime = (int(x) for x in after_name[11:15])
        web += (utime + stime) / tick
        demos += (cutime + cstime) / tick
    times = os.times()
    return CpuSample(busy, web, demos, times.user + times.system, time.monotonic())


def child_pids(parent: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent:
            pids.append(int(entry))
    return pids


def database_cpu(database: str) -> float:
    """CPU seconds of the PostgreSQL backends serving `database` (their process titles name it:
    "postgres: [cluster:] user database host(port) ..."); 0 for SQLite (the workers' own)."""
    if not database:
        return 0.0
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                title = cmdline.read().split(b"\0")[0].decode(errors="replace").split()
            if title[:1] != ["postgres:"] or database not in title[1:4]:
                continue
            with open(f"/proc/{entry}/stat") as stat:
                after_name = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += (int(after_name[11]) + int(after_name[12])) / tick
    return total


@dataclass
class CpuSpent:
    """Core-seconds by consumer over the measured time, added up over rounds."""

    wall: float = 0.0
    spent: dict[str, float] = field(default_factory=dict)
    machine: float = 0.0

    def add(self, before: CpuSample, after: CpuSample, db_before: float, db_after: float):
        self.wall += after.at - before.at
        parts = {
            "gunicorn workers (web)": after.web - before.web,
            "PostgreSQL backends (database)": max(0.0, db_after - db_before),
            "demo subprocesses": after.demos - before.demos,
            "load generator (this process)": after.bench - before.bench,
        }
        machine = after.machine_busy - before.machine_busy
        parts["everything else on the machine"] = max(0.0, machine - sum(parts.values()))
        for name, seconds in parts.items():
            self.spent[name] = self.spent.get(name, 0.0) + seconds
        self.machine += machine


def cpu_lines(cpu: CpuSpent, requests: int) -> list[str]:
    """Where the CPU went; `requests`: the pages and API requests served, for the web CPU each."""
    wall = cpu.wall
    cores = os.cpu_count() or 1
    lines = [f"CPU over {wall:.0f} s on {cores} cores ({wall * cores:.0f} core-seconds available):"]
    for name, seconds in cpu.spent.items():
        lines.append(f"  {name:<32} {seconds:7.1f} core-s  {seconds / wall:5.2f} cores")
    lines.append(
        f"  {'machine busy':<32} {cpu.machine:7.1f} core-s  {cpu.machine / wall:5.2f} cores"
    )
    if requests:
        web_ms = cpu.spent["gunicorn workers (web)"] / requests * 1000
        db_ms = cpu.spent["PostgreSQL backends (database)"] / requests * 1000
        lines.append(
            f"  CPU per page or API request: web {web_ms:.1f} ms, "
            f"database {db_ms:.1f} ms on average"
        )
    return lines


def read_cpu_log(folder: Path) -> list[tuple[str, float]]:
    """(kind, CPU ms) of each request the workers logged (bench/gunicorn_cpu.py), emptying it."""
    requests = []
    for path in folder.glob("*.tsv"):
        text = path.read_text()
        path.write_text("")  # the worker appends; the next phase starts from nothing
        for line in text.splitlines():
            kind, _, nanoseconds = line.partition("\t")
            if nanoseconds.isdigit():
                requests.append((kind, int(nanoseconds) / 1e6))
    return requests


def cpu_by_kind_lines(requests: list[tuple[str, float]]) -> list[str]:
    """CPU per request by kind (the request's own thread in the worker, as the hooks measured
    it), and each kind's share of the web CPU."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, ms in requests:
        by_kind[kind].append(ms)
    total = sum(ms for _, ms in requests) or 1.0
    lines = [
        "web CPU by kind of request (each request's thread, from gunicorn's hooks):",
        f"  {'kind':<34} {'n':>5} {'mean ms':>8} {'p50 ms':>7} {'p95 ms':>7} {'share':>6}",
    ]
    ranked = sorted(by_kind.items(), key=lambda item: -sum(item[1]))
    for kind, values in ranked:
        timing = Timing([v / 1000 for v in values])
        lines.append(
            f"  {kind:<34} {len(values):>5} {sum(values) / len(values):>8.1f} "
            f"{timing.p50:>7.1f} {timing.p95:>7.1f} {sum(values) / total:>6.0%}"
        )
    mean = total / max(1, len(requests))
    lines.append(f"  {'all (mean)':<34} {len(requests):>5} {mean:>8.1f}")
    return lines


# The server -------------------------------------------------------------------------------------


@dataclass
class Setup:
    db: Path
    static_root: Path
    site_dir: Path | None  # a sitecustomize.py that renices the demo workers (experiment)
    cache_url: str = ""  # CACHE_URL: a shared cache (default: the app's, in-process)
    database_url: str = ""  # PostgreSQL (--database-url), else the SQLite file `db`
    cpu_log: Path | None = None  # where the workers log each request's CPU

    @property
    def database_name(self) -> str:
        return urllib.parse.urlparse(self.database_url).path.lstrip("/")


def prepare(tmp: Path, demo_nice: int, cache_url: str, database_url: str = "") -> Setup:
    """A fresh database with the real survey, and the static files collected, side by side."""
    db = tmp / "load.sqlite3"
    setup = Setup(db, tmp / "static", None, cache_url, database_url, tmp / "cpu")
    setup.cpu_log.mkdir()
    started = time.perf_counter()
    collect = subprocess.Popen(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=REPO,
        env=server_env(setup, high_rates=True, demo_slots=None),
    )
    try:
        if database_url:
            fresh_postgresql(database_url)
        manage(setup, "migrate", "--noinput", "-v", "0")
        manage(setup, "load_survey", "-v", "0")
        if collect.wait(timeout=300) != 0:
            raise RuntimeError(f"collectstatic failed ({collect.returncode})")
    finally:
        if collect.poll() is None:
            collect.kill()
            collect.wait()
    if demo_nice:
        setup.site_dir = tmp / "site"
        setup.site_dir.mkdir()
        (setup.site_dir / "sitecustomize.py").write_text(
            "import os, sys\n"
            "if 'explorer.demos.worker' in getattr(sys, 'orig_argv', ()):\n"
            f"    os.nice({demo_nice})\n"
        )
    print(f"database and static files ready in {time.perf_counter() - started:.0f} s", flush=True)
    return setup


def fresh_postgresql(url: str) -> None:
    """Drop and create the database of `url` (a PostgreSQL URL), through its server's
    `postgres` database."""
    import psycopg

    parts = urllib.parse.urlparse(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def manage(setup: Setup, *args: str) -> None:
    """manage.py against the bench's database (SQLite file or PostgreSQL)."""
    synthetic.manage_url(setup.database_url or f"sqlite:///{setup.db}", *args)


def server_env(setup: Setup, high_rates: bool, demo_slots: int | None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("API_ANON_RATE", "DEMO_RUN_RATE", "PYTHONPATH", "CACHE_URL")
    }
    env |= {
        "DATABASE_URL": setup.database_url or f"sqlite:///{setup.db}",
        "SECRET_KEY": "load-bench-not-secret-" + "x" * 40,
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "STATIC_ROOT": str(setup.static_root),
        "LOG_LEVEL": "WARNING",
    }
    if high_rates:
        env |= {"API_ANON_RATE": HIGH_RATE, "DEMO_RUN_RATE": HIGH_RATE}
    # Demo runs queue for `demo_slots` demo_worker processes (see `gunicorn` below); the queue
    # caps are raised like the rates, so that the clients measure the queue, not its limits.
    env |= {"DEMO_TASKS_BACKEND": "database", "DEMO_QUEUE_PER_CLIENT": "100000"}
    if setup.site_dir:
        env["PYTHONPATH"] = str(setup.site_dir)
    if setup.cache_url:
        env["CACHE_URL"] = setup.cache_url
    if setup.cpu_log:
        env["BENCH_CPU_LOG"] = str(setup.cpu_log)
    return env


@contextmanager
def gunicorn(setup: Setup, args, name: str, high_rates: bool, code: Path = REPO):
    """gunicorn serving the code in `code` (the repository, or --before's checkout), with the
    CPU hooks of bench/gunicorn_cpu.py (from this repository, whichever code it serves)."""
    port = free_port()
    pid_file = setup.db.parent / f"{name}.pid"
    command = [str(BIN / "gunicorn"), "explorer.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    command += ["--config", str(REPO / "bench" / "gunicorn_cpu.py")]
    command += ["--worker-class", args.worker_class, "--workers", str(args.workers)]
    if args.worker_class == "gthread":
        command += ["--threads", str(args.threads)]
    command += ["--log-level", "warning", "--timeout", "120", "--pid", str(pid_file)]
    env = server_env(setup, high_rates, args.demo_slots)
    workers = [
        subprocess.Popen(
            [sys.executable, "manage.py", "demo_worker", "--no-reload", "--verbosity", "0"],
            cwd=code,
            env=env,
            start_new_session=True,
        )
        for _ in range(args.demo_slots or 2)
    ]
    try:
        with running(name, command, env, port, "/api/categories/", cwd=code) as server:
            yield server, pid_file
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait()


def discover(server: Server, seed: int) -> TrafficPlan:
    """Work keys and cost models to ask for, from the API itself."""
    keys = [work["key"] for work in server.json("/api/works/?page_size=500")["results"]]
    models = [m for m in server.json("/api/cost-models/") if m["variables"]]
    rng = random.Random(seed)
    return TrafficPlan(rng.sample(keys, min(30, len(keys))), models)


def warm_up(server: Server, plan: TrafficPlan, rounds: int = 2) -> None:
    """Every kind of request a few times, untimed: each worker process fills its caches."""
    rng = random.Random(0)
    for _ in range(rounds):
        for kind in PAGE_KINDS + API_KINDS:
            path = plan.path(kind, rng)
            status = send(server.port, "GET", path)[0]
            if status != 200:
                raise RuntimeError(f"warm-up GET {path}: {status}")


# Phases -----------------------------------------------------------------------------------------


def load_phase(
    server: Server,
    pid_file: Path,
    plan: TrafficPlan,
    args,
    seconds: float,
    demo_clients: int,
    cpu: CpuSpent,
) -> tuple[list[Outcome], float]:
    deadline = time.monotonic() + seconds
    seeds = Seeds(random.Random(args.seed).randrange(1_000_000, 1_000_000_000))
    targets = [
        lambda i=i: browse_client(
            server.port, plan, args.seed * 1000 + i, deadline, args.max_requests, args.think
        )
        for i in range(args.clients)
    ]
    targets += [
        lambda: demo_client(server.port, seeds, deadline, args.max_requests)
        for _ in range(demo_clients)
    ]
    before, db_before = cpu_sample(pid_file), database_cpu(args.database_name)
    started = time.monotonic()
    outcomes = run_clients(targets)
    elapsed = time.monotonic() - started
    cpu.add(before, cpu_sample(pid_file), db_before, database_cpu(args.database_name))
    return outcomes, elapsed


@dataclass
class Burst:
    """One throttling case: `clients` threads send the same request from `source`, no pause,
    until enough throttled 429s have come back (or `cap` requests, or the deadline). `spoof`:
    each request with a made-up X-Forwarded-For, as any client may send."""

    label: str
    method: str
    path: str
    body: bytes | None
    source: str
    clients: int
    cap: int
    spoof: bool = False
    enough: int = 50
    seen: list[tuple[int, str, str]] = field(default_factory=list)  # status, reason, Retry-After
    lock: threading.Lock = field(default_factory=threading.Lock)

    def done(self, deadline: float) -> bool:
        with self.lock:
            throttled = sum(1 for _, reason, _ in self.seen if reason == "throttled")
            return (
                time.monotonic() >= deadline
                or len(self.seen) >= self.cap
                or (throttled >= self.enough)
            )

    def client(self, port: int, deadline: float, seed: int) -> None:
        rng = random.Random(seed)
        while not self.done(deadline):
            extra = {}
            if self.spoof:
                extra["X-Forwarded-For"] = ".".join(str(rng.randrange(1, 255)) for _ in range(4))
            try:
                status, content, headers = send(
                    port, self.method, self.path, self.body, self.source, extra
                )
            except (OSError, http.client.HTTPException):
                status, content, headers = 0, b"", {}
            reason = throttle_reason(content) if status == 429 else ""
            with self.lock:
                self.seen.append((status, reason, headers.get("Retry-After", "")))

    def summary(self) -> str:
        statuses = Counter(
            f"429 {reason}" if status == 429 else str(status) for status, reason, _ in self.seen
        )
        first = next((i for i, (_, r, _) in enumerate(self.seen) if r == "throttled"), None)
        retry = sorted({retry for _, reason, retry in self.seen if reason == "throttled"})
        if first is not None:
            verdict = "throttled"
        elif self.spoof:
            verdict = "NOT THROTTLED: the client chose its throttling identity"
        else:
            verdict = "NO 429 within the time bound"
        return (
            f"  {self.label}: {len(self.seen)} requests {dict(sorted(statuses.items()))}; "
            f"first throttled 429 after {first if first is not None else '-'} requests; "
            f"Retry-After {', '.join(retry) or '-'} s -> {verdict}"
        )


def throttle_phase(server: Server, seconds: float, evaluate: str, workers: int) -> list[str]:
    """At the default rates, hammer a cheap API endpoint (`evaluate`, a cost model's evaluation),
    then demo runs (one fixed seed, run once first so that the burst is served from the result
    cache), until throttled; then the API again, each request claiming another X-Forwarded-For.
    The requests come from a loopback address of their own (127.x.y.z), so that throttling
    history left in a shared cache (--cache-url) by the load phase or an earlier run does not
    count."""
    rng = random.Random()
    source = f"127.{rng.randrange(1, 255)}.{rng.randrange(1, 255)}.{rng.randrange(2, 255)}"
    body = json.dumps({"params": {"seed": rng.randrange(1_000_000)}}).encode()
    demo_path = f"/api/demos/{DEMO_SLUGS[0]}/run/"
    beyond = workers * 600 + 200  # past the limit even if each worker counts on its own
    bursts = [
        Burst(f"API GET {evaluate}", "GET", evaluate, None, source, clients=8, cap=beyond),
        Burst("demo run POST (cached)", "POST", demo_path, body, source, clients=4, cap=800),
        Burst(
            "API GET, spoofed X-Forwarded-For",
            "GET",
            evaluate,
            None,
            source,
            clients=8,
            cap=beyond,
            spoof=True,
        ),
    ]
    send(server.port, "POST", demo_path, body, source)
    for burst in bursts:
        deadline = time.monotonic() + seconds
        run_clients([partial(burst.client, server.port, deadline, i) for i in range(burst.clients)])
    return [f"  requests from {source}", *(burst.summary() for burst in bursts)]


# Report -----------------------------------------------------------------------------------------


def is_error(outcome: Outcome) -> bool:
    if outcome.group == "demos":
        return outcome.status not in (200, 429)
    return outcome.status != 200


def report(outcomes: list[Outcome], elapsed: float, title: str) -> list[str]:
    groups = {"browse pages": "pages", "API": "api", "demo runs": "demos"}
    rows = [(name, [o for o in outcomes if o.group == group]) for name, group in groups.items()]
    rows.append(
        ("demo runs (200 only)", [o for o in outcomes if o.group == "demos" and o.status == 200])
    )
    rows.append(("overall", outcomes))
    header = (
        f"| {'group':<20} | {'n':>6} | {'req/s':>6} | {'p50 ms':>7} | {'p95 ms':>7} "
        f"| {'p99 ms':>7} | {'errors':>6} |"
    )
    lines = [
        f"{title} ({elapsed:.1f} s)",
        header,
        "|" + "|".join("-" * len(p) for p in header.split("|")[1:-1]) + "|",
    ]
    for name, selected in rows:
        if not selected:
            lines.append(
                f"| {name:<20} | {0:>6} | {'-':>6} | {'-':>7} | {'-':>7} | {'-':>7} | {'-':>6} |"
            )
            continue
        timing = Timing([o.seconds for o in selected])
        errors = sum(1 for o in selected if is_error(o))
        lines.append(
            f"| {name:<20} | {len(selected):>6} | {len(selected) / elapsed:>6.1f} | "
            f"{timing.percentile(50):>7.1f} | {timing.percentile(95):>7.1f} | "
            f"{timing.percentile(99):>7.1f} | {errors:>6} |"
        )
    return lines


def error_lines(outcomes: list[Outcome]) -> list[str]:
    errors = [o for o in outcomes if is_error(o)]
    kinds = Counter(
        "connection error or timeout"
        if o.status == 0
        else "5xx"
        if o.status >= 500
        else "429 outside demo runs"
        if o.status == 429
        else f"unexpected {o.status}"
        for o in errors
    )
    lines = [f"errors: {sum(kinds.values())} {dict(kinds) if kinds else ''}".rstrip()]
    for outcome in errors[:5]:
        lines.append(f"  e.g. {outcome.group} {outcome.status}: {outcome.note[:200]}")
    return lines


def demo_outcome(outcome: Outcome) -> str:
    if outcome.status == 200:
        return "200 cached" if outcome.note == "cached" else "200"
    if outcome.status == 429:
        return f"429 {outcome.note}"
    return f"other {outcome.status}"


def demo_lines(outcomes: list[Outcome], elapsed: float, slots: int) -> list[str]:
    """Outcomes, and how full the slots were: the runs' own time (worker start-up + run, from
    the responses) over the slots' time."""
    demos = [o for o in outcomes if o.group == "demos"]
    ok = [o for o in demos if o.status == 200]
    counts = Counter(demo_outcome(o) for o in demos)
    busy = sum(o.run_seconds for o in ok)
    lines = [
        f"demo outcomes: {', '.join(f'{k}: {n}' for k, n in sorted(counts.items()))}",
        f"  {len(ok) / elapsed:.2f} runs/s; the {slots} slots ran demos "
        f"{busy / (slots * elapsed):.0%} of the time",
    ]
    by_slug = defaultdict(list)
    for outcome in ok:
        by_slug[outcome.kind].append(outcome)
    for slug, runs in sorted(by_slug.items()):
        request = Timing([o.seconds for o in runs])
        run = Timing([o.run_seconds for o in runs])
        lines.append(
            f"  {slug:<18} n={len(runs):>3}  run p50 {run.p50:5.0f} ms  request p50 "
            f"{request.p50:5.0f} ms, p95 {request.p95:5.0f} ms"
        )
    return lines


def kind_lines(outcomes: list[Outcome]) -> list[str]:
    by_kind: dict[tuple[str, str], list[float]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.group != "demos":
            by_kind[(outcome.group, outcome.kind)].append(outcome.seconds)
    lines = [f"  {'group':<6} {'kind':<34} {'n':>5} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}"]
    for (group, kind), seconds in sorted(by_kind.items()):
        timing = Timing(seconds)
        lines.append(
            f"  {group:<6} {kind:<34} {len(seconds):>5} {timing.p50:>7.1f} {timing.p95:>7.1f} "
            f"{max(seconds) * 1000:>7.1f}"
        )
    return lines


def verdicts(outcomes: list[Outcome]) -> list[str]:
    errors = sum(1 for o in outcomes if is_error(o))
    pages = Timing([o.seconds for o in outcomes if o.group == "pages"])
    p95 = pages.p95 if pages.n else float("nan")
    return [
        f"target 0 errors: {errors} -> {'met' if errors == 0 else 'MISSED'}",
        f"target browse pages p95 < {TARGET_BROWSE_P95_MS:.0f} ms while demos saturate: "
        f"{p95:.1f} ms -> {'met' if p95 < TARGET_BROWSE_P95_MS else 'MISSED'}",
    ]


def load_average() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def measured_phase(
    servers: dict[str, tuple[Server, Path]],
    setup: Setup,
    plan: TrafficPlan,
    args,
    title: str,
    seconds: float,
    demos: int,
) -> list[str]:
    """`seconds` of load on each server; with two (--before), `args.rounds` turns each, in
    alternation, so that the machine's other work falls on both alike."""
    rounds = args.rounds if len(servers) > 1 else 1
    print(
        f"{title}: {args.clients} clients + {demos} demo clients for {seconds:.0f} s"
        + (f" on each of {', '.join(servers)}, in {rounds} turns" if len(servers) > 1 else ""),
        flush=True,
    )
    results = {label: ([], 0.0, CpuSpent(), []) for label in servers}
    read_cpu_log(setup.cpu_log)  # what the warm-up left
    for _ in range(rounds):
        for label, (server, pid_file) in servers.items():
            outcomes, elapsed, cpu, cpu_requests = results[label]
            more, took = load_phase(server, pid_file, plan, args, seconds / rounds, demos, cpu)
            outcomes += more
            cpu_requests += read_cpu_log(setup.cpu_log)
            results[label] = (outcomes, elapsed + took, cpu, cpu_requests)
    lines = []
    for label, (outcomes, elapsed, cpu, cpu_requests) in results.items():
        heading = f"{title} [{label}]" if len(servers) > 1 else title
        lines += report(outcomes, elapsed, heading) + error_lines(outcomes)
        if demos:
            lines += demo_lines(outcomes, elapsed, args.demo_slots or 2)
        served = sum(1 for o in outcomes if o.group != "demos")
        lines += ["per kind of request:", *kind_lines(outcomes), *cpu_lines(cpu, served)]
        lines += cpu_by_kind_lines(cpu_requests)
        if demos:
            lines += verdicts(outcomes)
        lines.append("")
    lines += [f"load average after: {load_average()}"]
    return lines


def parse_args(argv: list[str] | None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="load phase (at most 60)")
    parser.add_argument("--clients", type=int, default=20, help="browsing + API clients")
    parser.add_argument("--demo-clients", type=int, default=3)
    parser.add_argument("--api-share", type=float, default=0.4, help="share of API requests")
    parser.add_argument(
        "--only", default="", help="experiment: keep only these kinds, comma-separated"
    )
    parser.add_argument("--think", type=float, default=0.0, help="mean pause between requests, s")
    parser.add_argument("--max-requests", type=int, default=20_000, help="per client")
    parser.add_argument("--worker-class", default="gthread", choices=["gthread", "sync"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8, help="per gthread worker")
    parser.add_argument("--demo-slots", type=int, help="demo workers (default 2)")
    parser.add_argument(
        "--demo-nice", type=int, default=0, help="experiment: run demo workers at this niceness"
    )
    parser.add_argument(
        "--baseline-seconds", type=float, default=0.0, help="first, this long without demo runs"
    )
    parser.add_argument(
        "--cache-url", default="", help="CACHE_URL for the servers, e.g. redis://127.0.0.1:6379/9"
    )
    parser.add_argument("--throttle-seconds", type=float, default=20.0, help="per throttling case")
    parser.add_argument(
        "--database-url",
        default="",
        help="PostgreSQL instead of a SQLite file, e.g. postgres://postgres@127.0.0.1:5432/"
        "load_bench (the database is dropped and created afresh)",
    )
    parser.add_argument(
        "--before",
        type=Path,
        metavar="DIR",
        help="also serve the code in DIR (e.g. `git archive main | tar -x -C DIR`) and load "
        "both servers in alternation: before and after in one run",
    )
    parser.add_argument("--rounds", type=int, default=4, help="turns per server with --before")
    parser.add_argument("--skip-throttle", action="store_true", help="no throttling phase")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    args.seconds = min(args.seconds, 60.0)
    args.baseline_seconds = min(args.baseline_seconds, 60.0)
    args.database_name = urllib.parse.urlparse(args.database_url).path.lstrip("/")
    return args


def describe(args) -> str:
    threads = f" x {args.threads} threads" if args.worker_class == "gthread" else ""
    nice = f"; demo workers at nice {args.demo_nice}" if args.demo_nice else ""
    only = f"; only {args.only}" if args.only else ""
    only += f"; CACHE_URL={args.cache_url}" if args.cache_url else "; in-process cache"
    only += f"; PostgreSQL {args.database_name}" if args.database_url else "; SQLite"
    only += "" if os.environ.get("RESPONSE_CACHE", "true") != "false" else "; response cache off"
    return (
        f"gunicorn {args.worker_class}, {args.workers} workers{threads}; "
        f"{args.demo_slots or 2} demo workers{nice}; {args.clients} clients "
        f"({args.api_share:.0%} API), think time {args.think:g} s; "
        f"{args.demo_clients} demo clients{only}"
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    started = time.perf_counter()
    print(f"load average {load_average()} on {os.cpu_count()} cores", flush=True)
    DATA.mkdir(parents=True, exist_ok=True)
    sections: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="load-bench-") as tmp:
        setup = prepare(Path(tmp), args.demo_nice, args.cache_url, args.database_url)
        older = gunicorn(setup, args, "gunicorn-before", True, args.before) if args.before else None
        with (
            gunicorn(setup, args, "gunicorn-load", high_rates=True) as (server, pid_file),
            optional(older) as before,
        ):
            servers = {"after" if before else "load": (server, pid_file)}
            if before:
                servers = {"before": before, **servers}
            plan = discover(server, args.seed)
            plan.api_share = args.api_share
            plan.only = frozenset(filter(None, args.only.split(",")))
            for each, _ in servers.values():
                warm_up(each, plan)
            print(f"{describe(args)}; warmed up; load average {load_average()}", flush=True)
            phases = [
                ("baseline: browsing + API, no demo runs", args.baseline_seconds, 0),
                ("load: browsing + API + demo runs", args.seconds, args.demo_clients),
            ]
            for title, seconds, demos in phases:
                if seconds:
                    sections.append(
                        measured_phase(servers, setup, plan, args, title, seconds, demos)
                    )
        throttle = []
        if not args.skip_throttle:
            print("throttling at the default rates", flush=True)
            evaluate = f"/api/cost-models/{plan.cost_models[0]['id']}/evaluate/"
            with gunicorn(setup, args, "gunicorn-throttle", high_rates=False) as (server, _):
                throttle = throttle_phase(server, args.throttle_seconds, evaluate, args.workers)
    print()
    print(describe(args))
    for section in sections:
        print("\n".join(section))
        print()
    if throttle:
        print(
            "throttling at the default rates (API_ANON_RATE 600/minute, DEMO_RUN_RATE 60/minute):"
        )
        print("\n".join(throttle))
    print(f"\nwhole run {time.perf_counter() - started:.0f} s; load average {load_average()}")


if __name__ == "__main__":
    main()
