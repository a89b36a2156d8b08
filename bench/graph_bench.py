"""Time the citation graph: build from the database + PageRank and snowballing on a synthetic
100,000-work / 1,000,000-edge corpus, and the /graph/ page on the real 270-work survey.

    .venv/bin/python -m bench.graph_bench [--works 100000] [--edges 1000000] [--repeat 5]

The corpus comes from bench/synthetic.py (bench/data/, gitignored; built when missing). Each part
runs in its own process, with DATABASE_URL pointing at its SQLite file. Prints a table; asserts
nothing (figures, not tests).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.synthetic import DATA, REPO, build, default_path, manage

SURVEY_DB = DATA / "graph-survey-270.sqlite3"
TARGETS = {
    "build + PageRank": 10.0,
    "snowball, 3 rounds backward from 10 seeds": 1.0,
    "snowball, 3 rounds forward from 10 seeds": 1.0,
    "/graph/ (cache warm)": 1.0,
    "/graph/ (cache cold)": 1.0,
}


def timed(function, repeat: int = 1) -> tuple[float, object, float]:
    """Median wall-clock seconds over `repeat` runs, the last result, and the median CPU
    seconds of this process (the machine may be shared: CPU time says what the code costs)."""
    times, cpu_times, result = [], [], None
    for _ in range(repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        result = function()
        times.append(time.perf_counter() - started)
        cpu_times.append(time.process_time() - cpu_started)
    return statistics.median(times), result, statistics.median(cpu_times)


def clear_caches() -> None:
    """Every cache alias: the graph's, the responses', the throttle counters'."""
    from django.core.cache import caches

    for cache in caches.all():
        cache.clear()


def setup_django(db: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "explorer.settings")
    import django

    django.setup()


# --- The synthetic corpus ----------------------------------------------------------------------


def corpus_part(db: Path, repeat: int) -> list[dict]:
    setup_django(db)
    import numpy as np

    from catalogue import graph, graph_store

    seconds, citation_graph, cpu = timed(graph_store.load_graph)
    size = f"{len(citation_graph):,} works, {citation_graph.number_of_edges():,} edges"
    rows = [row("graph build from the DB (2 queries + networkx)", size, seconds, cpu)]
    surveys = graph.survey_nodes(citation_graph)
    seconds, ranks, cpu = timed(lambda: graph.pagerank(citation_graph, exclude=surveys))
    rows.append(row("PageRank without the survey node (numpy)", size, seconds, cpu))
    rows.append(
        row(
            "build + PageRank",
            size,
            rows[0]["seconds"] + rows[1]["seconds"],
            rows[0]["cpu"] + rows[1]["cpu"],
        )
    )

    view = graph.restrict(citation_graph)  # a view without the survey node: no copy
    rng = np.random.default_rng(1)
    citing = [n for n, d in citation_graph.out_degree() if d and n not in surveys]
    seeds = [citing[i] for i in rng.choice(len(citing), size=10, replace=False)]
    for direction, keywords in (("backward", []), ("forward", []), ("both", [])):
        seconds, result, cpu = timed(
            lambda d=direction, k=keywords: graph.snowball(view, seeds, d, 3, keywords=k), repeat
        )
        note = f"{len(result.collected):,} collected"
        rows.append(row(f"snowball, 3 rounds {direction} from 10 seeds", size, seconds, cpu, note))
    seconds, result, cpu = timed(lambda: graph.keyword_hits(view, ["allreduce"]), repeat)
    note = f"{len(result):,} titles or abstracts match"
    rows.append(row("keyword stage over every title and abstract", size, seconds, cpu, note))
    top = max(ranks, key=ranks.get)
    seconds, _, cpu = timed(lambda: (graph.co_cited_with(view, top), graph.coupled_with(view, top)))
    note = f"{citation_graph.in_degree(top):,} citing works"
    rows.append(row("co-citation + coupling of the top-PageRank work", size, seconds, cpu, note))

    clear_caches()
    seconds, _, cpu = timed(graph_store.catalogue_graph)
    rows.append(row("catalogue_graph(), cold (build + pickle to cache)", size, seconds, cpu))
    seconds, _, cpu = timed(graph_store.catalogue_graph, repeat)
    rows.append(row("catalogue_graph(), this process's copy (version)", size, seconds, cpu))
    seconds, _, cpu = timed(
        lambda: (graph_store._latest.clear(), graph_store.catalogue_graph()), repeat
    )
    rows.append(row("catalogue_graph(), shared cache (unpickle)", size, seconds, cpu))

    from django.test import Client

    client = Client()
    seconds, response, cpu = timed(lambda: client.get("/graph/"))
    assert response.status_code == 200, response.status_code
    shown = re.search(r"This view:</strong> (\d+) works", response.content.decode())
    note = f"{shown.group(1)} highest-PageRank works drawn"
    rows.append(row("/graph/ on the corpus (first: coverage, layout)", size, seconds, cpu, note))
    seconds, _, cpu = timed(lambda: client.get("/graph/"), repeat)
    rows.append(row("/graph/ on the corpus (cache warm)", size, seconds, cpu))
    return rows


