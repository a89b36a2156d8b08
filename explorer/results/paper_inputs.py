"""What the planner needs of a measured result that the result's record does not hold: the
paper's batch, epochs, model shape, layout or machine, each value with where it comes from (a
page, a log at a commit, or "recalled: ..." when no stored page shows it). Pure data: the
predictions (predictions.py, predict_cnn.py, predict_transformer.py) read it by result id.

Every value here is an INPUT of a prediction, never a measurement: the measured figures stay in
fixtures/results.json with their own sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MEGATRON_2019_README = (
    "https://github.com/NVIDIA/Megatron-LM/blob/78cb1781250676cae9c05fd5e222034d515bcf16/README.md"
)
MEGATRON_TABLE_1 = (
    "https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/"
    "examples/academic_paper_scripts/sc21/run_table_1.sh"
)
MEGATRON_VOCAB = (
    "https://github.com/NVIDIA/Megatron-LM/blob/145d2eb947a614fdf81e73efd0cf417c1bc5ac94/"
    "README.md (vocabulary 51,200, sequence 2048)"
)
MLPERF_V06 = "https://github.com/mlcommons/training_results_v0.6/blob/f312518c2d6107eec983750eed23950f1f0c8a0e/"
GOOGLE_V06_LOG = MLPERF_V06 + "Google/results/tpu-v3-2048/resnet/result_0.txt"


IBM_DDL = "https://www.ibm.com/blogs/systems/scaling-tensorflow-and-caffe-to-256-gpus/"
LAMB_TABLE = "https://www.arxiv-vanity.com/papers/1904.00962/"
LAMB_PHASES = (
    f"8599 steps at batch 65536/32768 in 76.19 min on 1024 TPUs (Table 1 of arXiv 1904.00962 v1, "
    f"rendered at {LAMB_TABLE}); BERT's two phases, 90 % of the epochs at sequences of 128 "
    "tokens (batch 65536), 10 % at 512 (batch 32768) (https://www.opendl.in/post/google-brain-lamb"
    "): steps in the ratio 0.9/65536 : 0.1/32768 = 4.5 : 1"
)


def recalled(what: str) -> str:
    return f"recalled (not read on a stored page): {what}"


@dataclass(frozen=True)
class Given:
    """A value the planner takes for a result, with its source."""

    value: Any
    source: str


@dataclass(frozen=True)
class Phase:
    """A stretch of training with one sequence length and batch, for so many steps."""

    seq_len: int
    batch: int
    steps: float
    source: str


@dataclass(frozen=True)
class TransformerRun:
    """A transformer result as the planner runs it: a preset (`network`) or the planner's custom
    transformer with the paper's sizes (`shape`), the paper's layout, batch, precision and
    recomputation, the devices per node, and which FLOP count the paper's figure uses."""

    network: str
    shape: dict[str, Given] = field(default_factory=dict)
    layout: dict[str, Given] = field(default_factory=dict)
    batch: Given | None = None
    micro_batch_size: Given | None = None
    recompute: str = "full"
    devices_per_node: Given | None = None
    count: str = "megatron"  # the paper's count: "megatron" (with recomputation) or "model"
    count_source: str = ""
    P: Given | None = None  # when the record gives no device count (device-hours)
    phases: tuple[Phase, ...] = ()  # a time to train in phases (count "phases")
    device: Given | None = None  # the device when the record's names another (its source)
    utilisation: Given | None = None  # count "model": a utilisation the record does not hold
    offload: bool = False  # ZeRO-Offload: optimizer state and update on the host (offload.py)


DEEPSPEED = "https://github.com/microsoft/DeepSpeed/blob/38327e07f6cd39b63418f60cedd1651b0be3e7c3/"
ZERO_OFFLOAD_TUTORIAL = DEEPSPEED + "docs/_tutorials/zero-offload.md"
ZERO2_TUTORIAL = DEEPSPEED + "docs/_tutorials/megatron.md"
ZERO_OFFLOAD_SCRIPT = (
    "https://github.com/microsoft/DeepSpeedExamples/blob/d0bc4e8c67a683410c8267aefcff95c0a4fa13bf/"
    "Megatron-LM/model_size_test/ds_zero-offload_10B_pretrain_gpt2_model_parallel.sh"
)
GPT2_PADDED_VOCAB = recalled("GPT-2's 50,257 padded to a multiple of 128 (Megatron-LM's default)")
MEGATRON_COUNT_ASSUMED = recalled(
    "the paper's count is not recorded: Megatron-LM 2021's (with recomputation, which the runs "
    "used) assumed"
)
PALM_TABLE = recalled("PaLM's Table 1 (arXiv 2204.02311), 540B row")


