"""Layouts of a transformer over P devices: every P = dp × tp × pp (tensor parallelism inside a
node, pipeline stages dividing the layers, the batch split into micro-batches of the given size),
each evaluated at once with numpy from the catalogue's cost models, ranked by step time among
those that fit. Pure: numbers in, arrays and dicts out.

The model of one step (each step a catalogue formula or a shown assumption):
- compute: the training FLOPs (recomputation included) shared evenly by the P devices, at the
  achieved throughput;
- bubble: compute × (p − 1)/(v·m), the pipeline's idle time (1F1B, GPipe; interleaved: v > 1);
- communication: tensor parallelism's allreduces inside the node, the pipeline's point-to-point
  messages and the all-to-alls of expert parallelism between nodes, all exposed; the gradient
  allreduce of the data-parallel groups (ZeRO-3: 1.5 times) on one or two levels of network, in
  buckets overlapped with the last micro-batch's backward pass (layout_exchange.py);
- memory per device: the most loaded stage's model states (ZeRO's sharding), its activations
  (Korthikanti et al.) times the micro-batches in flight, ZeRO-3's gathered layer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .formulas import CONFIRMED, Assumption, Formulas, evaluate
from .layout_exchange import (
    RANK_ORDER,
    DataExchange,
    between_nodes,
    data_exchange,
    ring,
)
from .machine import Inputs
from .transformer import (
    PASSES,
    TransformerConfig,
    active_parameters,
    layer_parameters,
    parameter_parts,
)

MOST_LOADED_STAGE = Assumption(
    "most-loaded-stage",
    "The most loaded pipeline stage holds its layers and the embedding, split over t",
    "(block parameters / p + embedding) / t (+ the untied output layer when p = 1)",
    "As Megatron-LM computes its theoretical memory "
    "(https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/training/theoretical_memory_usage.py"
    "); the experts of a mixture-of-experts layer are further divided over the expert-parallel "
    "devices.",
    status=CONFIRMED,
    works=("narayanan2021efficient",),
)
IN_FLIGHT = Assumption(
    "micro-batches-in-flight",
    "Micro-batches whose activations the first stage holds",
    "GPipe: m; 1F1B: min(p, m); interleaved: p·(1 + (p − 1)/(p·v)); no pipeline: 1",
    "The 1F1B and interleaved counts are Megatron-LM's theoretical memory (the same file); "
    "GPipe keeps every micro-batch until the backward pass (Huang et al. 2019).",
    status=CONFIRMED,
    works=("narayanan2021efficient", "huang2019gpipe"),
)
SIXTEEN_BIT = Assumption(
    "activation-bytes",
    "Korthikanti et al.'s bytes are for 16-bit activations; others scale by bytes/2",
    "activation bytes × b_a / 2",
    "Their Table 2 counts 2 bytes per value (1 for dropout masks); in fp32 the planner doubles "
    "it, masks included (slightly pessimistic). SwiGLU and grouped-query attention are counted "
    "as a GPT layer of the same hidden size (an approximation).",
)
PLACEMENT = RANK_ORDER
NO_OVERLAP = Assumption(
    "no-overlap-transformer",
    "Tensor-parallel, pipeline and expert communication does not overlap computation",
    "exposed communication = communication time",
    "Pessimistic: Megatron-LM can overlap parts of these exchanges with computation; not "
    "modelled. The data-parallel gradient exchange is overlapped (unless overlap=false).",
)
# The arrays of `Layouts.out` that add up to a step, each a part the sensitivity may scale.
STEP_ARRAYS = ("compute", "bubble", "tensor", "pipeline", "data", "expert")


@dataclass
class Layouts:
    """The candidate layouts (arrays, one entry per layout) and their evaluation."""

    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    v: np.ndarray  # model chunks per device (interleaved schedule; 1: plain 1F1B)
    sequence: np.ndarray  # bool: sequence parallelism
    zero: np.ndarray  # ZeRO stage
    gpipe: np.ndarray  # bool: GPipe's schedule (all micro-batches in flight)
    out: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.tp)

    def row(self, index: int) -> dict[str, Any]:
        return {
            "tp": int(self.tp[index]),
            "pp": int(self.pp[index]),
            "dp": int(self.dp[index]),
            "chunks": int(self.v[index]),
            "sequence_parallel": bool(self.sequence[index]),
            "zero": int(self.zero[index]),
            "schedule": "gpipe"
            if self.gpipe[index]
            else ("interleaved" if self.v[index] > 1 else "1f1b"),
        }


def divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def factorisations(inputs: Inputs, config: TransformerConfig) -> list[tuple[int, int, int]]:
    """Every (tp, pp, dp) with tp·pp·dp = P and tp within a node, honouring pinned values."""
    p = inputs.P
    found = []
    for tp in divisors(p):
        if tp > inputs.devices_per_node or (inputs.tp and tp != inputs.tp):
            continue
        for pp in divisors(p // tp):
            dp = p // (tp * pp)
            if (inputs.pp and pp != inputs.pp) or (inputs.dp and dp != inputs.dp):
                continue
            if pp > config.layers:
                continue
            found.append((tp, pp, dp))
    return found


def candidates(
    inputs: Inputs,
    config: TransformerConfig,
    triples: list[tuple[int, int, int]],
    sequence: bool = True,
    zero: int | None = None,
    chunks: int | None = None,
    gpipe: bool = False,
) -> Layouts:
    n = len(triples)
    arr = np.array(triples, dtype=float).reshape(n, 3)
    return Layouts(
        tp=arr[:, 0],
        pp=arr[:, 1],
        dp=arr[:, 2],
        v=np.full(n, float(chunks if chunks is not None else inputs.chunks)),
        sequence=np.full(n, sequence) & (arr[:, 0] > 1),
        zero=np.full(n, float(inputs.zero if zero is None else zero)),
        gpipe=np.full(n, gpipe),
    )


def evaluate_layouts(
    layouts: Layouts, inputs: Inputs, config: TransformerConfig, formulas: Formulas
) -> Layouts:
    """Every quantity of every layout, as arrays in `layouts.out`."""
    tp, pp, dp, v = layouts.tp, layouts.pp, layouts.dp, layouts.v
    sizes = inputs.sizes
    b = float(inputs.micro_batch_size)
    s, h, layers = float(config.seq_len), float(config.hidden), float(config.layers)
    batch = float(inputs.batch)
    micro = batch / (dp * b)  # micro-batches per data-parallel replica
    per_stage = layers / pp
    # Why a layout cannot run at all ("" where it can).
    reason = np.full(len(layouts), "", dtype=object)
    reason[np.mod(config.heads, tp) != 0] = "tp does not divide the heads"
    reason[np.mod(config.kv, tp) != 0] = "tp does not divide the key/value heads"
    reason[np.mod(layers, pp) != 0] = "pp does not divide the layers"
    reason[(micro < 1) | (np.mod(micro, 1) != 0)] = "the batch does not split into dp × b"
    interleave_ok = (np.mod(per_stage, v) == 0) & (pp > 1)
    v = np.where(interleave_ok & ~layouts.gpipe, v, 1.0)
    layouts.v = v
    micro = np.maximum(np.floor(micro), 1.0)

    # Compute and bubble.
    linear, core = PASSES[inputs.recompute]
    flops_values = {
        "B": batch,
        "s": s,
        "l": layers,
        "h": h,
        "V": float(config.vocab),
        "p": layer_parameters(config)["active"],
    }
    hardware = float(
        evaluate(formulas["transformer.flops"], flops_values | {"m": linear, "n": core})
    )
    model = float(evaluate(formulas["transformer.flops"], flops_values | {"m": 3.0, "n": 3.0}))
    compute = np.full(len(layouts), hardware / (inputs.P * inputs.achieved_flops))
    bubble_fraction = evaluate(formulas["pipeline.bubble_1f1b"], {"p": pp, "v": v, "m": micro})
    bubble = compute * np.where(pp > 1, bubble_fraction, 0.0)

    # Tensor parallelism: 4 allreduces of b·s·h per layer per micro-batch (6 with full
    # recomputation), inside the node; sequence parallelism moves the same values.
    allreduced = float(evaluate(formulas["tensor.values"], {"b": b, "s": s, "h": h}))
    per_layer = allreduced * (6 if inputs.recompute == "full" else 4) / 4
    one = ring(formulas, tp, b * s * h, inputs.intra_latency, inputs.intra_G, sizes.activations)
    tensor = per_stage * micro * (per_layer / (b * s * h)) * one

    # Pipeline: an activation forward and a gradient back per micro-batch and chunk.
    message = b * s * h * sizes.activations / np.where(layouts.sequence, tp, 1.0)
    latency, per_byte = between_nodes(inputs)
    pipeline = np.where(pp > 1, 2 * micro * v * (latency + message * per_byte), 0.0)

    # Model states of the most loaded stage, and the gradient allreduce of the data groups.
    parts = parameter_parts(config)
    expert_total = parts["experts"]
    block = parts["attention"] + parts["mlp"] + parts["norms"]
    embedding = config.vocab * h + (config.seq_len * h if config.learned_positions else 0)
    if not config.tied:  # the output layer on the last stage, with the embedding when p = 1
        embedding = np.where(pp == 1, embedding + config.vocab * h, embedding)
    ep = np.gcd(dp.astype(int), config.experts).astype(float) if config.moe_layers else dp * 0 + 1
    dense = (block / pp + embedding) / tp
    experts = expert_total / (pp * tp * ep)
    on_device = dense + experts
    backward = compute / micro * (linear - 1) / linear / per_stage  # one layer, last micro-batch
    exchange = data_exchange(
        formulas, inputs, tp, dp, block / layers / tp, per_stage, embedding / tp, backward
    )
    expert_gradients = ring(formulas, dp / ep, experts, latency, per_byte, sizes.messages)
    data_total, data = _data_times(
        exchange, layouts.zero, np.where(experts > 0, expert_gradients, 0)
    )

    # Expert parallelism: dispatch and combine all-to-alls, forward and backward.
    if config.moe_layers:
        sent = float(
            evaluate(formulas["expert.values"], {"k": float(config.top_k), "b": b, "s": s, "h": h})
        )
        shard = np.where(layouts.sequence, tp, 1.0)
        a2a = evaluate(
            formulas["expert.all_to_all"],
            {
                "P": ep,
                "L": latency,
                "G": per_byte,
                "gamma": float(sizes.activations),
                "m": sent / 4 / shard,
            },
        )
        expert = np.where(ep > 1, (config.moe_layers / pp) * micro * 4 * a2a, 0.0)
    else:
        expert = np.zeros(len(layouts))

    # Memory per device.
    zero = layouts.zero
    weights = on_device * sizes.weights / np.where(zero >= 3, dp, 1.0)
    gradients = on_device * sizes.gradients / np.where(zero >= 2, dp, 1.0)
    optimizer = on_device * sizes.optimizer / np.where(zero >= 1, dp, 1.0)
    activations = activation_array(formulas, config, inputs, b, tp, layouts.sequence)
    in_flight = np.where(
        layouts.gpipe,
        micro,
        np.where(v > 1, pp * (1 + (pp - 1) / (pp * v)), np.minimum(pp, micro)),
    )
    in_flight = np.where(pp > 1, in_flight, 1.0)
    activations = activations * per_stage * in_flight * sizes.activations / 2
    largest = layer_parameters(config)["largest"] / tp
    buffers = np.where(zero >= 3, largest * (sizes.weights + sizes.gradients), 0.0)
    total = weights + gradients + optimizer + activations + buffers

    communication = tensor + pipeline + data + expert  # exposed: what the step waits for
    step = compute + bubble + communication
    tokens = batch * s
    layouts.out = {
        "micro_batches": micro,
        "compute": compute,
        "bubble": bubble,
        "tensor": tensor,
        "pipeline": pipeline,
        "data": data,
        "data_total": data_total,
        "expert": expert,
        "communication": communication,
        "total_communication": communication - data + data_total,
        "buckets": exchange.buckets,
        "dp_in_node": exchange.in_node,
        "hierarchical": exchange.hierarchical,
        "step": step,
        "tokens_per_second": tokens / step,
        "achieved_flops": model / (step * inputs.P),
        "mfu": model / (step * inputs.P) / inputs.flops,
        "weights": weights,
        "gradients": gradients,
        "optimizer_state": optimizer,
        "activations": activations,
        "buffers": buffers,
        "total": total,
        "parameters_per_device": on_device,
        "expert_parallel": ep,
        "valid": reason == "",
        "reason": reason,
        "fits": (reason == "") & (total <= inputs.memory),
        "hardware_flops": np.full(len(layouts), hardware),
        "model_flops": np.full(len(layouts), model),
    }
    return layouts


def _data_times(exchange: DataExchange, zero: np.ndarray, experts: np.ndarray) -> tuple:
    """(all, exposed) seconds of the data-parallel exchange: the dense gradients' buckets, the
    experts' gradients over their own groups (not overlapped), and ZeRO-3's parameter gathers
    (half the exchange again, exposed: ZERO3_GATHER)."""
    total = exchange.total + experts
    exposed = exchange.exposed + experts
    stage3 = zero == 3
    return np.where(stage3, 1.5 * total, total), np.where(stage3, exposed + 0.5 * total, exposed)


def activation_array(formulas, config, inputs, b, tp, sequence) -> np.ndarray:
    """Korthikanti et al.'s bytes per layer for each layout's t and sequence parallelism."""
    values = {
        "s": float(config.seq_len),
        "b": b,
        "h": float(config.hidden),
        "a": float(config.heads),
        "t": tp,
    }
    if inputs.recompute == "full":
        return np.broadcast_to(evaluate(formulas["activations.full"], values), tp.shape) * 1.0
    suffix = ".selective" if inputs.recompute == "selective" else ""
    with_sequence = evaluate(formulas[f"activations.sequence{suffix}"], values)
    tensor_only = evaluate(formulas[f"activations.tensor{suffix}"], values)
    return np.where(sequence | (tp == 1), with_sequence, tensor_only) * 1.0


def best(layouts: Layouts, mask: np.ndarray | None = None) -> int | None:
    """The fastest layout that fits (within `mask`); else the fastest valid one; else None."""
    out = layouts.out
    allowed = np.ones(len(layouts), bool) if mask is None else mask
    for wanted in (out["fits"] & allowed, out["valid"] & allowed):
        if wanted.any():
            steps = np.where(wanted, out["step"], np.inf)
            return int(np.argmin(steps))
    return None


def active_tokens_note(config: TransformerConfig) -> str:
    return f"{active_parameters(config):,.0f} parameters per token"
