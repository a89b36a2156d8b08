"""One training step of every layout at once (numpy arrays, one entry per layout), from the
catalogue's cost models. Pure: numbers in, arrays out.

The model of one step (each step a catalogue formula or a shown assumption):
- compute: the training FLOPs (recomputation included) shared evenly by the P devices, at the
  achieved throughput;
- bubble: compute × (p − 1)/(v·m), the pipeline's idle time (1F1B, GPipe; interleaved: v > 1);
- communication: tensor parallelism's allreduces inside the node, the pipeline's point-to-point
  messages and the all-to-alls of expert parallelism between nodes, all exposed; the gradient
  allreduce of the data-parallel groups (ZeRO-3: 1.5 times) on one or two levels of network, in
  buckets overlapped with the last micro-batch's backward pass (exchange.py);
- memory per device: the most loaded stage's model states (ZeRO's sharding), its activations
  (Korthikanti et al.) times the micro-batches in flight, ZeRO-3's gathered layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.workloads.formulas import Formulas, evaluate
from explorer.workloads.network_model import StepFlops
from explorer.workloads.transformers.shapes import (
    PASSES,
    TransformerConfig,
    layer_parameters,
    parameter_parts,
)

from ..machine import Inputs, recompute_effect
from ..roofline import roofline_shares
from .exchange import DataExchange, between_nodes, data_exchange, ring, two_level
from .space import RECOMPUTE_NAMES, Layouts, concatenate


@dataclass
class _Shape:
    """What every part of the step reads: the layouts' sizes as floats."""

    layouts: Layouts
    inputs: Inputs
    config: TransformerConfig
    formulas: Formulas
    b: float  # micro-batch size (sequences)
    s: float
    h: float
    local: np.ndarray  # tokens of a sequence on one device: s / cp
    micro: np.ndarray  # micro-batches per data-parallel replica
    per_stage: np.ndarray  # layers of the most loaded pipeline stage
    imbalance: np.ndarray  # its layers over the mean stage's (1: even stages)
    reason: np.ndarray  # why a layout cannot run ("" where it can)


def _shape(layouts: Layouts, inputs: Inputs, config: TransformerConfig, formulas) -> _Shape:
    """The sizes, why a layout cannot run, and the interleaving each layout can have."""
    tp, pp, dp, v = layouts.tp, layouts.pp, layouts.dp, layouts.v
    b = float(inputs.micro_batch_size)
    layers = float(config.layers)
    micro = float(inputs.batch) / (dp * b)
    # Uneven stages, as Megatron-LM allows (Llama 3 405B's 126 layers on 16 stages, BLOOM's 70
    # on 12), pinned or searched: the most loaded stage holds ceil(l/p) layers and sets the
    # pipeline's pace; the others hold fewer (Megatron trims the first and the last).
    per_stage = np.ceil(layers / pp)
    imbalance = per_stage * pp / layers
    reason = np.full(len(layouts), "", dtype=object)
    reason[np.mod(config.heads, tp) != 0] = "tp does not divide the heads"
    # Fewer key/value heads than tensor-parallel ranks: Megatron replicates them, each rank one
    # (tp a multiple of kv_heads); otherwise the heads must split evenly.
    split = (np.mod(config.kv, tp) == 0) | (np.mod(tp, config.kv) == 0)
    reason[~split] = "tp neither divides the key/value heads nor is a multiple of them"
    reason[(micro < 1) | (np.mod(micro, 1) != 0)] = "the batch does not split into dp × b"
    # Interleaving splits each stage's layers into v chunks of equal size.
    interleave_ok = (np.mod(per_stage, v) == 0) & (pp > 1)
    layouts.v = np.where(interleave_ok & np.logical_not(layouts.gpipe), v, 1.0)
    micro = np.maximum(np.floor(micro), 1.0)
    s, h = float(config.seq_len), float(config.hidden)
    local = s / layouts.cp
    return _Shape(
        layouts, inputs, config, formulas, b, s, h, local, micro, per_stage, imbalance, reason
    )