FIRECAFFE = {
    "baseline_devices": Given(
        1, "the record's claim: a speedup over one GPU to 128 (the abstract's comparison)"
    ),
    "strategy": Given(
        "data-tree",
        "FireCaffe's reduction tree (the record's strategy): the planner's tree allreduce",
    ),
}


# The CNN results' missing inputs: batch and epochs (time to train), or the batch alone
# (throughput, samples per second).
CNN_GIVEN: dict[str, dict[str, Given]] = {
    "kumar2019-mlperf-resnet50": {
        "batch": Given(32768, f"Google's MLPerf v0.6 log of this system, {GOOGLE_V06_LOG}"),
        "epochs": Given(72, f"epochs at the target in the same log, {GOOGLE_V06_LOG}"),
    },
    "ying2018-resnet50-tpu-pod": {
        "batch": Given(
            32768,
            "assumed: the paper's batch is not recorded; the 32,768 of the same authors' "
            f"MLPerf v0.6 ResNet-50 runs on a 1024-chip TPU v3 pod ({GOOGLE_V06_LOG})",
        ),
    },
    "cho2017-resnet101-22k": {
        "batch": Given(
            8192,
            "assumed: 32 images per GPU x 256 GPUs, as the same paper's ResNet-50 run ("
            + recalled("32 per GPU")
            + "); the speedup changes with it only through the exchange's share",
        ),
        "baseline_devices": Given(
            4, f"'16 days on a single Power Systems server ... with four NVIDIA P100' ({IBM_DDL})"
        ),
        "baseline_interconnect": Given(
            "NVLink within one server",
            recalled("the S822LC's four P100 GPUs on NVLink") + ", the planner's NVLink link",
        ),
    },
    "iandola2016-firecaffe-googlenet": FIRECAFFE,
    "iandola2016-firecaffe-nin": FIRECAFFE,
    "cho2017-resnet50-256gpu": {
        "batch": Given(8192, recalled("32 images per GPU x 256 GPUs")),
    },
    "mikami2018-resnet50-224s": {
        "batch": Given(69632, recalled("'68K' (32 per GPU x 2176 GPUs)")),
        "epochs": Given(90, recalled("90 epochs, as the result's note says")),
    },
    "mikami2019-resnet50-122s": {
        "batch": Given(55296, recalled("'54K' (16 per GPU x 3456 GPUs)")),
        "epochs": Given(90, recalled("90 epochs")),
    },
    "you2017-resnet50-m40-baseline": {
        "batch": Given(
            256,
            "any: on one device the planner's time to train does not depend on the batch (no "
            "exchange; compute is linear in it); 256 is used",
        ),
    },
}


def _megatron_530b(table: str) -> dict[str, Given]:
    return {
        "layers": Given(105, f"{MEGATRON_TABLE_1} (the 530B row){table}"),
        "hidden": Given(20480, f"{MEGATRON_TABLE_1} (the 530B row){table}"),
        "heads": Given(128, f"{MEGATRON_TABLE_1} (the 530B row){table}"),
        "seq_len": Given(2048, MEGATRON_VOCAB),
        "vocab": Given(51200, MEGATRON_VOCAB),
    }


SAME_530B = "; the same shape in this paper: " + recalled("105 x 20480, 128 heads")
NARAYANAN_COUNT = (
    "Megatron-LM 2021's count (Narayanan et al., arXiv 2104.04473, §5.1): 96·B·s·l·h²·(1 + "
    "s/6h + V/16lh), which counts the recomputed forward pass"
)
DGX2_NODE = Given(
    16,
    recalled("16 V100 GPUs per DGX-2 on NVSwitch")
    + "; the DGX-2H's V100 (SXM3, clocked higher) has no peak in the device catalogue: the "
    "V100 SXM2 32GB's figures are taken",
)
DGX_A100_NODE = Given(8, "8 A100 GPUs per DGX A100 node (the planner's a100-cluster preset)")

