"""Browse benchmark: our API and pages against Datasette, over the same SQLite file.

    python -m bench.browse_bench                      # sizes 270 (the real survey) and 100k works
    python -m bench.browse_bench --sizes 270 --requests 50

For each size, the corpus is built if missing (bench/synthetic.py), then our app runs under
gunicorn (2 sync workers, production settings: DEBUG=false, collected static files) twice, with its
response cache (the default: a repeated URL is a cache hit) and without (RESPONSE_CACHE=false:
every request builds its answer), and Datasette serves the same file. One client sends sequential
GET requests (a new connection each, as urllib does), a warm-up first, then up to --requests per
case or --case-seconds, whichever comes first, and prints p50/p95 latencies (time to the last byte
of the body). All three servers are stopped at the end, on error too.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench import synthetic

REPO = synthetic.REPO
DATA = synthetic.DATA
BIN = Path(sys.executable).parent
SIZES = {270: 0, 100_000: 1_000_000}  # works -> citation edges (0: the survey's own)
DETAIL_SAMPLE = 20
FILTER = {"level": "train", "year_min": "2015", "q": "gradient"}
TARGET_RATIO = 0.5  # our list p50 at most half of Datasette's
TARGET_FILTER_P95_MS = 100.0  # filtered + searched list at 100k works

WORK_COLUMNS = (
    "w.id, w.key, w.title, w.year, w.authors_truncated, w.entry_type, w.venue, w.survey_ref, "
    "w.arxiv_id, w.doi, w.url"
)
# What a list row of /api/works/ carries besides the work's columns: authors in order and
# categories with their evidence, ordered like the API's prefetches.
ROW_EXTRAS = """
  (select json_group_array(name) from (
     select a.name from catalogue_authorship s join catalogue_author a on a.id = s.author_id
     where s.work_id = w.id order by s.position)) as authors,
  (select json_group_array(json_object('code', code, 'name', name, 'section', section,
                                       'evidence', evidence, 'source_note', source_note)) from (
     select c.code, c.name, c.section, s.evidence, s.source_note
     from catalogue_assignment s join catalogue_category c on c.id = s.category_id
     where s.work_id = w.id order by c."order", c.code)) as categories"""

# /api/works/?page_size=50: the count and the first page in the API's order, then the authors and
# categories of the 50 rows only (as the API's prefetches do). The API lists the works in the
# survey by default (?era=survey).
LIST_SQL = f"""
with page as materialized (
  select * from catalogue_work where era = 'survey' order by survey_ref, key limit 50
)
select {WORK_COLUMNS}, {ROW_EXTRAS},
  (select count(*) from catalogue_work where era = 'survey') as total
from page w
order by w.survey_ref, w.key"""


# /api/works/?level=train&year_min=2015&q=gradient&page_size=50, the same semantics as
# explorer/works/filters.py: a work in the level's subtree, from year_min on, matching the words in
# the full-text index (catalogue/search_sql.py: the FTS5 table's MATCH, ranked by its bm25 `rank`)
# then (survey_ref, key); the total count; authors and categories.
FILTER_SQL = f"""
with recursive subtree(id) as (
  select id from catalogue_category where code = :level
  union all
  select c.id from catalogue_category c join subtree on c.parent_id = subtree.id
),
hits as (
  select w.*, -t.rank as relevance
  from catalogue_work w join catalogue_worksearchtext t on t.rowid = w.id
  where w.year >= :year_min
    and +w.era = 'survey' -- the default era; `+`: the search index leads, not the era's
    and exists (select 1 from catalogue_assignment s
                where s.work_id = w.id and s.category_id in (select id from subtree))
    and t.catalogue_worksearchtext match :words
),
page as (
  select *, count(*) over () as total from hits
  order by relevance desc, survey_ref, key
  limit 50
)
select {WORK_COLUMNS}, w.relevance, w.total, {ROW_EXTRAS}
from page w
order by w.relevance desc, w.survey_ref, w.key"""

# /api/works/<key>/: the work's columns, authors, categories, techniques, citations out and in
# with their provenance and evidence (our detail also renders the BibTeX, in Python).
DETAIL_SQL = f"""
select w.*, {ROW_EXTRAS},
  (select json_group_array(t.slug) from catalogue_technique_works tw
     join catalogue_technique t on t.id = tw.technique_id where tw.work_id = w.id) as techniques,
  (select json_group_array(json_object('key', o.key, 'provenance', c.provenance,
     'evidence_source', c.evidence_source, 'evidence_excerpt', c.evidence_excerpt))
   from catalogue_citation c join catalogue_work o on o.id = c.cited_id
   where c.citing_id = w.id) as cites,
  (select json_group_array(json_object('key', o.key, 'provenance', c.provenance,
     'evidence_source', c.evidence_source, 'evidence_excerpt', c.evidence_excerpt))
   from catalogue_citation c join catalogue_work o on o.id = c.citing_id
   where c.cited_id = w.id) as cited_by