def _tensor_and_pipeline(x: _Shape) -> tuple[np.ndarray, np.ndarray]:
    """Tensor parallelism: 4 allreduces of b·s·h per layer per micro-batch (6 with full
    recomputation), inside the node; sequence parallelism moves the same values. A parallel
    block (PARALLEL_BLOCK) allreduces once forward: 3 (4 with full recomputation). Pipeline: an
    activation forward and a gradient back per micro-batch and chunk."""
    layouts, inputs, b, s, h = x.layouts, x.inputs, x.b, x.s, x.h
    tp, pp = layouts.tp, layouts.pp
    sizes = inputs.sizes
    allreduced = float(evaluate(x.formulas["tensor.values"], {"b": b, "s": s, "h": h}))
    count = per_recompute(x, lambda mode, _: tensor_allreduces(x.config, mode))
    per_layer = allreduced * count / 4
    values = b * x.local * h  # context parallelism: each device's share of the sequence
    one = ring(x.formulas, tp, values, inputs.intra_latency, inputs.intra_G, sizes.activations)
    tensor = x.per_stage * x.micro * (per_layer / (b * s * h)) * one
    message = values * sizes.activations / np.where(layouts.sequence, tp, 1.0)
    latency, per_byte = between_nodes(inputs)
    pipeline = np.where(pp > 1, 2 * x.micro * layouts.v * (latency + message * per_byte), 0.0)
    return tensor, pipeline


def tensor_allreduces(config: TransformerConfig, recompute: str) -> int:
    """A layer's tensor-parallel allreduces per micro-batch: two forward (after the attention's
    and the MLP's output projections), two backward, the forward's again under full
    recomputation; a parallel block sums its attention and MLP outputs before one allreduce
    forward (its backward keeps two: each branch's column-parallel input)."""
    forward = 1 if config.parallel_block else 2
    return forward + 2 + (forward if recompute == "full" else 0)


def replicated_kv(config: TransformerConfig, tp: np.ndarray) -> np.ndarray:
    """Parameters per layer a tensor-parallel rank holds beyond its 1/t share of the layer when
    tp exceeds the key/value heads: Megatron replicates them, each rank a whole head (its key
    and value projections, h·d each, and their biases) instead of kv/t of one."""
    if config.attention_parameters:  # multi-head latent attention: no key/value heads
        return np.zeros_like(tp)
    head = 2 * config.hidden * config.head_dim + (2 * config.head_dim if config.bias else 0)
    return np.where(tp > config.kv, head * (1 - config.kv / tp), 0.0)


def _context(x: _Shape) -> np.ndarray:
    """Context parallelism (RING_ATTENTION): per layer and micro-batch, each device's K and V
    chunk (2·b·(s/cp)·kv width / t values) passes cp − 1 hops of a ring three times: gathered
    forward, gathered again and its gradient reduce-scattered backward; inside the node while
    t·cp devices fit in one, else between nodes; not overlapped."""
    tp, cp = x.layouts.tp, x.layouts.cp
    inputs, config = x.inputs, x.config
    chunk = 2 * x.b * x.local * config.kv * config.head_dim / tp * inputs.sizes.activations
    latency, per_byte = between_nodes(inputs)
    inside = tp * cp <= inputs.devices_per_node
    hop = np.where(
        inside, inputs.intra_latency + chunk * inputs.intra_G, latency + chunk * per_byte
    )
    return np.where(cp > 1, x.per_stage * x.micro * 3 * (cp - 1) * hop, 0.0)


def expert_parallel(dp: np.ndarray, experts: int, pinned: int | None = None) -> np.ndarray:
    """The expert-parallel size of each layout: the pinned one where it divides dp (an expert
    group lies within a data-parallel group; elsewhere 0, a layout that cannot run), else the
    divisor of dp that leaves the fewest experts on the most loaded device, the largest on a
    tie; experts that do not divide (257 on 256 devices) leave ceil(E/ep) on some."""
    sizes, where = np.unique(dp, return_inverse=True)
    found = []
    for d in (int(v) for v in sizes):
        if pinned:
            found.append(pinned if d % pinned == 0 and pinned <= experts else 0)
            continue
        options = [e for e in range(1, min(d, experts) + 1) if d % e == 0]
        found.append(min(options, key=lambda e: (math.ceil(experts / e), -e)))
    return np.array(found, dtype=float)[where]


@dataclass
class _States:
    """The model states one device holds and the data-parallel exchange of their gradients."""

    on_device: np.ndarray  # parameters per device (the most loaded stage)
    trainable: np.ndarray  # those of them that take gradients (LoRA: the adapters)
    expert_parallel: np.ndarray
    exchange: DataExchange
    data_total: np.ndarray
    data: np.ndarray


