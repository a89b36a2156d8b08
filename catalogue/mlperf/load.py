"""Load MLPerf Training from fixtures/mlperf.json.gz and fixtures/mlperf_benchmarks.json.

Called by `load_survey` inside its transaction, after the works, techniques and categories (the
benchmarks link to them). Idempotent and cheap when nothing changed: the sha256 of both files is
stored (MlperfLoad) and a load of the same files returns at once. When they changed, the rounds,
systems, runs and scores are replaced in bulk (nobody edits them: the logs are the source) and
the benchmarks are brought to the hand-written file, matched on their slug. A log whose
benchmark could not be named (15 in v0.7, listed in the build's report) has no run row here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from django.db import transaction

from catalogue.mlperf.fixture import read, records
from catalogue.models import (
    Category,
    MlperfBenchmark,
    MlperfLoad,
    MlperfRound,
    MlperfRun,
    MlperfScore,
    MlperfSystem,
    Technique,
    Work,
)

FIXTURE = "mlperf.json.gz"
BENCHMARKS = "mlperf_benchmarks.json"
BATCH = 2000
BENCHMARK_FIELDS = ("name", "task", "dataset", "quality_target", "aliases", "network")


def load_mlperf(fixtures: Path) -> str:
    """Load the MLPerf fixture of the `fixtures` folder; say what was done."""
    path, benchmarks_path = fixtures / FIXTURE, fixtures / BENCHMARKS
    if not path.exists() or not benchmarks_path.exists():
        return "MLPerf: no fixture, nothing loaded"
    raw_benchmarks = benchmarks_path.read_bytes()
    fixture, raw = read(path)
    digest = hashlib.sha256(raw + b"\0" + raw_benchmarks).hexdigest()
    if MlperfLoad.objects.filter(sha256=digest).exists():
        return "MLPerf: unchanged"
    with transaction.atomic():
        slugs = load_benchmarks(json.loads(raw_benchmarks))
        counts = replace_results(fixture, slugs)
        MlperfLoad.objects.all().delete()
        MlperfLoad.objects.create(sha256=digest)
    return "MLPerf: {} rounds, {} systems, {} runs, {} scores".format(*counts)


def load_benchmarks(document: dict) -> dict[str, MlperfBenchmark]:
    works = dict(Work.objects.values_list("key", "pk"))
    techniques = dict(Technique.objects.values_list("slug", "pk"))
    categories = dict(Category.objects.values_list("code", "pk"))
    sources = document["rules"]
    loaded = {}
    for order, entry in enumerate(document["benchmarks"]):
        defaults = {name: entry[name] for name in BENCHMARK_FIELDS}
        defaults |= {
            "order": order,
            "work_id": works.get(entry["work"]),
            "link_evidence": entry["link_evidence"],
            "sources": [sources[name] for name in entry["sources"]],
        }
        benchmark, _ = MlperfBenchmark.objects.update_or_create(
            slug=entry["slug"], defaults=defaults
        )
        benchmark.techniques.set([techniques[s] for s in entry["techniques"] if s in techniques])
        benchmark.categories.set([categories[c] for c in entry["categories"] if c in categories])
        loaded[benchmark.slug] = benchmark
    return loaded


def replace_results(fixture: dict, benchmarks: dict[str, MlperfBenchmark]) -> tuple:
    MlperfScore.objects.all().delete()
    MlperfRun.objects.all().delete()
    MlperfSystem.objects.all().delete()
    MlperfRound.objects.all().delete()
    rounds = {}
    for order, entry in enumerate(fixture["rounds"]):
        rounds[entry["version"]] = MlperfRound.objects.create(order=order, **entry)
    systems = MlperfSystem.objects.bulk_create(
        [
            MlperfSystem(**(row | {"round": rounds[row["round"]]}))
            for row in records(fixture, "systems")
        ],
        batch_size=BATCH,
    )
    runs = [
        MlperfRun(**(row | {"system": systems[row["system"]], "benchmark": benchmarks[slug]}))
        for row in records(fixture, "runs")
        if (slug := row["benchmark"])
    ]
    MlperfRun.objects.bulk_create(runs, batch_size=BATCH)
    scores = [
        MlperfScore(
            **(row | {"system": systems[row["system"]], "benchmark": benchmarks[row["benchmark"]]})
        )
        for row in records(fixture, "scores")
    ]
    MlperfScore.objects.bulk_create(scores, batch_size=BATCH)
    return len(rounds), len(systems), len(runs), len(scores)