from catalogue_work w
where w.key = :key"""


@dataclass
class Timing:
    latencies: list[float] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.latencies)

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
        return ordered[rank] * 1000

    @property
    def p50(self) -> float:
        return self.percentile(50)

    @property
    def p95(self) -> float:
        return self.percentile(95)


@dataclass
class Row:
    case: str
    size: int
    ours: Timing  # the default settings: a repeated URL comes from the response cache
    uncached: Timing  # RESPONSE_CACHE=false: every request builds its answer
    theirs: Timing | None
    note: str = ""
    before: Timing | None = None  # --before: the older code, uncached, in the same rounds


@dataclass
class Server:
    port: int
    base: str = ""

    def get(self, path: str, accept: str = "application/json") -> tuple[int, bytes, float]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        started = time.perf_counter()
        try:
            conn.request("GET", path, headers={"Accept": accept, "Connection": "close"})
            response = conn.getresponse()
            body = response.read()
        finally:
            conn.close()
        return response.status, body, time.perf_counter() - started

    def json(self, path: str) -> dict:
        status, body, _ = self.get(path)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body[:300]!r}")
        return json.loads(body)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running(
    name: str,
    command: list[str],
    env: dict[str, str],
    port: int,
    ready_path: str,
    cwd: Path = REPO,
):
    """Start a server in its own process group; stop it (the group) whatever happens. `cwd`:
    the code it serves (another checkout, to compare before and after in one run)."""
    log_path = DATA / f"{name}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            wait_until_ready(Server(port), ready_path, process, log_path)
            yield Server(port)
        finally:
            stop(process)


def wait_until_ready(server: Server, path: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited ({process.returncode}); see {log}")
        try:
            if server.get(path)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server not ready after 90 s; see {log}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


def app_env(db: Path, response_cache: bool = True) -> dict[str, str]:
    return {
        **os.environ,
        "RESPONSE_CACHE": "true" if response_cache else "false",
        "DATABASE_URL": f"sqlite:///{db}",
        "SECRET_KEY": "browse-bench-not-secret-" + "x" * 40,
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "API_ANON_RATE": "1000000/minute",
        "STATIC_ROOT": str(DATA / "static"),
        "LOG_LEVEL": "WARNING",
    }


def collect_static(db: Path) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=REPO,
        env=app_env(db),
        check=True,
        timeout=300,
    )


def ours(db: Path, response_cache: bool = True, code: Path = REPO):
    port = free_port()
    command = [str(BIN / "gunicorn"), "explorer.wsgi:application", "--workers", "2"]
    command += ["--bind", f"127.0.0.1:{port}", "--log-level", "warning", "--timeout", "120"]
    name = f"gunicorn-{db.stem}" + ("" if response_cache else "-uncached")
    name += "" if code == REPO else "-before"
    env = app_env(db, response_cache)
    return running(name, command, env, port, "/api/works/?page_size=1", cwd=code)


@contextmanager
def optional(context):
    """`context` entered, or None when there is none."""
    if context is None:
        yield None
    else:
        with context as value:
            yield value


def datasette(db: Path):
    port = free_port()
    command = [str(BIN / "datasette"), "serve", str(db), "-h", "127.0.0.1", "-p", str(port)]
    # The table page's facet suggestions are extra work that our list does not do: off.
    for setting in ("sql_time_limit_ms 5000", "max_returned_rows 1000", "suggest_facets off"):
        command += ["--setting", *setting.split()]
    return running(f"datasette-{db.stem}", command, dict(os.environ), port, f"/{db.stem}.json")


def measure(
    server: Server, paths: list[str], requests: int, warmup: int, seconds: float, accept: str
) -> Timing:
    """Sequential GETs over `paths` in turn: up to `warmup` untimed (at most a third of `seconds`),
    then up to `requests` timed or until `seconds` have passed."""
    warm_until = time.monotonic() + seconds / 3
    for i in range(warmup):
        check_status(server.get(paths[i % len(paths)], accept), paths[i % len(paths)])
        if time.monotonic() > warm_until:
            break
    timing = Timing()
    deadline = time.monotonic() + seconds
    for i in range(requests):
        path = paths[i % len(paths)]
        result = server.get(path, accept)
        check_status(result, path)
        timing.latencies.append(result[2])
        if time.monotonic() > deadline:
            break
    return timing


def interleaved(servers: list, measure_one, rounds: int) -> list[Timing]:
    """Each server measured in turn, `rounds` times over (a share of the requests each round), so
    that a change of the machine's load falls on every server alike; None stays None."""
    timings = [Timing() if server else None for server in servers]
    for _ in range(rounds):
        for server, timing in zip(servers, timings, strict=True):
            if server:
                timing.latencies += measure_one(server).latencies
    return timings