TRANSFORMER_RUNS: dict[str, TransformerRun] = {
    "narayanan2021-megatron-1t": TransformerRun(
        "megatron-1t",
        count_source=NARAYANAN_COUNT + " (the paper's own)",
        devices_per_node=DGX_A100_NODE,
    ),
    "narayanan2021-megatron-175b": TransformerRun(
        "gpt3-175b",
        count_source=NARAYANAN_COUNT + " (the paper's own)",
        devices_per_node=DGX_A100_NODE,
    ),
    "shoeybi2019-megatron-512gpu": TransformerRun(
        "transformer",
        shape={
            "layers": Given(72, MEGATRON_2019_README + " ('a 72-layer, 8.3 billion parameter')"),
            "hidden": Given(3072, recalled("hidden size 3072 (the paper's Table 1)")),
            "heads": Given(32, recalled("32 attention heads (Table 1)")),
            "seq_len": Given(1024, recalled("sequences of 1024 tokens")),
            "vocab": Given(51200, recalled("GPT-2's 50,257 padded to a multiple of 1024")),
        },
        micro_batch_size=Given(8, "derived: batch 512 / 64 data-parallel replicas"),
        devices_per_node=DGX2_NODE,
        count_source=recalled(
            "the 2019 paper's count is not recorded: Megatron-LM 2021's (with recomputation, "
            "which the 2019 runs used) assumed"
        ),
    ),
    "shoeybi2019-megatron-1gpu": TransformerRun(
        "transformer",
        shape={
            "layers": Given(40, recalled("40 layers (Table 1, the 1.2B model)")),
            "hidden": Given(1536, recalled("hidden size 1536 (Table 1)")),
            "heads": Given(16, recalled("16 attention heads (Table 1)")),
            "seq_len": Given(1024, recalled("sequences of 1024 tokens")),
            "vocab": Given(50304, recalled("GPT-2's 50,257 padded to a multiple of 128")),
        },
        layout={"tp": Given(1, "one GPU"), "pp": Given(1, "one GPU"), "dp": Given(1, "one GPU")},
        batch=Given(8, recalled("8 sequences per GPU")),
        micro_batch_size=Given(8, recalled("8 sequences per GPU")),
        count_source=recalled(
            "the 2019 paper's count is not recorded: Megatron-LM 2021's (with recomputation) "
            "assumed"
        ),
    ),
    "korthikanti2022-530b-selective": TransformerRun(
        "transformer",
        shape=_megatron_530b(SAME_530B),
        recompute="selective",
        devices_per_node=DGX_A100_NODE,
        count="model",
        count_source="model FLOPs utilisation (the record's note): the planner's model FLOPs, "
        "without recomputation",
    ),
    "korthikanti2022-530b-full-recompute": TransformerRun(
        "transformer",
        shape=_megatron_530b(SAME_530B),
        recompute="full",
        devices_per_node=DGX_A100_NODE,
        count="model",
        count_source="model FLOPs utilisation: the planner's model FLOPs, without recomputation",
    ),
    "smith2022-mtnlg-530b": TransformerRun(
        "transformer",
        shape=_megatron_530b(SAME_530B),
        devices_per_node=DGX_A100_NODE,
        count_source=recalled(
            "the paper's count is not recorded: Megatron-LM 2021's (with recomputation) assumed"
        )
        + "; "
        + NARAYANAN_COUNT,
    ),
    "touvron2023-llama2-70b": TransformerRun(
        "llama2-70b",
        devices_per_node=DGX_A100_NODE,
        recompute="none",
        count="time",
        P=Given(
            2048,
            "assumed: the paper gives no device count; device-hours change with it only through "
            "the exchange and the pipeline's idle time",
        ),
    ),
    "touvron2023-llama2-7b": TransformerRun(
        "llama2-7b",
        devices_per_node=DGX_A100_NODE,
        recompute="none",
        count="time",
        P=Given(
            256,
            "assumed: the paper gives no device count; device-hours change with it only through "
            "the exchange and the pipeline's idle time",
        ),
    ),
    "brown2020-gpt3-175b": TransformerRun("gpt3-175b", count="total"),
    "ren2021-zerooffload-1gpu": TransformerRun(
        "transformer",
        shape={
            "layers": Given(50, f"{ZERO_OFFLOAD_TUTORIAL} (--num-layers 50)"),
            "hidden": Given(4096, f"{ZERO_OFFLOAD_TUTORIAL} (--hidden-size 4096)"),
            "heads": Given(32, f"{ZERO_OFFLOAD_TUTORIAL} (--num-attention-heads 32)"),
            "seq_len": Given(1024, f"{ZERO_OFFLOAD_SCRIPT} (--seq-length 1024)"),
            "vocab": Given(50304, GPT2_PADDED_VOCAB),
        },
        layout={
            "tp": Given(1, f"{ZERO_OFFLOAD_TUTORIAL} (--model-parallel-size 1, one GPU)"),
            "pp": Given(1, "one GPU"),
            "dp": Given(1, "one GPU"),
            "zero": Given(2, f"{ZERO_OFFLOAD_TUTORIAL} (zero_optimization stage 2, offload cpu)"),
        },
        batch=Given(
            10,
            f"{ZERO_OFFLOAD_TUTORIAL} (--batch-size 10): DeepSpeed's tutorial of the same setting "
            "(a 10B GPT-2 on one V100); the paper's own batch is not recorded",
        ),
        micro_batch_size=Given(10, "derived: the batch on one GPU"),
        device=Given(
            "NVIDIA V100 32GB",
            f"'a single NVIDIA Tesla V100-SXM3 ... with 32GB' ({ZERO_OFFLOAD_TUTORIAL}); the "
            "catalogue's SXM3 row states no peak: the V100 SXM2 32GB's figures are taken",
        ),
        offload=True,
        count_source=MEGATRON_COUNT_ASSUMED + "; " + NARAYANAN_COUNT,
    ),
    "rajbhandari2020-zero-100b": TransformerRun(
        "transformer",
        shape={
            "layers": Given(125, recalled("125 layers (the ZeRO paper's 100B configuration)")),
            "hidden": Given(8192, recalled("hidden size 8192 (the same configuration)")),
            "heads": Given(32, recalled("32 attention heads (the same configuration)")),
            "seq_len": Given(
                1024,
                "assumed: DeepSpeed's Megatron GPT-2 scripts' sequence length, e.g. "
                f"{ZERO_OFFLOAD_SCRIPT} (--seq-length 1024)",
            ),
            "vocab": Given(50304, GPT2_PADDED_VOCAB),
        },
        layout={
            "tp": Given(16, recalled("Megatron model parallelism of 16, one DGX-2")),
            "pp": Given(
                1, f"ZeRO-2 with Megatron-LM model parallelism, no pipeline ({ZERO2_TUTORIAL})"
            ),
            "dp": Given(25, "derived: 400 GPUs / 16"),
            "zero": Given(2, f"ZeRO-2 for the 100B runs on 400 V100 GPUs ({ZERO2_TUTORIAL})"),
        },
        batch=Given(
            100,
            "assumed (the record gives none): 4 sequences per data-parallel replica, the largest "
            "power of two whose activations fit in 32 GB by the planner's memory model; the ratio "
            "moves with it through the exposed exchange's share (8 a replica, which does not "
            "fit: ratio 0.44 instead of 0.55)",
        ),
        micro_batch_size=Given(4, "derived: batch 100 / 25 replicas"),
        devices_per_node=DGX2_NODE,
        count_source=MEGATRON_COUNT_ASSUMED + "; " + NARAYANAN_COUNT,
    ),
    "chowdhery2022-palm-540b": TransformerRun(
        "transformer",
        shape={
            "layers": Given(118, PALM_TABLE),
            "hidden": Given(18432, PALM_TABLE),
            "heads": Given(
                48,
                PALM_TABLE + "; the planner's heads are hidden / heads = 384 wide "
                "(PaLM's 256): its q and o projections count 26.7B more",
            ),
            "kv_heads": Given(
                12,
                "approximation: PaLM's multi-query attention has one key/value head, kept on "
                "each of the 12 model-parallel shards; the planner needs tp to divide the "
                "key/value heads, so 12 are counted (18.6B more)",
            ),
            "ffn_hidden": Given(73728, recalled("d_ff = 4 x 18432 with SwiGLU (PaLM's §2)")),
            "gated": Given(True, recalled("SwiGLU (PaLM's §2)")),
            "seq_len": Given(2048, recalled("sequences of 2048 tokens (PaLM's §5)")),
            "vocab": Given(256000, recalled("a 256k-token SentencePiece vocabulary (PaLM's §2)")),
        },
        layout={
            "zero": Given(
                3,
                "approximation: PaLM shards its weights over the data axis too (2-D weight "
                "sharding), taken as ZeRO-3 over the 512 data-parallel replicas",
            ),
        },
        devices_per_node=Given(
            12,
            "approximation: the planner keeps a tensor group inside a node; a TPU v4 pod's "
            "chips share one torus, so groups of 12 chips on the pod's link are taken as nodes",
        ),
        batch=Given(2048, recalled("2048 sequences, the last of the batch ramp 512/1024/2048")),
        micro_batch_size=Given(4, "derived: 2048 / 512 data-parallel replicas"),
        utilisation=Given(
            0.462,
            recalled("model FLOPs utilisation 46.2 % (PaLM's Table 3, the record's note)")
            + "; the record's figure, 57.8 %, is hardware FLOPs utilisation (with "
            "rematerialization): model FLOPs are compared with model FLOPs",
        ),
        recompute="full",
        count="model",
        count_source="model FLOPs utilisation (recalled, 46.2 %) against the planner's model "
        "FLOPs (without recomputation), the same count on both sides; the planner's step "
        "recomputes the forward pass (derived: the paper's hardware / model utilisation, 57.8 / "
        "46.2 = 1.25, is near full recomputation's 4/3)",
    ),
    "you2020-lamb-bert": TransformerRun(
        "bert-large",
        layout={"tp": Given(1, "data parallelism"), "pp": Given(1, "data parallelism")},
        recompute="none",
        count="phases",
        phases=(
            Phase(128, 65536, 8599 * 4.5 / 5.5, "derived: " + LAMB_PHASES),
            Phase(512, 32768, 8599 * 1 / 5.5, "derived: " + LAMB_PHASES),
        ),
    ),
}

