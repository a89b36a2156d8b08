"""MLPerf Training's benchmarks as the planner expresses them: the planner network, the model
family the efficiency is fitted per, the layout (data parallel pinned, or the planner's layout
search: the submitters' logs in the catalogue do not state their tensor and pipeline sizes), the
planner inputs MLPerf's configuration fixes, and how many samples one unit of logged progress is.
A benchmark the planner cannot express says why (`not_expressible`); expressing it later is
deleting that text (and adding the planner input that expresses it to `inputs`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from explorer.workloads.transformers.shapes import PRESETS

# ImageNet-1k's training images (the standard split), as the results' predictions count them.
IMAGENET_TRAIN = 1_281_167
# MLPerf's sequence lengths: BERT's packed sequences of at most 512 tokens, GPT-3's 2,048 and the
# Llama benchmarks' 8,192 (the reference implementations in mlcommons/training).
BERT_SEQ, GPT3_SEQ, LLAMA_SEQ = 512, 2048, 8192
MLPERF_REFERENCE = "https://github.com/mlcommons/training"
LAYOUT_SEARCH = (
    "the planner's layout search (the fastest P = dp × tp × pp that fits; the submitters' logs "
    "in the catalogue do not state their tensor and pipeline sizes)"
)
DATA_PARALLEL = "data parallel (tp = pp = 1, pinned), as MLPerf's submissions train it"


@dataclass(frozen=True)
class Benchmark:
    slug: str  # MLPerf's benchmark slug (catalogue MlperfBenchmark.slug)
    network: str  # the planner's network key
    family: str  # the model family the efficiency is fitted per
    layout: str  # how the layout is chosen, in words
    units: dict[str, float]  # logged progress unit -> samples per unit
    units_text: str
    inputs: dict[str, Any] = field(default_factory=dict)  # planner inputs MLPerf fixes
    strategy: str = ""  # the planner strategies taken (slug prefix; "": the best that fits)
    not_expressible: str = ""
    # Fewer samples than this to the target: the log's progress is in another unit (an epoch or
    # step count logged as samples, as some early BERT logs do); that run is not used.
    least_samples: float = 0
    # Whether the planner's FLOPs per sample are the run's: not for BERT, whose samples are
    # sequences of at most 512 tokens (packed), where the planner counts 512 each; its MFU
    # would read above 1, so it is not stated (unknown).
    flops_known: bool = True
    # Whether the score's time is its training time: the runs' evaluations (eval_start to
    # eval_stop in their logs, fixtures/mlperf_evaluations.json) taken out, since the planner
    # predicts training steps. Not for ResNet and BERT, whose logs mostly do not mark them
    # (NVIDIA's BERT logs have no eval_start): their scores keep the whole time.
    training_time: bool = True


# Between nodes, the data-parallel exchange of a transformer takes Rabenseifner's cost shape:
# NCCL's tree allreduce at scale, log2(nodes) latency steps at the ring's bandwidth
# (layouts/exchange.py's ACROSS_NODES, read in NCCL's tuning model).
TRANSFORMER = {"optimizer": "adam", "attention": "flash", "allreduce": "rabenseifner"}
# MLPerf's Llama 2 70B LoRA as the planner's preset (its frozen base and rank-16 adapters): the
# benchmark is expressible as soon as the planner has it.
LORA_NETWORK = "llama2-70b-lora"
# MLPerf's GPT-3 175B configuration (MLCommons' reference) where the planner has it as a preset,
# else the paper's GPT-3 175B (the same shape: 96 layers, hidden 12,288, 2,048 tokens).
GPT3_NETWORK = "gpt3-175b-mlperf" if "gpt3-175b-mlperf" in PRESETS else "gpt3-175b"

BENCHMARKS: dict[str, Benchmark] = {
    b.slug: b
    for b in (
        Benchmark(
            "resnet",
            "resnet-50",
            "cnn",
            DATA_PARALLEL + ", the fastest of the planner's allreduce algorithms",
            {"epochs": IMAGENET_TRAIN, "samples": 1},
            f"epochs × ImageNet-1k's {IMAGENET_TRAIN:,} training images",
            {"optimizer": "momentum"},
            "data-",
            training_time=False,
        ),
        Benchmark(
            "bert",
            "bert-large",
            "encoder",
            DATA_PARALLEL,
            {"samples": 1},
            f"samples (sequences of at most {BERT_SEQ} tokens) as logged",
            {"seq_len": BERT_SEQ, "tp": 1, "pp": 1, **TRANSFORMER},
            "data",
            least_samples=100_000,
            flops_known=False,
            training_time=False,
        ),
        Benchmark(
            "gpt3",
            GPT3_NETWORK,
            "decoder",
            LAYOUT_SEARCH,
            {"tokens": 1 / GPT3_SEQ, "samples": 1},
            f"tokens as logged / {GPT3_SEQ:,} tokens per sequence",
            {"seq_len": GPT3_SEQ, **TRANSFORMER},
        ),
        Benchmark(
            "llama31_8b",
            "llama3.1-8b",
            "decoder",
            LAYOUT_SEARCH,
            {"samples": 1},
            f"samples (sequences of {LLAMA_SEQ:,} tokens) as logged",
            {"seq_len": LLAMA_SEQ, **TRANSFORMER},
        ),
        Benchmark(
            "llama31_405b",
            "llama3.1-405b",
            "decoder",
            LAYOUT_SEARCH,
            {"samples": 1},
            f"samples (sequences of {LLAMA_SEQ:,} tokens) as logged",
            {"seq_len": LLAMA_SEQ, **TRANSFORMER},
        ),
        Benchmark(
            "llama2_70b_lora",
            LORA_NETWORK,
            "lora",
            LAYOUT_SEARCH,
            {"samples": 1},
            f"samples (sequences of {LLAMA_SEQ:,} tokens) as logged",
            {"seq_len": LLAMA_SEQ, **TRANSFORMER},
            not_expressible=""
            if LORA_NETWORK in PRESETS
            else (
                "not expressible: the planner has no LoRA yet (a frozen base whose weights have "
                "no gradients or optimizer state, trained adapters, and only the adapters' "
                "gradients exchanged); counted as full training it would charge the base's "
                "weight gradients (about a third of a step's FLOPs), its optimizer state and "
                "the whole model's gradient exchange"
            ),
        ),
    )
}
