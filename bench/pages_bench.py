"""Pages benchmark: every HTML page and JSON endpoint, in-process, without the response cache.

    python -m bench.pages_bench                            # 270 works (the real survey)
    python -m bench.pages_bench --sizes 270,100000 --requests 20
    python -m bench.pages_bench --only /costs/ --profile   # where one URL's time goes

For each size the corpus is built if missing (bench/synthetic.py, migrated to the current schema),
then Django's test client serves every URL of the site (the pages and the API, their keys, slugs
and ids read from the corpus) with the production settings (DEBUG=false, collected static files)
and RESPONSE_CACHE=false, so that every request builds its answer, as a new URL would. A few
untimed warm-ups first, then p50/p95 of up to --requests timed ones per URL, its status, size and
number of queries. Figures, not assertions; the load average is printed with each size.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import synthetic
from bench.browse_bench import app_env, collect_static

SIZES = {270: 0, 100_000: 1_000_000}  # works -> citation edges (0: the survey's own)
TARGET_MS = 25.0  # every page and endpoint at 270 works, p50
# Timed first and its p50 printed beside every URL's: the machine is shared, so a ratio to a
# cheap request measured in the same run compares across runs better than milliseconds do.
BASELINE_URL = "/api/"
WARMUP = 2


def prepare(db: Path, works: int, edges: int) -> None:
    if not db.exists():
        synthetic.build(db, works, edges)
    synthetic.manage(db, "migrate", "--noinput")
    synthetic.manage(db, "rebuild_search_index", "--if-empty")


def urls() -> list[tuple[str, str]]:
    """(name, URL) of every page and endpoint, with keys from the database. Each URL pattern of
    the site is here once (a few twice: a filtered variant beside the plain one)."""
    from catalogue.models import Author, CostModel, Technique, Work
    from explorer.demos import DEMOS
    from explorer.demos.models import DemoRun

    work = Work.objects.in_survey().order_by("-pk").only("key").first()
    cited = Work.objects.filter(survey_ref__isnull=False).order_by("survey_ref").first()
    author = Author.objects.order_by("pk").first()
    technique = Technique.objects.order_by("pk").first()
    cost_model = CostModel.objects.order_by("pk").first()
    demo = next(iter(DEMOS))
    run = DemoRun.objects.order_by("pk").first()
    seeds = f"{work.key},{cited.key}"
    pages = [
        ("home", "/"),
        ("works", "/works/"),
        ("works filtered", "/works/?level=train&q=gradient"),
        ("works searched", "/works/?q=gradient"),
        ("work", f"/works/{work.key}/"),
        ("categories", "/categories/"),
        ("hub (a level)", "/categories/train/"),
        ("hub (a section)", "/categories/net-pipe/"),
        ("hub (a level with sections)", "/categories/net/"),
        ("author", f"/authors/{author.pk}/"),
        ("numbers", "/numbers/"),
        ("sources", "/sources/"),
        ("techniques", "/techniques/"),
        ("costs", "/costs/"),
        ("costs, a changed input", "/costs/?P=16"),
        ("planner", "/planner/"),
        ("planner, a changed input (the plan and its sweep)", "/planner/?P=32"),
        ("planner accuracy", "/planner/accuracy/"),
        ("graph", "/graph/"),
        ("snowball", f"/snowball/?seeds={seeds}"),
        ("data quality", "/data-quality/"),
        ("demos", "/demos/"),
        ("demo", f"/demos/{demo}/"),
        ("suggest", "/suggest/?q=gradi"),
        ("results", "/results/"),
        ("mlperf results", "/results/mlperf/"),
    ]
    if run is not None:
        pages.append(("demo run", f"/demos/{run.slug}/runs/{run.pk}/"))
    api = [
        ("api root", "/api/"),
        ("api works", "/api/works/"),
        ("api works filtered", "/api/works/?level=train&year_min=2015&q=gradient"),
        ("api work", f"/api/works/{work.key}/"),
        ("api related", f"/api/works/{work.key}/related/"),
        ("api categories", "/api/categories/"),
        ("api hub", "/api/categories/train/"),
        ("api authors", "/api/authors/"),
        ("api author", f"/api/authors/{author.pk}/"),
        ("api citations", "/api/citations/"),
        ("api techniques", "/api/techniques/"),
        ("api technique", f"/api/techniques/{technique.slug}/"),
        ("api cost models", "/api/cost-models/"),
        ("api cost model", f"/api/cost-models/{cost_model.pk}/"),
        ("api evaluate", f"/api/cost-models/{cost_model.pk}/evaluate/"),
        ("api cost plot", "/api/costs/plots/wd-plane/"),
        ("api graph", "/api/graph/"),
        ("api graph graphml", "/api/graph/?format=graphml"),
        ("api snowball", f"/api/snowball/?seeds={seeds}"),
        ("api data quality", "/api/data-quality/"),
        ("api demos", "/api/demos/"),
        ("api demo", f"/api/demos/{demo}/"),
        ("api planner", "/api/planner/"),
        ("api planner accuracy", "/api/planner/accuracy/"),
        ("api suggest", "/api/suggest/?q=gradi"),
        ("api export bibtex", "/api/export/?format=bibtex"),
        ("api results", "/api/results/"),
        ("api mlperf results", "/api/results/mlperf/"),
        ("api schema", "/api/schema/"),
        ("api docs", "/api/docs/"),
    ]
    if run is not None:
        api.append(("api demo run", f"/api/demos/runs/{run.pk}/"))
    return pages + api


def accept_of(url: str) -> str:
    return "application/json" if url.startswith("/api/") and url != "/api/docs/" else "text/html"


def time_url(client, url: str, requests: int, seconds: float) -> dict:
    from django.db import connection

    accept = accept_of(url)
    for _ in range(WARMUP):
        client.get(url, HTTP_ACCEPT=accept)
    queries = []
    with connection.execute_wrapper(
        lambda execute, sql, *args: queries.append(sql) or execute(sql, *args)
    ):
        response = client.get(url, HTTP_ACCEPT=accept)
    timings = []
    deadline = time.perf_counter() + seconds
    for _ in range(requests):
        start = time.perf_counter()
        client.get(url, HTTP_ACCEPT=accept)
        timings.append((time.perf_counter() - start) * 1000)
        if time.perf_counter() > deadline:
            break
    timings.sort()
    return {
        "status": response.status_code,
        "bytes": len(response.content) if not response.streaming else -1,
        "queries": len(queries),
        "n": len(timings),
        "p50": statistics.median(timings),
        "p95": timings[min(len(timings) - 1, int(len(timings) * 0.95))],
    }


def profile(client, url: str, repeat: int = 10) -> None:
    """Where one URL's time goes: pyinstrument's tree where installed (`make bench`),
    else cProfile's functions by cumulative time (the standard library)."""
    accept = accept_of(url)
    client.get(url, HTTP_ACCEPT=accept)
    try:
        from pyinstrument import Profiler
    except ImportError:
        profile_with_cprofile(client, url, accept, repeat)
        return
    profiler = Profiler(interval=0.0005)
    with profiler:
        for _ in range(repeat):
            client.get(url, HTTP_ACCEPT=accept)
    print(profiler.output_text(unicode=False, color=False, show_all=False))
    if os.environ.get("PROFILE_FLAT"):
        flat = profiler.output_text(unicode=False, color=False, flat=True, time="percent_of_total")
        print("\n".join(flat.splitlines()[:40]))