def _model_states(x: _Shape, compute: np.ndarray) -> _States:
    """The most loaded stage's parameters, and the gradient allreduce of the data groups (dp·cp
    devices: a context-parallel group holds the same weights). LoRA (FROZEN_BASE): only the
    adapters' gradients are exchanged."""
    config, inputs, formulas = x.config, x.inputs, x.formulas
    tp, pp, dp, cp = x.layouts.tp, x.layouts.pp, x.layouts.dp, x.layouts.cp
    parts = parameter_parts(config)
    block = parts["attention"] + parts["mlp"] + parts.get("shared_experts", 0.0) + parts["norms"]
    embedding = config.vocab * x.h + (config.seq_len * x.h if config.learned_positions else 0)
    if not config.tied:  # the output layer on the last stage, with the embedding when p = 1
        embedding = np.where(pp == 1, embedding + config.vocab * x.h, embedding)
    ep = expert_parallel(dp, config.experts, inputs.ep) if config.moe_layers else dp * 0 + 1
    tried = x.layouts.ep > 0  # the search's own sizes, where ep is free
    fitting = (np.mod(dp, np.maximum(x.layouts.ep, 1)) == 0) & (x.layouts.ep <= config.experts)
    ep = np.where(tried, np.where(fitting, x.layouts.ep, 0.0), ep)
    unplaced = ep == 0
    x.reason[unplaced & (x.reason == "")] = "ep does not divide the data-parallel size"
    ep = np.where(unplaced, 1.0, ep)
    # The most loaded device holds ceil(E/ep) of a layer's routed experts.
    held = np.ceil(config.experts / ep) / config.experts
    experts = parts["experts"] * held / (pp * tp)
    replicated = replicated_kv(config, tp) * x.per_stage
    on_device = (block / config.layers * x.per_stage + embedding) / tp + experts + replicated
    adapters = parts.get("adapters", 0.0) / config.layers * x.per_stage / tp
    linear = per_recompute(x, lambda _, effect: PASSES[effect][0])
    backward = compute / x.micro * (linear - 1) / linear / x.per_stage  # a layer, last micro-batch
    group = dp * cp
    if config.frozen:
        layer_values, outside = adapters / x.per_stage, embedding * 0.0
    else:
        layer_values, outside = block / config.layers / tp, embedding / tp
    exchange = data_exchange(
        formulas, inputs, tp, group, layer_values, x.per_stage, outside, backward
    )
    latency, per_byte = between_nodes(inputs)
    expert_gradients = ring(formulas, group / ep, experts, latency, per_byte, inputs.sizes.messages)
    expert_gradients = np.where((experts > 0) & (not config.frozen), expert_gradients, 0)
    # The experts' gradients go over their own groups (not overlapped); ZeRO-3 gathers the
    # parameters: half the exchange again, exposed (ZERO3_GATHER); with a frozen base, half an
    # allreduce of the stage's weights (its gathers).
    total = exchange.total + expert_gradients
    exposed = exchange.exposed + expert_gradients
    stage3 = x.layouts.zero == 3
    gathered = total
    if config.frozen:
        gathered = two_level(formulas, inputs, group, exchange.in_node, on_device)
    gather = 0.5 * gathered
    if inputs.overlap_zero3:  # prefetched during the compute of the layers before (DeepSpeed)
        gather = hidden_behind(gather, compute)
    data_total = np.where(stage3, total + 0.5 * gathered, total)
    data = np.where(stage3, exposed + gather, exposed)
    trainable = adapters if config.frozen else on_device
    return _States(on_device + adapters, trainable, ep, exchange, data_total, data)


def _expert(x: _Shape, ep: np.ndarray) -> np.ndarray:
    """Expert parallelism: dispatch and combine all-to-alls, forward and backward."""
    config = x.config
    if not config.moe_layers:
        return np.zeros(len(x.layouts))
    values = {"k": float(config.top_k), "b": x.b, "s": x.s, "h": x.h}
    sent = float(evaluate(x.formulas["expert.values"], values))
    shard = np.where(x.layouts.sequence, x.layouts.tp, 1.0)
    latency, per_byte = between_nodes(x.inputs)
    a2a = evaluate(
        x.formulas["expert.all_to_all"],
        {
            "P": ep,
            "L": latency,
            "G": per_byte,
            "gamma": float(x.inputs.sizes.activations),
            "m": sent / 4 / shard / x.layouts.cp,
        },
    )
    return np.where(ep > 1, (config.moe_layers / x.layouts.pp) * x.micro * 4 * a2a, 0.0)