def check_status(result: tuple[int, bytes, float], path: str) -> None:
    if result[0] != 200:
        raise RuntimeError(f"GET {path}: {result[0]} {result[1][:300]!r}")


def sql_path(db: Path, sql: str, **params: str) -> str:
    query = urllib.parse.urlencode({"sql": sql, **params, "_shape": "objects"})
    return f"/{db.stem}.json?{query}"


def api_path(params: dict[str, str]) -> str:
    return "/api/works/?" + urllib.parse.urlencode(params)


def detail_sample(db: Path, seed: int) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select id, key from catalogue_work order by id").fetchall()
    conn.close()
    return random.Random(seed).sample(rows, min(DETAIL_SAMPLE, len(rows)))


def check_equivalence(app: Server, ds: Server, db: Path) -> list[str]:
    """Our API and the Datasette SQL give the same count, the same first page in the same order,
    and the same category codes per row."""
    findings = []
    cases = [
        ("list", {"page_size": "50"}, sql_path(db, LIST_SQL)),
        (
            "filter+search",
            {**FILTER, "page_size": "50"},
            sql_path(db, FILTER_SQL, level="train", year_min="2015", words='"gradient"'),
        ),
    ]
    for name, params, path in cases:
        api = app.json(api_path(params))
        rows = ds.json(path)["rows"]
        total = rows[0]["total"] if rows else 0
        ours_page = [(w["key"], [c["code"] for c in w["categories"]]) for w in api["results"]]
        their_page = [(r["key"], [c["code"] for c in json.loads(r["categories"])]) for r in rows]
        same = api["count"] == total and ours_page == their_page
        verdict = "same count, same page (keys, order, categories)" if same else "DIFFERENT"
        findings.append(f"  {name}: API count {api['count']:,}, SQL total {total:,}: {verdict}")
    return findings