def profile_with_cprofile(client, url: str, accept: str, repeat: int) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    with profiler:
        for _ in range(repeat):
            client.get(url, HTTP_ACCEPT=accept)
    stats = pstats.Stats(profiler).strip_dirs().sort_stats("cumulative")
    stats.print_stats(int(os.environ.get("PROFILE_LINES", "45")))
    if os.environ.get("PROFILE_FLAT"):
        stats.sort_stats("tottime").print_stats(25)


def run_one(db: Path, args) -> None:
    """In the subprocess set up for `db`: time every URL, print the table."""
    import django

    django.setup()
    from django.test import Client

    client = Client()
    selected = [(name, url) for name, url in urls() if not args.only or url in args.only]
    if args.profile:
        for _, url in selected:
            print(f"== {url}")
            profile(client, url)
        return
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{db.name}: load average {load} on {os.cpu_count()} cores", flush=True)
    baseline = time_url(client, BASELINE_URL, args.requests, args.url_seconds)["p50"]
    print(f"baseline {BASELINE_URL}: p50 {baseline:.2f} ms (the x column: p50 / this)")
    print(f"| {'page or endpoint':<58} | status | KiB | queries | n | p50 ms | p95 ms | x |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    slow, results = [], {}
    for _name, url in selected:
        result = results[url] = time_url(client, url, args.requests, args.url_seconds)
        print(
            f"| {url:<58} | {result['status']} | {result['bytes'] / 1024:.0f} | "
            f"{result['queries']} | {result['n']} | {result['p50']:.1f} | {result['p95']:.1f} | "
            f"{result['p50'] / baseline:.1f} |",
            flush=True,
        )
        if result["p50"] >= TARGET_MS:
            slow.append(f"{url} ({result['p50']:.0f} ms)")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average at the end {load}")
    print(f"p50 at or over {TARGET_MS:.0f} ms: {', '.join(slow) or 'none'}")
    if args.results:
        Path(args.results).write_text(json.dumps(results))


def compare(db: Path, env: dict[str, str], args) -> None:
    """The code in `args.before` and this tree, in turn, `args.rounds` times over the same
    file: a change of the machine's load falls on both alike. Prints each URL's p50 per round
    and the median of the after/before ratios."""
    rounds: dict[str, list[dict]] = {"before": [], "after": []}
    for number in range(args.rounds):
        order = ["before", "after"] if number % 2 == 0 else ["after", "before"]
        for side in order:
            code = args.before if side == "before" else synthetic.REPO
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                # This file times both (the older one may lack --results): only the app's code,
                # found first on the path, differs.
                command = [*one_command(db, args), "--results", out.name]
                command[1:3] = [str(Path(__file__).resolve())]
                side_env = {**env, "PYTHONPATH": str(code)}
                subprocess.run(
                    command, env=side_env, check=True, cwd=code, stdout=subprocess.DEVNULL
                )
                rounds[side].append(json.loads(Path(out.name).read_text()))
            load = os.getloadavg()[0]
            print(f"round {number + 1}: {side} done (load {load:.1f})", flush=True)
    print("| URL | queries before -> after | before p50 ms (rounds) | after | after/before |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for url in rounds["after"][0]:
        before = [r[url]["p50"] for r in rounds["before"] if url in r]
        after = [r[url]["p50"] for r in rounds["after"]]
        if not before:
            continue
        ratio = statistics.median(a / b for a, b in zip(after, before, strict=True))
        queries = f"{rounds['before'][0][url]['queries']} -> {rounds['after'][0][url]['queries']}"
        print(
            f"| `{url}` | {queries} | {statistics.median(before):.1f} "
            f"({', '.join(f'{x:.1f}' for x in before)}) | {statistics.median(after):.1f} "
            f"({', '.join(f'{x:.1f}' for x in after)}) | {ratio:.2f} |"
        )


def one_command(db: Path, args) -> list[str]:
    """The subprocess that times the URLs over `db` (in the settings of its environment)."""
    command = [sys.executable, "-m", "bench.pages_bench", "--one", str(db)]
    command += ["--requests", str(args.requests), "--url-seconds", str(args.url_seconds)]
    return command + [arg for only in args.only or [] for arg in ("--only", only)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="270", help="comma-separated works counts")
    parser.add_argument("--requests", type=int, default=30, help="timed requests per URL")
    parser.add_argument("--url-seconds", type=float, default=5.0, help="time bound per URL")
    parser.add_argument("--only", action="append", help="only this URL (repeatable)")
    parser.add_argument("--profile", action="store_true", help="pyinstrument profile instead")
    parser.add_argument(
        "--before",
        type=Path,
        metavar="DIR",
        help="also time the code in DIR (e.g. `git archive main | tar -x -C DIR`), in turn with "
        "this tree, --rounds times: before and after in one run",
    )
    parser.add_argument("--rounds", type=int, default=4, help="turns each (with --before)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the subprocess of one size
    parser.add_argument("--results", help=argparse.SUPPRESS)  # where --one writes its figures
    args = parser.parse_args(argv)
    if args.one:
        run_one(Path(args.one), args)
        return
    for works in (int(size) for size in args.sizes.split(",")):
        db = synthetic.default_path(works)
        prepare(db, works, SIZES.get(works, works * 10))
        collect_static(db)
        env = {
            **app_env(db, response_cache=False),
            "ALLOWED_HOSTS": "testserver",
            "LOG_LEVEL": "ERROR",
            "DJANGO_SETTINGS_MODULE": "explorer.settings",
        }
        if args.before:
            compare(db, env, args)
            continue
        command = one_command(db, args) + (["--profile"] if args.profile else [])
        subprocess.run(command, env=env, check=True, cwd=synthetic.REPO)


if __name__ == "__main__":
    main()