def _expert_imbalance(config: TransformerConfig, ep: np.ndarray) -> np.ndarray:
    """The compute of the device holding ceil(E/ep) routed experts over the mean (tokens routed
    evenly over the experts): 1 + f·(ceil(E/ep)·ep/E − 1), f the routed experts' share of the
    blocks' active weights (the attention core and the logits not counted in f)."""
    if not config.moe_layers:
        return np.ones_like(ep)
    parts = parameter_parts(config)
    routed = parts["experts"] / config.experts * config.top_k
    share = routed / (layer_parameters(config)["active"] * config.layers)
    return 1 + share * (np.ceil(config.experts / ep) * ep / config.experts - 1)


def _memory(x: _Shape, states: _States) -> dict[str, np.ndarray]:
    """Bytes per device: the model states (ZeRO-sharded; a frozen base keeps its weights only),
    the activations of the micro-batches in flight (the sequence's share: s/cp), and ZeRO-3's
    gathered layer."""
    layouts, sizes = x.layouts, x.inputs.sizes
    tp, pp, dp, v, zero = layouts.tp, layouts.pp, layouts.dp * layouts.cp, layouts.v, layouts.zero
    weights = states.on_device * sizes.weights / np.where(zero >= 3, dp, 1.0)
    gradients = states.trainable * sizes.gradients / np.where(zero >= 2, dp, 1.0)
    optimizer = states.trainable * sizes.optimizer / np.where(zero >= 1, dp, 1.0)
    activations = per_recompute(
        x,
        lambda mode, effect: activation_array(
            x.formulas, x.config, (mode, effect), x.b, tp, layouts.sequence
        ),
    )
    in_flight = np.where(
        layouts.gpipe,
        x.micro,
        np.where(v > 1, pp * (1 + (pp - 1) / (pp * v)), np.minimum(pp, x.micro)),
    )
    in_flight = np.where(pp > 1, in_flight, 1.0)
    activations = activations * x.per_stage * in_flight * sizes.activations / 2 / layouts.cp
    largest = layer_parameters(x.config)["largest"] / tp
    buffers = np.where(zero >= 3, largest * (sizes.weights + sizes.gradients), 0.0)
    total = weights + gradients + optimizer + activations + buffers
    return {
        "weights": weights,
        "gradients": gradients,
        "optimizer_state": optimizer,
        "activations": activations,
        "buffers": buffers,
        "total": total,
    }


def evaluate_layouts(
    layouts: Layouts,
    inputs: Inputs,
    config: TransformerConfig,
    formulas: Formulas,
    flops: StepFlops | dict[str, StepFlops],
) -> Layouts:
    """Every quantity of every layout, as arrays in `layouts.out`; `flops`: the network model's
    FLOPs per step."""
    x = _shape(layouts, inputs, config, formulas)
    model = _one(flops, inputs.transformer_recompute).model  # no recomputation: the same
    hardware = per_recompute(x, lambda _, effect: _one(flops, effect).hardware)
    # The FLOPs shared evenly by the P devices, but a pipeline waits for its most loaded stage.
    compute = hardware / (inputs.P * inputs.achieved_flops) * x.imbalance
    pp = layouts.pp
    fraction = evaluate(formulas["pipeline.bubble_1f1b"], {"p": pp, "v": layouts.v, "m": x.micro})
    bubble = compute * np.where(pp > 1, fraction, 0.0)
    tensor, pipeline = _tensor_and_pipeline(x)
    states = _model_states(x, compute)
    uneven = _expert_imbalance(config, states.expert_parallel)
    compute, bubble = compute * uneven, bubble * uneven
    expert = _expert(x, states.expert_parallel)
    context = _context(x)
    memory = _memory(x, states)
    totals = {"tensor": tensor, "pipeline": pipeline, "expert": expert, "context": context}
    tensor, pipeline, expert, context = _overlapped(x, compute, totals)
    # exposed: what the step waits for
    communication = tensor + pipeline + states.data + expert + context
    step = compute + bubble + communication
    achieved = model / (step * inputs.P)
    layouts.out = {
        "micro_batches": x.micro,
        "stage_imbalance": x.imbalance,
        "compute": compute,
        "bubble": bubble,
        "tensor": tensor,
        "pipeline": pipeline,
        "hidden": sum(totals.values()) - (tensor + pipeline + expert + context),
        "data": states.data,
        "data_total": states.data_total,
        "expert": expert,
        "context": context,
        "communication": communication,
        "total_communication": sum(totals.values()) + states.data_total,
        "buckets": states.exchange.buckets,
        "dp_in_node": states.exchange.in_node,
        "hierarchical": states.exchange.hierarchical,
        "step": step,
        "tokens_per_second": float(inputs.batch) * x.s / step,
        "achieved_flops": achieved,
        "mfu": achieved / inputs.flops,
        **memory,
        "parameters_per_device": states.on_device,
        "expert_parallel": states.expert_parallel,
        "valid": x.reason == "",
        "reason": x.reason,
        "fits": (x.reason == "") & (memory["total"] <= inputs.memory),
        "hardware_flops": hardware * np.ones(len(layouts)),
        "model_flops": np.full(len(layouts), model),
    }
    return layouts