# --- The real survey, through the pages ---------------------------------------------------------


def page_part(db: Path, repeat: int) -> list[dict]:
    setup_django(db)
    from django.test import Client

    client = Client()
    size = "270 works (the survey)"

    def get(url: str):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return response

    seconds, _, cpu = timed(lambda: get("/graph/"))
    rows = [row("/graph/ (first request of a fresh process)", size, seconds, cpu)]
    for url in ("/graph/", "/graph/?ego=dean2012large&depth=2", "/snowball/", "/api/graph/"):
        seconds, _, cpu = timed(lambda u=url: (clear_caches(), get(u)), repeat)
        rows.append(row(f"{url} (cache cold)", size, seconds, cpu))
        seconds, _, cpu = timed(lambda u=url: get(u), repeat)
        rows.append(row(f"{url} (cache warm)", size, seconds, cpu))
    return rows


def row(what: str, size: str, seconds: float, cpu: float, note: str = "") -> dict:
    return {"what": what, "size": size, "seconds": seconds, "cpu": cpu, "note": note}


# --- Orchestration -----------------------------------------------------------------------------


def ensure_corpus(works: int, edges: int) -> Path:
    path = default_path(works)
    building = path.with_name(path.name + ".building")
    while building.exists() and not path.exists():
        print(f"waiting for {building.name} (another build is running)...", file=sys.stderr)
        time.sleep(15)
    if not path.exists():
        print("\n".join(build(path, works, edges).lines()), file=sys.stderr)
    return path


def fresh_survey_db() -> Path:
    """The real survey in its own file, rebuilt from fixtures/ on every run."""
    SURVEY_DB.parent.mkdir(parents=True, exist_ok=True)
    SURVEY_DB.unlink(missing_ok=True)
    manage(SURVEY_DB, "migrate", "--noinput", "-v", "0")
    manage(SURVEY_DB, "load_survey")
    return SURVEY_DB


def run_part(part: str, db: Path, repeat: int) -> list[dict]:
    command = [sys.executable, "-m", "bench.graph_bench", "--part", part, "--db", str(db)]
    command += ["--repeat", str(repeat)]
    output = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    if output.returncode != 0:
        raise RuntimeError(f"part {part} failed:\n{output.stdout}{output.stderr}")
    return json.loads(output.stdout.strip().splitlines()[-1])


def print_table(rows: list[dict]) -> None:
    print(f"{'measurement':<52} {'data':<30} {'wall':>9} {'CPU':>9}  {'target':>7}  note")
    print("-" * 130)
    for r in rows:
        target = TARGETS.get(r["what"])
        verdict = "" if target is None else ("ok" if r["seconds"] < target else "MISSED")
        target_text = f"< {target:g} s" if target else ""
        wall, cpu = f"{r['seconds'] * 1000:.0f} ms", f"{r['cpu'] * 1000:.0f} ms"
        print(
            f"{r['what']:<52} {r['size']:<30} {wall:>9} {cpu:>9}  {target_text:>7}"
            f"  {verdict} {r['note']}".rstrip()
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--part", choices=["corpus", "pages"], help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.part:
        part = corpus_part if args.part == "corpus" else page_part
        print(json.dumps(part(args.db, args.repeat)))
        return
    corpus = ensure_corpus(args.works, args.edges)
    rows = run_part("corpus", corpus, args.repeat)
    rows += run_part("pages", fresh_survey_db(), args.repeat)
    print_table(rows)


if __name__ == "__main__":
    main()
