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

from django.db import connection, transaction

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
    digest = hashlib.sha256(path.read_bytes() + b"\0" + raw_benchmarks).hexdigest()
    if MlperfLoad.objects.filter(sha256=digest).exists():
        return "MLPerf: unchanged"
    fixture, _raw = read(path)
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
    ids = [system.pk for system in systems]
    bench_ids = {slug: benchmark.pk for slug, benchmark in benchmarks.items()}
    runs = insert_rows(MlperfRun, records(fixture, "runs"), ids, bench_ids)
    scores = insert_rows(MlperfScore, records(fixture, "scores"), ids, bench_ids)
    return len(rounds), len(systems), runs, scores


def insert_rows(model, rows: list[dict], systems: list[int], benchmarks: dict[str, int]) -> int:
    """Insert the fixture's rows with one parametrised statement per batch: building 20,000
    model instances for bulk_create costs most of the load. Values are already of the
    columns' types (numbers, text, None); a run without a benchmark is left out."""
    columns = [name for name in rows[0] if name not in ("system", "benchmark")] if rows else []
    names = ["system_id", "benchmark_id", *columns]
    fields = {field.attname: field for field in model._meta.concrete_fields}
    missing = [f for f in fields.values() if f.attname not in names and not f.primary_key]
    names += [field.column for field in missing]
    values = [
        [systems[row["system"]], benchmarks[row["benchmark"]]]
        + [row[c] for c in columns]
        + [field.get_default() for field in missing]
        for row in rows
        if row["benchmark"]
    ]
    quote = connection.ops.quote_name
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        quote(model._meta.db_table), ", ".join(map(quote, names)), ", ".join(["%s"] * len(names))
    )
    with connection.cursor() as cursor:
        for start in range(0, len(values), BATCH):
            cursor.executemany(sql, values[start : start + BATCH])
    return len(values)