def per_recompute(x: _Shape, value: Callable[[str, str], Any]) -> np.ndarray:
    """value(recompute, its effect on a transformer layer: Inputs.transformer_recompute) at each
    layout's recomputation (the search's axis when the query leaves it free): evaluated once
    per recomputation present, one entry per layout."""
    codes = x.layouts.recompute
    found = np.zeros(len(codes))
    for code in np.unique(codes):
        mode = RECOMPUTE_NAMES[int(code)]
        effect = recompute_effect(mode, x.inputs.attention)
        found = np.where(codes == code, value(mode, effect), found)
    return found


def _one(flops: StepFlops | dict[str, StepFlops], recompute: str) -> StepFlops:
    """A step's FLOPs at a (transformer) recomputation: the one given, or the mapping's."""
    return flops[recompute] if isinstance(flops, dict) else flops


def hidden_behind(exchange: np.ndarray, compute: np.ndarray) -> np.ndarray:
    """What of an exchange overlapped with `compute` the step still waits for (the overlap's
    own cost on the compute, the kernels sharing the device, is not counted)."""
    return np.maximum(exchange - compute, 0.0)


def _overlapped(x: _Shape, compute: np.ndarray, totals: dict[str, np.ndarray]) -> tuple:
    """The tensor, pipeline, expert and context exchanges as exposed under the overlap switches
    (each as Megatron-Core and Transformer Engine do by default: tensor, pipeline and expert
    exchanges exposed; the context-parallel ring's sends overlapped with the blockwise attention
    they feed). The tensor exchange hides behind the linear layers' products, the ring behind
    the attention core's, the rest behind the whole compute."""
    inputs, config = x.inputs, x.config
    linear = per_recompute(x, lambda _, effect: roofline_shares(config, effect)[0])
    core = per_recompute(x, lambda _, effect: roofline_shares(config, effect)[1])
    switches = (
        ("tensor", inputs.overlap_tensor, compute * linear),
        ("pipeline", inputs.overlap_pipeline, compute),
        ("expert", inputs.overlap_expert, compute * linear),
        ("context", inputs.overlap_context, compute * core),
    )
    return tuple(
        hidden_behind(totals[name], room) if on else totals[name] for name, on, room in switches
    )


def activation_array(formulas, config, recompute, b, tp, sequence) -> np.ndarray:
    """Korthikanti et al.'s bytes per layer for each layout's t and sequence parallelism;
    `recompute`: (the recomputation, its effect: Inputs.transformer_recompute)."""
    mode, effect = recompute
    values = {
        "s": float(config.seq_len),
        "b": b,
        "h": float(config.hidden),
        "a": float(config.heads),
        "t": tp,
    }
    if mode == "full":
        return np.broadcast_to(evaluate(formulas["activations.full"], values), tp.shape) * 1.0
    suffix = ".selective" if effect == "selective" else ""
    with_sequence = evaluate(formulas[f"activations.sequence{suffix}"], values)
    tensor_only = evaluate(formulas[f"activations.tensor{suffix}"], values)
    return np.where(sequence | (tp == 1), with_sequence, tensor_only) * 1.0


def evaluate_together(
    sets: list[Layouts],
    inputs: Inputs,
    config: TransformerConfig,
    formulas: Formulas,
    flops: StepFlops | dict[str, StepFlops],
) -> list[Layouts]:
    """evaluate_layouts on several candidate sets in one pass (each row depends on its own values
    alone, so the rows of one concatenation are those of each set): each set evaluated."""
    together = concatenate(sets)
    evaluate_layouts(together, inputs, config, formulas, flops)
    found, start = [], 0
    for part in sets:
        stop = start + len(part)
        found.append(together.rows(start, stop))
        start = stop
    return found
