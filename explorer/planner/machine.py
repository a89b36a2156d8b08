"""The machine and the planner's inputs: bounds, presets (with their sources) and validation.

Every input has bounds, so that every computation is bounded: at most MAX_P nodes, at most
MAX_SWEEP_POINTS points in a sweep, and sizes inside the catalogue's variable ranges
(fixtures/cost_models.json: P <= 65536, L <= 1 s, G <= 1e-3 s/byte, gamma <= 16 bytes).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields, replace
from typing import Any

from explorer.workloads.devices import catalogue_devices

from .accuracy.calibration.fit import STACKS
from .nodes import node_values
from .presets import (  # the presets were split from this module; PRESETS read from here too
    DEVICE_FIGURES,
    PRESETS,
)

MAX_P = 65536  # MLPerf systems reach 10,752 GPUs; Llama 3 405B trained on 16,384
MAX_SWEEP_POINTS = 32
MAX_BATCH = 2**20
ALLREDUCE_ALGORITHMS = ("ring", "tree", "butterfly", "rabenseifner")
PRECISIONS = ("fp32", "fp16-mixed", "bf16-mixed", "fp8")
# FP8 as Transformer Engine's recipes train: only the linear layers' GEMMs run in FP8 (their
# inputs and weights quantized on the fly, outputs and gradients returned in high precision);
# weights stored in high precision, the FP32 master copy in the optimizer. So the bytes per
# value kept are those of bf16 mixed precision, and the compute runs at the device's FP8 peak.
FP8_RECIPE = (
    "fp8 as Transformer Engine trains it: linear layers' GEMMs in FP8, weights stored in high "
    "precision (2 bytes) with FP32 master weights in the optimizer, outputs and gradients in "
    "high precision (2 bytes), attention and normalisation in high precision; the FP8 copies "
    "made for the GEMMs are transient (not counted): "
    "https://github.com/NVIDIA/TransformerEngine/blob/1498424bdc2a9953d3046735e763e1487320d520/"
    "docs/features/low_precision_training/introduction/introduction.rst"
)
# Optimizer state values per parameter (beside the weights): SGD none, momentum one, Adam two.
OPTIMIZERS = {"sgd": 0, "momentum": 1, "adam": 2}
MIXED_LOW_BYTES = 2  # fp16 or bf16 weights, gradients, activations and messages
MASTER_BYTES = 4  # the fp32 master weights and moments of mixed precision
# Activation recomputation: "selective" (attention only) applies to transformer layers.
RECOMPUTE = ("none", "selective", "full")
SWITCHES = ("true", "false")  # a boolean input, as the address writes it
# Attention kernels: "flash" (FlashAttention-style, Dao et al. 2022, arXiv 2205.14135) keeps no
# s x s score, softmax or dropout matrix for the backward pass and recomputes them there, in its
# kernel: a transformer layer's activations and FLOPs are then those of selective recomputation
# (Korthikanti et al.'s attention-only recomputation), without any other recomputation.
ATTENTION = ("standard", "flash")
FLASH_ATTENTION = "https://arxiv.org/abs/2205.14135"


# The inputs chosen among names: name -> the allowed values (a switch: "true" or "false").
CHOICES: dict[str, tuple[str, ...]] = {
    "precision": PRECISIONS,
    "optimizer": tuple(OPTIMIZERS),
    "recompute": RECOMPUTE,
    "overlap": SWITCHES,
    "sequence_parallel": SWITCHES,
    "stack": STACKS,
    "overlap_tensor": SWITCHES,
    "overlap_pipeline": SWITCHES,
    "overlap_expert": SWITCHES,
    "overlap_context": SWITCHES,
    "overlap_zero3": SWITCHES,
    "attention": ATTENTION,
}


class PlannerInputError(ValueError):
    """An input out of its bounds; the message names the input and the bound (a 400), and
    `parameter` the query parameter at fault ("" when it is no single one)."""

    def __init__(self, message: str, parameter: str = "") -> None:
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True)
class Bound:
    name: str
    kind: type  # int or float
    low: float
    high: float
    help: str
    unit: str = ""


# Transformers (after the survey, issue 26): the configuration, the layout and the machine's
# two levels (a simple local version: devices per node with an intra-node link; the link above
# is between nodes).
TRANSFORMER_BOUNDS = (
    Bound("layers", int, 1, 1024, "transformer layers l"),
    Bound("hidden", int, 1, 131072, "hidden size h"),
    Bound("heads", int, 1, 4096, "attention heads a"),
    Bound("seq_len", int, 1, 1048576, "sequence length s", "tokens"),
    Bound("vocab", int, 1, 10_000_000, "vocabulary size V", "tokens"),
    Bound("ffn_hidden", int, 1, 1_000_000, "MLP hidden size (default 4·hidden)"),
    Bound("kv_heads", int, 1, 4096, "key/value heads (grouped-query attention; default heads)"),
    Bound("head_dim", int, 1, 4096, "values per attention head d (default hidden/heads)"),
    Bound("experts", int, 1, 4096, "experts per mixture-of-experts layer (1: dense)"),
    Bound("top_k", int, 1, 64, "experts each token is routed to"),
    Bound("expert_interval", int, 1, 64, "every how many layers an MoE layer"),
    Bound("shared_experts", int, 0, 64, "shared experts every token goes through (MoE)"),
    Bound("dense_layers", int, 0, 1024, "first layers with a dense MLP (MoE)"),
    Bound("expert_ffn_hidden", int, 1, 1_000_000, "an expert's MLP hidden size (default ffn)"),
    Bound("lora_rank", int, 0, 65536, "LoRA adapters' rank on qkv and o (0: full training)"),
    Bound("micro_batch_size", int, 1, 65536, "micro-batch size b (sequences)"),
    Bound("tp", int, 1, MAX_P, "tensor-parallel size (pins the layout)"),
    Bound("pp", int, 1, MAX_P, "pipeline stages (pins the layout)"),
    Bound("dp", int, 1, MAX_P, "data-parallel size (pins the layout)"),
    Bound("cp", int, 1, MAX_P, "context-parallel size: the sequence split (pins the layout)"),
    Bound("ep", int, 1, MAX_P, "expert-parallel size within the data-parallel group (pins it)"),
    Bound("zero", int, 0, 3, "ZeRO stage of the data-parallel groups (0: none; empty: searched)"),
    Bound("tokens", float, 1e6, 1e15, "training tokens (time to train)", "tokens"),
)

BOUNDS: dict[str, Bound] = {
    b.name: b
    for b in (
        Bound("P", int, 1, MAX_P, "nodes (processors)"),
        # Up to 2**20 samples: the ImageNet records reach 81,920 images (Yamazaki et al. 2019).
        Bound(
            "batch", int, 1, MAX_BATCH, "minibatch size N (samples per step, all nodes together)"
        ),
        Bound("micro_batches", int, 1, 1024, "micro-batches M per minibatch (pipelining)"),
        Bound("chunks", int, 1, 16, "model chunks v per node (interleaved pipeline)"),
        Bound("flops", float, 1e6, 1e18, "per-node throughput", "FLOP/s"),
        Bound("memory_gb", float, 0.001, 1e5, "per-node memory", "GB"),
        Bound("latency_us", float, 0.0, 1e6, "link latency L", "µs"),
        Bound("bandwidth_gbs", float, 0.001, 1e4, "link bandwidth 1/G", "GB/s"),
        Bound("devices_per_node", int, 1, 1024, "devices per node (1: one level of network)"),
        Bound(
            "intra_latency_us",
            float,
            0.0,
            1e6,
            "link latency inside a node (default: the link between nodes)",
            "µs",
        ),
        Bound(
            "intra_bandwidth_gbs",
            float,
            0.001,
            1e4,
            "link bandwidth inside a node (default: the link between nodes)",
            "GB/s",
        ),
        Bound("bucket_mb", float, 0.01, 1e5, "gradient bucket size (overlap)", "MB"),
        Bound("gamma", int, 1, 16, "bytes per value γ", "B"),
        Bound(
            "optimizer_values",
            int,
            0,
            4,
            "optimizer state values per parameter (default: the optimizer's, 1 for momentum)",
        ),
        Bound("weight_bytes", int, 1, 16, "bytes per weight (default: the precision's)", "B"),
        Bound(
            "gradient_bytes", int, 1, 16, "bytes per gradient value (default: the precision's)", "B"
        ),
        Bound(
            "optimizer_bytes",
            int,
            0,
            64,
            "optimizer state bytes per parameter, ZeRO's K (default: precision and optimizer's)",
            "B",
        ),
        Bound("message_bytes", int, 1, 16, "bytes per value sent (default: the precision's)", "B"),
        Bound("efficiency", float, 0.01, 1.0, "fraction of the peak throughput reached"),
        Bound("servers", int, 1, MAX_P, "parameter-server shards S"),
        Bound("bits", int, 1, 128, "bits per gradient value sent (quantization)"),
        Bound("density", float, 1e-4, 1.0, "fraction of gradient values sent (sparsification)"),
        Bound("sweep_max", int, 2, MAX_P, "largest P of the sweep"),
        Bound("sweep_points", int, 2, MAX_SWEEP_POINTS, "points of the sweep"),
        *TRANSFORMER_BOUNDS,
    )
}


@dataclass(frozen=True)
class ByteSizes:
    """Bytes per value: weights, gradients, optimizer state per parameter (K), messages and
    activations."""

    weights: int
    gradients: int
    optimizer: int
    messages: int
    activations: int

    def as_dict(self) -> dict[str, int]:
        return {
            "weights": self.weights,
            "gradients": self.gradients,
            "optimizer_state": self.optimizer,
            "messages": self.messages,
            "activations": self.activations,
        }


@dataclass(frozen=True)
class Inputs:
    network: str = "resnet-50"
    P: int = 16
    batch: int = 256
    micro_batches: int = 8
    chunks: int = 2
    flops: float = 10e12
    memory_gb: float = 16.0
    latency_us: float = 5.0
    bandwidth_gbs: float = 10.0
    gamma: int = 4
    optimizer_values: int | None = None  # None: the optimizer's (momentum: 1)
    servers: int = 4
    allreduce: str = "ring"
    bits: int | None = None  # None: no quantization (8·gamma bits)
    density: float = 1.0
    precision: str = "fp32"
    optimizer: str = "momentum"
    weight_bytes: int | None = None  # None: the precision's (fp32: gamma, mixed: 2)
    gradient_bytes: int | None = None
    optimizer_bytes: int | None = None  # ZeRO's K; None: from the precision and the optimizer
    message_bytes: int | None = None
    efficiency: float = 1.0
    recompute: str = "none"
    attention: str = "standard"  # "flash": FlashAttention-style kernels (transformers)
    overlap: bool = True  # gradient exchange overlapped with the backward pass (data parallel)
    # Megatron's sequence parallelism wherever tp > 1 (false: as before it, Megatron-LM 2021:
    # norms and dropout replicated on every tensor-parallel rank)
    sequence_parallel: bool = True
    # The software stack the default efficiency assumes (calibration.fit.STACKS): the median of
    # MLPerf's stacks on the device, or their 10th percentile (decile)
    stack: str = "median"
    # The exchanges overlapped with compute, as the frameworks do by default (Megatron-Core's
    # ModelParallelConfig: tp_comm_overlap and overlap_p2p_comm False; Transformer Engine's
    # context-parallel ring overlaps its sends; DeepSpeed ZeRO-3's overlap_comm True).
    overlap_tensor: bool = False
    overlap_pipeline: bool = False
    overlap_expert: bool = False
    overlap_context: bool = True
    overlap_zero3: bool = True
    bucket_mb: float = 25.0  # PyTorch DDP's default bucket_cap_mb
    devices_per_node: int = 1
    intra_latency_us: float | None = None  # None: the link between nodes
    intra_bandwidth_gbs: float | None = None
    sweep_max: int = 256
    sweep_points: int = 16
    machine: str = "example"
    device: str = ""  # the device of the catalogue the machine is built of ("": example values)
    # Transformers (issue 26); None: the preset's (the network's configuration, a free layout).
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    seq_len: int | None = None
    vocab: int | None = None
    ffn_hidden: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None  # None: hidden/heads
    experts: int | None = None
    top_k: int | None = None
    expert_interval: int | None = None
    shared_experts: int | None = None
    dense_layers: int | None = None
    expert_ffn_hidden: int | None = None
    lora_rank: int | None = None
    gated: bool | None = None  # a gated (SwiGLU) MLP; None: the preset's (a custom one: not)
    # GPT-J's parallel attention + MLP block; None: the preset's (a custom one: not)
    parallel_block: bool | None = None
    micro_batch_size: int = 1
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    cp: int | None = None  # None: searched (1 or more where the sequence splits)
    ep: int | None = None  # None: the fewest experts per device (expert_parallel)
    zero_free: bool = False  # the query left the ZeRO stage to the search
    recompute_free: bool = False  # the query left the recomputation to the search
    zero: int = 1
    tokens: float | None = None

    @property
    def latency(self) -> float:
        """L in seconds."""
        return self.latency_us * 1e-6

    @property
    def G(self) -> float:
        """Seconds per byte (the catalogue's G)."""
        return 1.0 / (self.bandwidth_gbs * 1e9)

    @property
    def intra_latency(self) -> float:
        """L inside a node, in seconds."""
        us = self.latency_us if self.intra_latency_us is None else self.intra_latency_us
        return us * 1e-6

    @property
    def intra_G(self) -> float:
        """Seconds per byte inside a node."""
        gbs = self.bandwidth_gbs if self.intra_bandwidth_gbs is None else self.intra_bandwidth_gbs
        return 1.0 / (gbs * 1e9)

    @property
    def bucket_bytes(self) -> float:
        return self.bucket_mb * 1e6

    @property
    def value_bits(self) -> int:
        """Bits per gradient value sent: the quantization, or all 8·message bytes."""
        return self.bits if self.bits is not None else 8 * self.sizes.messages

    @property
    def optimizer_count(self) -> int:
        """Optimizer state values per parameter: the explicit count, else the optimizer's."""
        if self.optimizer_values is not None:
            return self.optimizer_values
        return OPTIMIZERS[self.optimizer]

    @functools.cached_property  # read by every strategy's memory; the inputs are frozen
    def sizes(self) -> ByteSizes:
        """Bytes per value of each kind: the precision and the optimizer's, each overridable.

        fp32: every value γ bytes, K = optimizer values·γ. Mixed precision (fp16 or bf16, and
        fp8 as Transformer Engine keeps its values: FP8_RECIPE): 2-byte weights, gradients,
        activations and messages, and K = 4 (fp32 master weights) + 4 per optimizer value (fp32
        moments): Adam's K = 12, ZeRO's (§3.1)."""
        mixed = self.precision != "fp32"
        low = MIXED_LOW_BYTES if mixed else self.gamma
        count = self.optimizer_count
        k = MASTER_BYTES * (1 + count) if mixed else count * self.gamma
        return ByteSizes(
            weights=self.weight_bytes or low,
            gradients=self.gradient_bytes or low,
            optimizer=k if self.optimizer_bytes is None else self.optimizer_bytes,
            messages=self.message_bytes or low,
            activations=low,
        )

    @property
    def transformer_recompute(self) -> str:
        """The recomputation a transformer layer's activations and FLOPs follow: FlashAttention's
        kernels recompute the attention core as selective recomputation does."""
        return recompute_effect(self.recompute, self.attention)

    @property
    def achieved_flops(self) -> float:
        """The throughput reached: peak · efficiency."""
        return self.flops * self.efficiency

    @property
    def memory(self) -> float:
        return self.memory_gb * 1e9

    def query(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def with_p(self, p: int) -> Inputs:
        return replace(self, P=p)


def recompute_effect(recompute: str, attention: str) -> str:
    """Inputs.transformer_recompute for a recomputation and attention kernels."""
    return "selective" if recompute == "none" and attention == "flash" else recompute


def parse(
    query: dict[str, Any],
    networks: set[str],
    network_defaults: dict[str, dict[str, Any]] | None = None,
) -> Inputs:
    """Inputs from a plain query (strings or numbers: the published runs, the bench, the tests):
    each value checked here, then `merged`, then the values together (`check_relations`). The
    planner's form checks each value in its own field and merges in its clean() instead."""
    machine = str(query.get("machine") or "example")
    if machine not in PRESETS:
        raise PlannerInputError(
            f"machine must be one of {', '.join(PRESETS)} (got {machine!r})", "machine"
        )
    numbers = {
        name: _number(bound, query[name])
        for name, bound in BOUNDS.items()
        if query.get(name) not in (None, "")
    }
    network = str(query.get("network") or Inputs.network)
    if network not in networks:
        raise PlannerInputError(f"network must be one of {', '.join(sorted(networks))}", "network")
    allreduce = str(query.get("allreduce") or "ring")
    if allreduce not in ALLREDUCE_ALGORITHMS:
        message = f"allreduce must be one of {', '.join(ALLREDUCE_ALGORITHMS)}"
        raise PlannerInputError(message, "allreduce")
    for name, allowed in CHOICES.items():
        if query.get(name) and str(query[name]) not in allowed:
            raise PlannerInputError(f"{name} must be one of {', '.join(allowed)}", name)
    for shape in ("gated", "parallel_block"):
        if query.get(shape) not in (None, "") and str(query[shape]) not in SWITCHES:
            raise PlannerInputError(f"{shape} must be one of {', '.join(SWITCHES)}", shape)
    inputs = merged({**query, **numbers}, network_defaults)
    check_relations(inputs)
    return inputs


def merged(
    query: dict[str, Any], network_defaults: dict[str, dict[str, Any]] | None = None
) -> Inputs:
    """Inputs from checked values (numbers as numbers): the network's training defaults (a
    transformer preset's batch, tokens, precision...), then the machine preset's values, then
    explicit ones. Checks nothing but what a device brings (device_values)."""
    machine = str(query.get("machine") or "example")
    named = str(query.get("network") or Inputs.network)
    defaults = dict((network_defaults or {}).get(named, {}))
    # A transformer whose recomputation is the planner's default, not its source's, searches it.
    searched_recompute = bool(defaults.pop("recompute_free", False))
    preset = PRESETS[machine]
    values: dict[str, Any] = {**defaults, "machine": machine, **preset.values}
    values["device"] = preset.device
    if "P" in defaults and "P" not in query:  # the paper's device count over the preset's
        values["P"] = defaults["P"]
    for name in BOUNDS:
        if query.get(name) not in (None, ""):
            values[name] = query[name]
    choices = {}
    for name, allowed in CHOICES.items():
        default = values.pop(name, None)  # the network's (a transformer preset's), if any
        choice = str(query.get(name) or default or _default_text(name))
        choices[name] = choice == "true" if allowed is SWITCHES else choice
    for shape in ("gated", "parallel_block"):  # a transformer's, None: the preset's
        if query.get(shape) not in (None, ""):
            values[shape] = str(query[shape]) == "true"
    # A figure the catalogue lacks may come with the device's node or the preset (TPU v4's ICI).
    kept = {"intra_bandwidth_gbs"} if "intra_bandwidth_gbs" in preset.sources else set()
    if query.get("device") not in (None, ""):
        if machine == "example":  # the device's usual node, not the example's single device
            node = node_values(str(query["device"]), query)[0]
            values |= node
            kept = set(node)
        elif query["device"] != preset.device:
            kept = set()
        values |= device_values(str(query["device"]), choices["precision"], values, query, kept)
    elif choices["precision"] == "fp8" and preset.device and query.get("flops") in (None, ""):
        values |= device_values(preset.device, "fp8", values, query, kept)
    # The ZeRO stage and the recomputation (unless the network's source states it) the user
    # leaves free are search axes (transformer_plan).
    free = {"zero_free": query.get("zero") in (None, "")}
    free["recompute_free"] = query.get("recompute") in (None, "") and searched_recompute
    allreduce = str(query.get("allreduce") or "ring")
    return Inputs(network=named, allreduce=allreduce, **free, **choices, **values)


def device_values(
    slug: str,
    precision: str,
    values: dict[str, Any],
    query: dict[str, Any],
    kept: set[str] | frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """A machine of the catalogue's device `slug`: its peak at the precision, its memory and its
    intra-node link (where the machine has more than one device per node), each unless given
    explicitly. A figure the catalogue does not state and the query does not give is a 400
    naming it, unless `values` holds one from the device's node or preset (`kept`)."""
    device = catalogue_devices().get(slug)
    if device is None:
        raise PlannerInputError(
            "device must be one of the device catalogue's (/devices/): "
            f"{', '.join(catalogue_devices())} "
            f"(got {slug[:40]!r})",
            "device",
        )
    figures = {
        "flops": device.flops(precision),
        "memory_gb": device.memory_gb,
        "intra_bandwidth_gbs": device.intra_bandwidth_gbs,
    }
    if values.get("devices_per_node", 1) == 1:  # one device per node: no intra-node link
        del figures["intra_bandwidth_gbs"]
    taken = {"device": slug}
    missing = []
    for name, value in figures.items():
        if query.get(name) not in (None, "") or (value is None and name in kept):
            continue  # the explicit value (already in `values`) wins, or the node's sourced one
        if value is None:
            missing.append(f"{name} ({DEVICE_FIGURES[name].format(precision=precision)})")
        else:
            taken[name] = value
    if missing:
        raise PlannerInputError(
            f"device {slug}: the device catalogue states no {' and no '.join(missing)}; "
            "give it explicitly",
            "device",
        )
    return taken


def _default_text(name: str) -> str:
    default = getattr(Inputs, name)
    return str(default).lower() if isinstance(default, bool) else str(default)


def _number(bound: Bound, raw: Any) -> int | float:
    try:
        number = float(raw)
    except (TypeError, ValueError):
        number = float("nan")
    if bound.kind is int and number == number and not float(number).is_integer():
        number = float("nan")
    if not bound.low <= number <= bound.high:  # also refuses nan and inf
        kind = "an integer" if bound.kind is int else "a number"
        raise PlannerInputError(
            f"{bound.name} ({bound.help}) must be {kind} between {bound.low:g} and "
            f"{bound.high:g} (got {str(raw)[:40]!r})",
            bound.name,
        )
    return int(number) if bound.kind is int else number


def check_relations(inputs: Inputs) -> None:
    """What the values cannot be together, the first found (PlannerInputError)."""
    if inputs.micro_batches > inputs.batch:
        raise PlannerInputError(
            f"micro_batches must be at most batch ({inputs.batch}): "
            "a micro-batch holds at least one sample",
            "micro_batches",
        )
    for name in ("tp", "pp", "dp", "cp"):
        if (getattr(inputs, name) or 1) > inputs.P:
            raise PlannerInputError(f"{name} must be at most P ({inputs.P})", name)
    tp, node = inputs.tp, inputs.devices_per_node
    if tp and tp <= node and node % tp:
        raise PlannerInputError(
            f"tp ({tp}) must divide devices_per_node ({node}): a tensor-parallel group stays "
            "inside one node",
            "tp",
        )
    if inputs.cp and inputs.P % inputs.cp:
        raise PlannerInputError(f"cp ({inputs.cp}) must divide P ({inputs.P})", "cp")
    pinned = [getattr(inputs, name) for name in ("tp", "pp", "dp")]
    if all(pinned) and pinned[0] * pinned[1] * pinned[2] * (inputs.cp or 1) != inputs.P:
        raise PlannerInputError(f"tp·cp·pp·dp must equal P ({inputs.P}): got {pinned}")
    messages = inputs.sizes.messages
    if inputs.bits is not None and inputs.bits > 8 * messages:
        raise PlannerInputError(
            f"bits must be at most 8·gamma = {8 * messages}: quantization cannot add bits"
            if inputs.message_bytes is None and inputs.precision == "fp32"
            else f"bits must be at most 8·message bytes = {8 * messages}: "
            "quantization cannot add bits",
            "bits",
        )
