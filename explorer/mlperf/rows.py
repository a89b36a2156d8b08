"""MLPerf Training scores as the results room shows them: one row per (round, system, benchmark)
with its derived figures, read in a fixed number of queries and kept once per catalogue version
(catalogue/version.py), with the charts' aggregates; the runs of one system, for its pages."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from catalogue.devices import devices
from catalogue.models import MlperfBenchmark, MlperfRound, MlperfRun, MlperfScore, MlperfSystem
from catalogue.version import per_version
from explorer.web.links import link
from explorer.workloads.data import catalogue_formulas
from explorer.workloads.datasets import TRAINING_IMAGES
from explorer.workloads.network_model import from_transformer
from explorer.workloads.networks import networks, totals
from explorer.workloads.transformers.shapes import PRESETS

from .figures import (
    FlopCount,
    Progress,
    Run,
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
            from_transformer(config, 1, "none", formulas).totals.flops_per_step,
            f"model FLOPs per {config.seq_len}-token sequence, forward and backward, without "
            "recomputation"
            + (
                " (MLPerf's BERT sequences are at most 512 tokens: an upper bound)"
                * (slug == "bert")
            ),
        )
    return counts


def progress_units(benchmark: str) -> dict[str, Progress]:
    """How many samples a unit of the benchmark's logged progress is, where we know it."""
    units = {"samples": Progress(1, "samples at the last evaluation, as logged")}
    if benchmark == "resnet":
        images = TRAINING_IMAGES["ImageNet-1k"]
        units["epochs"] = Progress(
            images, f"epochs at the last evaluation × ImageNet-1k's {images:,} training images"
        )
    if benchmark == "gpt3":
        length = PRESETS["gpt3-175b"].config.seq_len
        units["tokens"] = Progress(
            1 / length, f"tokens at the last evaluation / {length:,} tokens per sequence"
        )
    return units


def _runs() -> dict[tuple[int, int], list[Run]]:
    found: dict[tuple[int, int], list[Run]] = defaultdict(list)
    runs = MlperfRun.objects.filter(status="success").values_list(
        "system_id",
        "benchmark_id",
        "minutes",
        "at_target",
        "at_target_unit",
        "throughput",
        "throughput_unit",
    )
    for system, benchmark, *fields in runs:
        found[(system, benchmark)].append(Run(*fields))
    return found


def _techniques() -> dict[int, list[str]]:
    through = MlperfBenchmark.techniques.through.objects.values_list(
        "mlperfbenchmark_id", "technique__slug"
    )
    slugs: dict[int, list[str]] = defaultdict(list)
    for benchmark, slug in through:
        slugs[benchmark].append(slug)
    return slugs


# The columns a row needs, read as values: model instances of 5,000 scores with their systems,
# rounds and benchmarks took a second to build (bench/mlperf_bench.py).
SCORE_COLUMNS = {
    "id": "pk",
    "system_pk": "system_id",
    "benchmark_pk": "benchmark_id",
    "round": "system__round__version",
    "round_order": "system__round__order",
    "repository": "system__round__repository",
    "commit": "system__round__commit",
    "submitter": "system__submitter",
    "division": "system__division",
    "availability": "system__availability",
    "system": "system__system_id",
    "system_name": "system__name",
    "nodes": "system__nodes",
    "accelerators": "system__accelerators",
    "accelerator": "system__accelerator",
    "device": "system__device_slug",
    "path": "system__path",
    "benchmark": "benchmark__slug",
    "benchmark_name": "benchmark__name",
    "network": "benchmark__network",
    "minutes": "minutes",
    "rule": "rule",
    "rule_text": "rule_text",
    "rule_url": "rule_url",
    "rcp": "rcp",
    "runs_successful": "runs_successful",
    "runs_required": "runs_required",
    "note": "note",
}


def score_row(values: tuple, rounds: dict[tuple, MlperfRound]) -> dict[str, Any]:
    """A score's row from its SCORE_COLUMNS values, with its pages and its system's source
    (`rounds`: one unsaved round per repository and commit, whose file_url writes the link)."""
    row = dict(zip(SCORE_COLUMNS, values, strict=True))
    where = (row.pop("repository"), row.pop("commit"))
    if where not in rounds:
        rounds[where] = MlperfRound(repository=where[0], commit=where[1])
    row["source_url"] = rounds[where].file_url(row.pop("path"))
    row["runs"] = f"{row.pop('runs_successful')}/{row.pop('runs_required')}"
    row["system_url"] = link("mlperf:mlperf-system", row["system_pk"])
    row["url"] = link("mlperf:mlperf-score", row["system_pk"], row["benchmark"])
    return row


def _figures(row: dict, runs: dict, flops: dict[str, FlopCount], pks: tuple) -> list:
    device = devices().get(row["device"])
    peak = mixed_peak(device.peak_flops) if device else None
    rate = samples_per_second(runs.get(pks, []), progress_units(row["benchmark"]))
    return per_accelerator(rate, row["accelerators"], flops.get(row["benchmark"]), peak)


def compute_rows() -> list[dict[str, Any]]:
    """Every score with its derived figures (six queries, whatever the number of scores)."""
    scores = MlperfScore.objects.order_by("pk").values_list(*SCORE_COLUMNS.values())
    runs, techniques, flops = _runs(), _techniques(), flop_counts()
    rows, rounds = [], {}
    for values in scores:
        row = score_row(values, rounds)
        benchmark = row.pop("benchmark_pk")
        row["techniques"] = techniques.get(benchmark, [])
        pks = (row["system_pk"], benchmark)
        row["figures"] = _figures(row, runs, flops, pks)
        rows.append(row)
    efficiency = scaling_efficiency(rows)
    for row in rows:
        if row["id"] in efficiency:
            row["figures"].append(efficiency[row["id"]])
    return rows


def all_rows() -> list[dict[str, Any]]:
    return per_version("mlperf-rows", compute_rows, in_process=True)


def system_runs(system: MlperfSystem) -> list[MlperfRun]:
    return list(system.runs.select_related("benchmark").order_by("benchmark__order", "index"))
