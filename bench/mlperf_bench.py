"""MLPerf benchmark: the results room's MLPerf list, its twins and its system pages at full size,
in-process, without the response cache.

    python -m bench.mlperf_bench                      # bench/data/mlperf.sqlite3, built if missing
    python -m bench.mlperf_bench --requests 60 --rebuild
    python -m bench.mlperf_bench --synthetic          # bench/data/mlperf-synthetic.sqlite3

The corpus: the real survey (`load_survey`, which loads fixtures/mlperf.json.gz when the fixture
is there); with --synthetic (or when it holds no MLPerf score), synthetic rows at the issue's
scale instead (13 rounds, about 1,000 systems, 5,000 scores, 15,000 runs; every synthetic row
says so in its note), added through the ORM. Then, with RESPONSE_CACHE=false and production
settings, p50/p95 of a filtered and sorted list through the API, the page and the CSV, a
system's page and a score's page; the first request of a catalogue version (the rows and the
charts' aggregates computed, `cold`); and the baseline: the same filter and sort as one SQL
query on the same file (the database's own cost), with our p50's ratio to it.
Figures, not assertions.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bench import synthetic
from bench.browse_bench import app_env, collect_static
from bench.pages_bench import time_url

DB = synthetic.DATA / "mlperf.sqlite3"
SYNTHETIC_DB = synthetic.DATA / "mlperf-synthetic.sqlite3"
ROUNDS = [f"v{v}" for v in "0.5 0.6 0.7 1.0 1.1 2.0 2.1 3.0 3.1 4.0 4.1 5.0 5.1".split()]
BENCHMARKS = ["resnet", "bert", "gpt3", "ssd", "maskrcnn", "unet3d", "dlrm", "rnnt"]
SUBMITTERS = ["NVIDIA", "Google", "Intel-HabanaLabs", "Dell", "HPE", "Lenovo", "Fujitsu", "AMD"]
SYSTEMS_PER_ROUND, RUNS_PER_SCORE = 77, 3
FILTER = "benchmark=resnet&division=closed&ordering=-samples_per_s_per_accelerator"
BASELINE_SQL = """
select s.id, s.minutes, y.system_id, y.accelerators, r.version
from catalogue_mlperfscore s join catalogue_mlperfsystem y on y.id = s.system_id
join catalogue_mlperfround r on r.id = y.round_id
join catalogue_mlperfbenchmark b on b.id = s.benchmark_id
where b.slug = 'resnet' and y.division = 'closed' order by s.minutes limit 100
"""


def add_synthetic_mlperf(seed: int = 1) -> None:
    """Synthetic rounds, systems, runs and scores (only when the corpus has no MLPerf score)."""
    from catalogue.devices import devices
    from catalogue.graph import bump_generation
    from catalogue.models import MlperfBenchmark, MlperfRound, MlperfRun, MlperfScore, MlperfSystem

    rng, slugs = random.Random(seed), list(devices())
    rounds = [
        MlperfRound.objects.create(
            version=v, repository=f"mlcommons/training_results_{v}", commit="0" * 40, order=i
        )
        for i, v in enumerate(ROUNDS)
    ]
    benchmarks = {
        b: MlperfBenchmark.objects.get_or_create(slug=b, defaults={"name": b})[0]
        for b in BENCHMARKS
    }
    systems = []
    for rnd in rounds:
        for n in range(SYSTEMS_PER_ROUND):
            nodes = 2 ** rng.randint(0, 10)
            systems.append(
                MlperfSystem(
                    round=rnd,
                    submitter=rng.choice(SUBMITTERS),
                    system_id=f"synthetic_{n}_n{nodes}",
                    division=rng.choice(["closed", "closed", "closed", "open"]),
                    nodes=nodes,
                    accelerators_per_node=8,
                    accelerators=nodes * 8,
                    accelerator="synthetic",
                    device_slug=rng.choice(slugs),
                    path=f"synthetic/systems/synthetic_{n}.json",
                )
            )
    systems = MlperfSystem.objects.bulk_create(systems)
    scores, runs = [], []
    for system in systems:
        for slug in rng.sample(BENCHMARKS, 5):
            minutes = [rng.uniform(0.2, 300) for _ in range(RUNS_PER_SCORE)]
            scores.append(
                MlperfScore(
                    system=system,
                    benchmark=benchmarks[slug],
                    minutes=sorted(minutes)[1],
                    rule="synthetic",
                    rcp="not_in_rules",
                    note="synthetic (bench/mlperf_bench.py)",
                )
            )
            runs += [
                MlperfRun(
                    system=system,
                    benchmark=benchmarks[slug],
                    index=i,
                    status="success",
                    minutes=m,
                    throughput=rng.uniform(1e3, 1e6),
                    throughput_unit="samples/s",
                    note="synthetic",
                    path=f"synthetic/results/{system.system_id}/{slug}/result_{i}.txt",
                )
                for i, m in enumerate(minutes)
            ]
    MlperfScore.objects.bulk_create(scores)
    MlperfRun.objects.bulk_create(runs, batch_size=2000)
    bump_generation()


def baseline(db: Path, requests: int) -> float:
    """p50 ms of the list's filter and sort as one SQL query (the database's own cost)."""
    timings = []
    with sqlite3.connect(db) as conn:
        for _ in range(requests):
            start = time.perf_counter()
            conn.execute(BASELINE_SQL).fetchall()
            timings.append((time.perf_counter() - start) * 1000)
    conn.close()
    return sorted(timings)[len(timings) // 2]


def cold_ms(client, url: str) -> float:
    from catalogue.graph import bump_generation

    bump_generation()
    start = time.perf_counter()
    client.get(url)
    return (time.perf_counter() - start) * 1000


def run_one(db: Path, args) -> None:
    import django

    django.setup()
    from django.test import Client

    from catalogue.models import MlperfRound, MlperfRun, MlperfScore, MlperfSystem

    if args.synthetic and not MlperfScore.objects.filter(rule="synthetic").exists():
        MlperfRound.objects.all().delete()  # the fixture's rounds, systems, runs and scores
    if not MlperfScore.objects.exists():
        add_synthetic_mlperf()
    counts = [m.objects.count() for m in (MlperfSystem, MlperfScore, MlperfRun)]
    system = MlperfSystem.objects.filter(scores__isnull=False).order_by("pk").first()
    score = system.scores.select_related("benchmark").first()
    urls = [
        f"/api/results/mlperf/?{FILTER}",
        f"/results/mlperf/?{FILTER}",
        f"/api/results/mlperf/csv/?{FILTER}",
        "/api/results/mlperf/?ordering=minutes&page=3",
        "/results/mlperf/",
        f"/results/mlperf/systems/{system.pk}/",
        f"/results/mlperf/systems/{system.pk}/{score.benchmark.slug}/",
    ]
    client = Client()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{db.name}: {counts[0]} systems, {counts[1]} scores, {counts[2]} runs; load {load}")
    cold = cold_ms(client, urls[0])
    print(f"cold (rows and charts computed for a new catalogue version): {cold:.0f} ms")
    base = baseline(db, args.requests)
    print(f"baseline (the filter and sort as one SQL query): p50 {base:.2f} ms")
    print("| URL | status | KiB | queries | n | p50 ms | p95 ms | p50 / baseline |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for url in urls:
        r = time_url(client, url, args.requests, args.url_seconds)
        print(
            f"| {url} | {r['status']} | {r['bytes'] / 1024:.0f} | {r['queries']} | {r['n']} | "
            f"{r['p50']:.1f} | {r['p95']:.1f} | {r['p50'] / base:.0f} |",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=40, help="timed requests per URL")
    parser.add_argument("--url-seconds", type=float, default=10.0, help="time bound per URL")
    parser.add_argument("--rebuild", action="store_true", help="build the corpus again")
    parser.add_argument("--synthetic", action="store_true", help="synthetic MLPerf rows")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        run_one(Path(args.one), args)
        return
    db = SYNTHETIC_DB if args.synthetic else DB
    if args.rebuild or not db.exists():
        synthetic.build(db, 270, 0)
    synthetic.manage(db, "migrate", "--noinput")
    collect_static(db)
    env = {
        **app_env(db, response_cache=False),
        "ALLOWED_HOSTS": "testserver",
        "LOG_LEVEL": "ERROR",
        "DJANGO_SETTINGS_MODULE": "explorer.settings",
    }
    command = [sys.executable, "-m", "bench.mlperf_bench", "--one", str(db)]
    command += ["--synthetic"] if args.synthetic else []
    command += ["--requests", str(args.requests), "--url-seconds", str(args.url_seconds)]
    subprocess.run(command, env=env, check=True, cwd=synthetic.REPO)


if __name__ == "__main__":
    main()