# Why a result stays unpredicted, where the generic checks would say less.
NOT_EXPRESSIBLE: dict[str, str] = {
    "krizhevsky2012-alexnet-2gpu": (
        "the planner's model parallelism for a CNN splits whole layers between devices; "
        "AlexNet split each layer's kernels between its two GPUs (no such layout), and its "
        "epochs are not recorded"
    ),
    "lepikhin2020-gshard-600b": (
        "the MoE model's shape (experts per layer, hidden sizes) and the tokens trained on in "
        "the 4 days are not recorded (tensorflow/lingvo's GShard configurations at e0be5dc4 are "
        "dense language models, not the 600B translation model); GShard's 2-D sharding of "
        "experts over 2048 TPU v3 cores is no layout of the planner's"
    ),
    "rajbhandari2021-zeroinfinity-512gpu": (
        "the run's model is not recorded: DeepSpeed's ZeRO-3 Offload post "
        f"({DEEPSPEED}docs/_posts/2021-03-08-zero3-offload.md) states 1 trillion parameters, 25 "
        "petaflops on 512 V100 GPUs and 49 TFLOP/s per GPU, but no stored first-hand page gives "
        "its layers, hidden size or batch per GPU, nor where (CPU or NVMe) its parameters and "
        "optimizer state were offloaded; the host term for a CPU offload exists (offload.py)"
    ),
    "le2012-autoencoder-16000cores": (
        "the planner lacks the network (a locally connected sparse autoencoder) and the "
        "device (CPU cores: no peak on a page), and DistBelief's asynchronous model-parallel "
        "replicas are no layout of the planner's"
    ),
    "coates2013-1b-3machines": (
        "nothing timed is recorded (the figure is a machine count), and the planner lacks the "
        "network (a sparse autoencoder)"
    ),
    "coates2013-11b-16machines": (
        "nothing timed is recorded (the figure is a machine count), and the planner lacks the "
        "network (a sparse autoencoder)"
    ),
    "chilimbi2014-adam-22k": (
        "the planner lacks the network (Adam's 2-billion-connection CNN) and the devices "
        "(commodity CPU servers: no peak on a page); the asynchronous parameter server with "
        "model-parallel replicas is no layout of the planner's"
    ),
    "huang2019-gpipe-amoebanet": (
        "nothing timed is recorded (the figure is an accuracy), nor the device count; the "
        "planner lacks AmoebaNet-B"
    ),
    "huang2019-gpipe-transformer-6b": (
        "no figure is recorded for this result, nor its device count"
    ),
    "narayanan2019-pipedream": (
        "the 5.3x speedup is over five networks and two clusters, not one configuration; the "
        "planner lacks GNMT and the AWD language model"
    ),
    "fedus2021-switch-base": (
        "the speedup is in steps to reach a quality (sample efficiency), which the planner "
        "does not model, and the device count is not recorded"
    ),
    "fedus2021-switch-xxl": (
        "the speedup is in steps to reach a quality (sample efficiency), which the planner "
        "does not model, and the device count is not recorded"
    ),
}