def bench_size(works: int, args) -> tuple[list[Row], list[str]]:
    db = synthetic.default_path(works)
    if args.rebuild or not db.exists():
        report = synthetic.build(db, works, SIZES.get(works, works * 10), args.seed)
        print("\n".join(report.lines()), flush=True)
    collect_static(db)
    keys = detail_sample(db, args.seed)
    filter_query = urllib.parse.urlencode(FILTER)
    rows: list[Row] = []
    older = ours(db, response_cache=False, code=args.before) if args.before else None
    with (
        ours(db) as app,
        ours(db, response_cache=False) as uncached,
        datasette(db) as ds,
        optional(older) as before,
    ):
        notes = check_equivalence(app, ds, db)
        rounds = args.rounds

        def run(server: Server, paths: list[str], accept: str = "application/json") -> Timing:
            return measure(
                server,
                paths,
                max(1, args.requests // rounds),
                args.warmup,
                args.case_seconds / rounds,
                accept,
            )

        def run_all(servers: list, paths: list[str], accept: str = "application/json"):
            return interleaved(servers, lambda server: run(server, paths, accept), rounds)

        cases = [
            (
                "list (Datasette table page)",
                [api_path({"page_size": "50"})],
                [f"/{db.stem}/catalogue_work.json?_size=50&era=survey"],
                "DS: bare rows by id, no authors/categories",
            ),
            (
                "list (Datasette same SQL)",
                [api_path({"page_size": "50"})],
                [sql_path(db, LIST_SQL)],
                "same rows, order, count",
            ),
            (
                "filter+search",
                [api_path({**FILTER, "page_size": "50"})],
                [sql_path(db, FILTER_SQL, level="train", year_min="2015", words='"gradient"')],
                "same rows, order, count; DS filters once",
            ),
            (
                "detail (Datasette row page)",
                [f"/api/works/{key}/" for _, key in keys],
                [f"/{db.stem}/catalogue_work/{pk}.json" for pk, _ in keys],
                "DS: the row only",
            ),
            (
                "detail (Datasette same SQL)",
                [f"/api/works/{key}/" for _, key in keys],
                [sql_path(db, DETAIL_SQL, key=key) for _, key in keys],
                "DS: no BibTeX text",
            ),
        ]
        for name, our_paths, their_paths, note in selected(cases, args.cases):
            try:
                run(ds, their_paths)  # fails early when over Datasette's sql_time_limit_ms
                datasette_ok = True
            except RuntimeError as error:
                datasette_ok, note = False, f"Datasette failed: {str(error)[:80]}"

            def one(server: Server, ours_: list[str] = our_paths, theirs_=their_paths) -> Timing:
                return run(server, theirs_ if server is ds else ours_)

            cached_timing = run_all([app], our_paths)[0]
            # Uncached, before (if any) and Datasette round by round: the ratios are fair.
            servers = [uncached, before, ds if datasette_ok else None]
            new, old, theirs = interleaved(servers, one, rounds)
            rows.append(Row(name, works, cached_timing, new, theirs, note, old))
            print(f"  measured {name} at {works:,} works", flush=True)
        pages = [
            ("HTML /works/", ["/works/"]),
            ("HTML /works/?filter+search", [f"/works/?{filter_query}"]),
            ("HTML /works/<key>/", [f"/works/{key}/" for _, key in keys]),
        ]
        for name, paths in selected(pages, args.cases):
            cached_timing = run_all([app], paths, "text/html")[0]
            new, old = run_all([uncached, before], paths, "text/html")
            rows.append(Row(name, works, cached_timing, new, None, before=old))
            print(f"  measured {name} at {works:,} works", flush=True)
    return rows, notes


def selected(cases: list[tuple], words: str | None) -> list[tuple]:
    """The cases whose name holds one of the comma-separated `words` (all without --cases)."""
    if not words:
        return cases
    return [case for case in cases if any(word in case[0] for word in words.split(","))]


def table(rows: list[Row]) -> str:
    """p50/p95 per case; with --before, the older code's uncached figures, its ratio to
    Datasette's and new over old (the same rounds)."""
    with_before = any(row.before for row in rows)
    header = (
        f"| {'case':<29} | {'works':>7} | {'ours p50/p95 ms':>15} | {'uncached p50/p95':>16} "
        f"| {'Datasette p50/p95 ms':>20} | {'ours/DS p50':>11} | {'uncached/DS':>11} "
    )
    if with_before:
        header += f"| {'before p50/p95':>16} | {'before/DS':>9} | {'after/before':>12} "
    header += f"| {'n':>15} | note"
    lines = [header, "|" + "|".join("-" * (len(part)) for part in header.split("|")[1:])]
    for row in rows:
        theirs = f"{row.theirs.p50:.1f} / {row.theirs.p95:.1f}" if row.theirs else "-"
        ratio = f"{row.ours.p50 / row.theirs.p50:.2f}" if row.theirs else "-"
        uncached_ratio = f"{row.uncached.p50 / row.theirs.p50:.2f}" if row.theirs else "-"
        timings = (row.ours, row.uncached, row.theirs, row.before)
        n = "/".join(str(t.n) for t in timings if t)
        line = (
            f"| {row.case:<29} | {row.size:>7,} | {row.ours.p50:>6.1f} / {row.ours.p95:>6.1f} "
            f"| {row.uncached.p50:>6.1f} / {row.uncached.p95:>6.1f} | {theirs:>20} "
            f"| {ratio:>11} | {uncached_ratio:>11} "
        )
        if with_before:
            old = row.before
            figures = f"{old.p50:>6.1f} / {old.p95:>6.1f}" if old else "-"
            old_ratio = f"{old.p50 / row.theirs.p50:.2f}" if old and row.theirs else "-"
            change = f"{row.uncached.p50 / old.p50:.2f}" if old else "-"
            line += f"| {figures:>16} | {old_ratio:>9} | {change:>12} "
        lines.append(line + f"| {n:>15} | {row.note}")
    return "\n".join(lines)


def verdicts(rows: list[Row]) -> list[str]:
    lines = []
    for row in rows:
        for how, timing in (("cached", row.ours), ("uncached", row.uncached)):
            if row.case.startswith("list") and row.theirs:
                ratio = timing.p50 / row.theirs.p50
                met = "met" if ratio <= TARGET_RATIO else "MISSED"
                lines.append(
                    f"target list p50 <= {TARGET_RATIO:.0%} of Datasette's, {row.case}, "
                    f"{row.size:,} works, {how}: {ratio:.2f} -> {met}"
                )
            if row.case == "filter+search" and row.size >= 100_000:
                met = "met" if timing.p95 < TARGET_FILTER_P95_MS else "MISSED"
                lines.append(
                    f"target filter+search p95 < {TARGET_FILTER_P95_MS:.0f} ms at "
                    f"{row.size:,} works, {how}: {timing.p95:.1f} ms -> {met}"
                )
    return lines


def profile(works: int, path: str, slow_ms: float = 20.0) -> None:
    """Serve `path` in-process (same settings as under gunicorn) and print its SQL queries with
    their times, and the query plan of each one slower than `slow_ms`."""
    db = synthetic.default_path(works)
    os.environ.update(app_env(db, response_cache=False), DJANGO_SETTINGS_MODULE="explorer.settings")
    os.environ["ALLOWED_HOSTS"] += ",testserver"
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    accept = "text/html" if path.startswith("/works") else "application/json"
    client.get(path, HTTP_ACCEPT=accept)  # warm-up
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, HTTP_ACCEPT=accept)
    total = (time.perf_counter() - started) * 1000
    sql_ms = sum(float(q["time"]) for q in queries.captured_queries) * 1000
    count = len(queries.captured_queries)
    print(f"{path} at {works:,} works: status {response.status_code}, {total:.0f} ms in all")
    print(f"{count} queries taking {sql_ms:.0f} ms")
    for query in queries.captured_queries:
        ms = float(query["time"]) * 1000
        print(f"\n{ms:7.1f} ms  {query['sql'] if ms >= slow_ms else query['sql'][:120]}")
        if ms >= slow_ms:
            with connection.cursor() as cursor:
                cursor.execute("explain query plan " + query["sql"])
                for row in cursor.fetchall():
                    print(f"           plan: {row[-1]}")
    python_hot_spots(client, path, accept)


