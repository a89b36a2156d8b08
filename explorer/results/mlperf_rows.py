"""MLPerf Training scores as the results room shows them: one row per (round, system, benchmark)
with its derived figures, read in a fixed number of queries and kept once per catalogue version
(explorer/web/memo.py), with the charts' aggregates; the runs of one system, for its pages."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from catalogue.devices import devices
from catalogue.graph import graph_version
from catalogue.models import MlperfBenchmark, MlperfRun, MlperfScore, MlperfSystem
from explorer.planner.data import catalogue_formulas
from explorer.planner.networks import networks, totals
from explorer.planner.transformer import PRESETS, training_flops
from explorer.web.links import link
from explorer.web.memo import per_version

from .mlperf_figures import (
    FlopCount,
    mixed_peak,
    per_accelerator,
    samples_per_second,
    scaling_efficiency,
)

# The benchmarks whose network the planner counts, trained as the planner counts it (a whole
# model from its start: not llama2_70b_lora, whose frozen weights have no weight gradients).
COUNTED = {"resnet": "resnet-50", "bert": "bert-large", "gpt3": "gpt3-175b"}


def flop_counts() -> dict[str, FlopCount]:
    """The planner's model FLOPs per sample (forward and backward, no recomputation)."""
    formulas = catalogue_formulas()
    resnet = totals(networks()["resnet-50"], formulas, 1)["flops_per_step"]
    counts = {
        "resnet": FlopCount(
            "resnet-50",
            resnet,
            "model FLOPs per 224×224 image, forward and backward, from the catalogue's "
            "operator formulas (2 per multiply-add)",
        )
    }
    for slug in ("bert", "gpt3"):
        config = PRESETS[COUNTED[slug]].config
        counts[slug] = FlopCount(
            COUNTED[slug],
            training_flops(config, 1, "none"),
            f"model FLOPs per {config.seq_len}-token sequence, forward and backward, without "
            "recomputation"
            + (
                " (MLPerf's BERT sequences are at most 512 tokens: an upper bound)"
                * (slug == "bert")
            ),
        )
    return counts


def _throughputs() -> dict[tuple[int, int], tuple[list[float], str]]:
    found: dict[tuple[int, int], tuple[list[float], str]] = {}
    runs = MlperfRun.objects.filter(status="success", throughput__isnull=False).values_list(
        "system_id", "benchmark_id", "throughput", "throughput_unit"
    )
    for system, benchmark, throughput, unit in runs:
        found.setdefault((system, benchmark), ([], unit))[0].append(throughput)
    return found


def _techniques() -> dict[int, list[str]]:
    through = MlperfBenchmark.techniques.through.objects.values_list(
        "mlperfbenchmark_id", "technique__slug"
    )
    slugs: dict[int, list[str]] = defaultdict(list)
    for benchmark, slug in through:
        slugs[benchmark].append(slug)
    return slugs


def score_row(score: MlperfScore) -> dict[str, Any]:
    system, rnd, bench = score.system, score.system.round, score.benchmark
    return {
        "id": score.pk,
        "round": rnd.version,
        "round_order": rnd.order,
        "submitter": system.submitter,
        "division": system.division,
        "availability": system.availability,
        "system": system.system_id,
        "system_pk": system.pk,
        "system_name": system.name,
        "nodes": system.nodes,
        "accelerators": system.accelerators,
        "accelerator": system.accelerator,
        "device": system.device_slug,
        "benchmark": bench.slug,
        "benchmark_name": bench.name,
        "network": bench.network,
        "minutes": score.minutes,
        "rule": score.rule,
        "rule_text": score.rule_text,
        "rule_url": score.rule_url,
        "rcp": score.rcp,
        "runs": f"{score.runs_successful}/{score.runs_required}",
        "note": score.note,
        "system_url": link("results:mlperf-system", system.pk),
        "url": link("results:mlperf-score", system.pk, bench.slug),
        "source_url": rnd.file_url(system.path),
    }


def _figures(row: dict, throughputs: dict, flops: dict[str, FlopCount], pks: tuple) -> list:
    values, unit = throughputs.get(pks, ([], ""))
    device = devices().get(row["device"])
    peak = mixed_peak(device.peak_flops) if device else None
    samples = samples_per_second(values, unit)
    return per_accelerator(samples, row["accelerators"], flops.get(row["benchmark"]), peak)


def compute_rows() -> list[dict[str, Any]]:
    """Every score with its derived figures (5 queries, whatever the number of scores)."""
    scores = MlperfScore.objects.select_related("system__round", "benchmark")
    throughputs, techniques, flops = _throughputs(), _techniques(), flop_counts()
    rows = []
    for score in scores:
        row = score_row(score)
        row["techniques"] = techniques.get(score.benchmark_id, [])
        pks = (score.system_id, score.benchmark_id)
        row["figures"] = _figures(row, throughputs, flops, pks)
        rows.append(row)
    efficiency = scaling_efficiency(rows)
    for row in rows:
        if row["id"] in efficiency:
            row["figures"].append(efficiency[row["id"]])
    return rows


# This process's copy of the latest rows and aggregates, by name: unpickling 5,000 rows from the
# shared cache on every request cost 100 ms (bench/mlperf_bench.py). Read-only once built.
_latest: dict[str, tuple[str, Any]] = {}


def in_process[T](name: str, compute: Callable[[], T]) -> T:
    """`per_version`, with this process's copy of the latest value in front of it."""
    version = graph_version()
    kept = _latest.get(name)
    if kept is None or kept[0] != version:
        kept = (version, per_version(name, compute))
        _latest[name] = kept
    return kept[1]


def all_rows() -> list[dict[str, Any]]:
    return in_process("mlperf-rows", compute_rows)


def system_runs(system: MlperfSystem) -> list[MlperfRun]:
    return list(system.runs.select_related("benchmark").order_by("benchmark__order", "index"))