def python_hot_spots(client, path: str, accept: str, repeat: int = 10) -> None:
    """Where the Python time goes over `repeat` requests (pyinstrument, flat, top lines)."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        print("\n(pip install -r requirements-bench.txt for the Python profile)")
        return
    profiler = Profiler(interval=0.001, use_timing_thread=True)
    with profiler:
        for _ in range(repeat):
            client.get(path, HTTP_ACCEPT=accept)
    text = profiler.output_text(unicode=False, color=False, flat=True, time="percent_of_total")
    print(f"\nPython hot spots over {repeat} requests:")
    print("\n".join(text.splitlines()[:40]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="270,100000", help="comma-separated works counts")
    parser.add_argument("--requests", type=int, default=200, help="timed requests per case")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--case-seconds", type=float, default=25.0, help="time bound per case")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rebuild", action="store_true", help="rebuild the corpora")
    parser.add_argument(
        "--profile", metavar="PATH", help="print the SQL and query plans of one request instead"
    )
    parser.add_argument(
        "--before",
        type=Path,
        metavar="DIR",
        help="also serve the code in DIR uncached (e.g. `git archive main | tar -x -C DIR`), "
        "measured round by round with ours and Datasette: before and after in one run",
    )
    parser.add_argument("--rounds", type=int, default=4, help="turns per case (see --before)")
    parser.add_argument(
        "--cases", help="only the cases whose name holds one of these words (e.g. list,HTML)"
    )
    args = parser.parse_args(argv)
    if args.profile:
        for works in (int(size) for size in args.sizes.split(",")):
            profile(works, args.profile)
        return
    started = time.perf_counter()
    all_rows: list[Row] = []
    all_notes: list[str] = []
    for works in (int(size) for size in args.sizes.split(",")):
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"size {works:,} works (load average {load} on {os.cpu_count()} cores)", flush=True)
        rows, notes = bench_size(works, args)
        all_rows += rows
        all_notes += [f"{works:,} works:"] + notes
    print()
    print(table(all_rows))
    print("\nequivalence of the Datasette SQL (checked once per size):")
    print("\n".join(all_notes))
    print()
    print("\n".join(verdicts(all_rows)))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nwhole run {time.perf_counter() - started:.0f} s; load average at the end {load}")


if __name__ == "__main__":
    main()
