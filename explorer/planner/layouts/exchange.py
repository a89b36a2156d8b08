"""The data-parallel gradient exchange of each transformer layout, vectorised over the layouts:
exchange.py's model (two levels of network, buckets overlapped with the backward pass) applied to
the layout's data-parallel groups. Pure: numbers in, arrays out.

Where a group's devices sit: Megatron-LM numbers the devices tensor-parallel rank first, then
data-parallel, then pipeline (RANK_ORDER), so a data-parallel group has devices_per_node / t
members in each node; when it spans nodes the exchange is hierarchical (exchange.py's
HIERARCHICAL). With gradient accumulation over m micro-batches, and in a pipeline, the exchange
waits for the last micro-batch: only that backward pass hides its buckets (LAST_MICRO_BATCH).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.workloads.formulas import CONFIRMED, Assumption, Formulas, evaluate

from ..machine import Inputs

RANK_ORDER = Assumption(
    "megatron-rank-order",
    "Devices numbered tensor-parallel rank first, then data-parallel, then pipeline",
    "members of a data-parallel group in one node = min(dp, ⌊devices_per_node / t⌋)",
    'Megatron-LM\'s initialize_model_parallel orders the ranks "tp-cp-ep-dp-pp" by default '
    "(https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/"
    "megatron/core/parallel_state.py#L617): "
    "consecutive devices form the tensor-parallel groups, the next dimension is data-parallel. "
    "Tensor parallelism uses the intra-node link; the pipeline's and the experts' messages use "
    "the link between nodes unless the whole layout fits in one node (pessimistic for the hops "
    "that stay inside a node); each device has its own share of the link between nodes (as "
    "8 A100s with 8 network adapters per node do).",
)
RAIL_SHARES = Assumption(
    "rail-shares",
    "Across nodes, each device of a node allreduces its own share of the gradient",
    "allreduce(P = nodes, m / k) on the link between nodes, k = members of the group per node",
    "The hierarchical allreduce's reduce-scatter inside the node leaves each of the group's k "
    "members of a node with 1/k of the gradient; each allreduces its share across the nodes at "
    "the same time, on its own share of the link between nodes (bandwidth_gbs is per device, "
    "as RANK_ORDER places it: 8 GPUs with 8 network adapters per node), then an allgather "
    "inside the node: the model's assumption (the two-level scheme of HIERARCHICAL with "
    "per-device links). Until December 2026 the planner moved the whole gradient across on "
    "one device's share of the link (k times the bandwidth term).",
)
ACROSS_NODES = Assumption(
    "across-nodes-algorithm",
    "The allreduce between nodes is the reader's `allreduce` (ring by default)",
    "allreduce.<allreduce>(P = nodes, m / k)",
    "The data-parallel exchange inside a node is the catalogue's ring; between nodes the "
    "algorithm the reader picks. The MLPerf calibration picks Rabenseifner's (2 L log2 P + "
    "2 γ m G (P - 1)/P) as the cost shape of NCCL's tree allreduce at scale: a latency of "
    "log2(nNodes) inter-node steps at the ring's bandwidth (NCCL's own tuning model, "
    "https://github.com/NVIDIA/nccl/blob/5067397c2676d5aed50042fc39e5c8ee96eb0027/"
    "src/graph/tuning.cc#L289-L416: an allreduce ring's latency counts 2 (nNodes - 1) "
    "inter-node steps, the tree's 2 log2(nNodes); the tree's algorithm bandwidth is half its "
    "bus bandwidth, the ring's nRanks / (2 (nRanks - 1)) of it).",
)
LAST_MICRO_BATCH = Assumption(
    "last-micro-batch-overlap",
    "The gradient exchange overlaps the backward pass of the last micro-batch only",
    "backward time per layer = compute per device / m · (passes − 1)/passes / layers per stage",
    "Gradients are accumulated locally over the micro-batches and exchanged once: PyTorch DDP's "
    "no_sync() skips the exchange and the backward pass after it synchronises "
    "(https://github.com/pytorch/pytorch/pull/21736). The backward pass is 2 of the 3 passes "
    "(3 of 4 with full recomputation, whose extra forward runs inside it; selective "
    "recomputation's extra attention work is not counted); the embedding's gradient joins the "
    "last bucket, ready when the backward pass ends; the stage's share of the embedding and "
    "logits FLOPs is spread over its layers. The first (most loaded) stage sets the step.",
)
ZERO3_GATHER = Assumption(
    "zero3-gather-exposed",
    "ZeRO-3 gathers the parameters: 0.5 times the gradient exchange more, all of it exposed",
    "exposed + 0.5 · total",
    "ZeRO-3 communicates 3Ψ against data parallelism's 2Ψ (Rajbhandari et al., SC 2020, "
    "arXiv 1910.02054, https://arxiv.org/abs/1910.02054); the gathers' prefetch is not modelled, "
    "as on the planner's CNN side.",
    status=CONFIRMED,
    works=("rajbhandari2020zero",),
)


@dataclass
class DataExchange:
    """Per layout: the gradient exchange's seconds (all of it, and what outlasts the backward
    pass), its buckets and where its group sits."""

    total: np.ndarray
    exposed: np.ndarray
    buckets: np.ndarray
    in_node: np.ndarray  # members of a data-parallel group per node
    hierarchical: np.ndarray  # bool: the group spans nodes with more than one member in each


def ring(formulas: Formulas, devices, values, latency, per_byte, gamma) -> np.ndarray:
    """The catalogue's pipelined ring allreduce for arrays of group sizes (0 for one device)."""
    devices = np.asarray(devices, dtype=float)
    time = evaluate(
        formulas["allreduce.ring"],
        {"P": devices, "L": latency, "G": per_byte, "gamma": float(gamma), "m": values},
    )
    return np.where(devices > 1, time, 0.0)


def members_per_node(inputs: Inputs, tp: np.ndarray, dp: np.ndarray) -> np.ndarray:
    return np.clip(np.floor(inputs.devices_per_node / tp), 1.0, dp)


def between_nodes(inputs: Inputs) -> tuple[float, float]:
    """(L, G) of messages between devices of different nodes, or of one node when all P fit."""
    if inputs.P <= inputs.devices_per_node:
        return inputs.intra_latency, inputs.intra_G
    return inputs.latency, inputs.G


def across(formulas: Formulas, inputs: Inputs, devices, values, gamma) -> np.ndarray:
    """The allreduce between nodes (ACROSS_NODES): the reader's `allreduce` algorithm (ring by
    default) for arrays of node counts (0 for one node)."""
    devices = np.asarray(devices, dtype=float)
    role = f"allreduce.{inputs.allreduce}"
    if role not in formulas or inputs.allreduce == "ring":
        return ring(formulas, devices, values, inputs.latency, inputs.G, gamma)
    values_at = {"P": devices, "L": inputs.latency, "G": inputs.G, "gamma": gamma, "m": values}
    return np.where(devices > 1, evaluate(formulas[role], values_at), 0.0)


def two_level(formulas, inputs: Inputs, dp, in_node, values) -> np.ndarray:
    """An allreduce of `values` per device over each data-parallel group: inside a node, across
    the nodes, or both in turn (hierarchical; one level is 0 where the group has one member).
    Hierarchical: after the reduce-scatter inside the node each of its `in_node` members holds
    1/in_node of the values and allreduces that share across the nodes on its own share of the
    link (RAIL_SHARES), all members at once."""
    gamma = float(inputs.sizes.messages)
    nodes = np.ceil(dp / in_node)
    inside = ring(formulas, in_node, values, inputs.intra_latency, inputs.intra_G, gamma)
    return inside + across(formulas, inputs, nodes, values / in_node, gamma)


def data_exchange(
    formulas: Formulas,
    inputs: Inputs,
    tp: np.ndarray,
    dp: np.ndarray,
    layer_values: np.ndarray,
    layers: np.ndarray,
    embedding: np.ndarray,
    layer_backward: np.ndarray,
) -> DataExchange:
    """The exchange of `layers` layers of `layer_values` gradients each plus `embedding` values
    per device; `layer_backward`: one layer's backward time for the last micro-batch (s)."""
    in_node = members_per_node(inputs, tp, dp)
    hierarchical = (in_node > 1) & (in_node < dp)

    def seconds(values):
        return np.where(values > 0, two_level(formulas, inputs, dp, in_node, values), 0.0)

    if not inputs.overlap:
        whole = seconds(layer_values * layers + embedding)
        return DataExchange(whole, whole, np.ones_like(whole), in_node, hierarchical)
    # Buckets in backward order: a bucket closes once it holds bucket_mb (a layer is never
    # split, as exchange.buckets fills them), so each full bucket holds k layers.
    cap = inputs.bucket_bytes / inputs.sizes.gradients
    per_bucket = np.maximum(np.ceil(cap / layer_values), 1.0)
    full = np.floor(layers / per_bucket)
    full_time = seconds(per_bucket * layer_values)
    last_time = seconds((layers - full * per_bucket) * layer_values + embedding)
    total = full * full_time + last_time
    exposed = exposed_uniform(
        full, per_bucket * layer_backward, full_time, last_time, layers * layer_backward
    )
    return DataExchange(total, exposed, full + 1, in_node, hierarchical)


def exposed_uniform(full, spacing, full_time, last_time, backward) -> np.ndarray:
    """exchange._exposed in closed form for `full` equal buckets ready every `spacing` seconds
    and a last one ready when the backward pass ends: one exchange at a time, the end of the
    last is max over j of (ready_j + the durations from j on), linear in j for the full ones."""
    first = spacing + full * full_time  # every full bucket back to back from the first
    latest = full * spacing + full_time  # the last full bucket starts when it is ready
    queued = np.where(full >= 1, np.maximum(first, latest), 0.0)
    return np.maximum(queued, backward) + last_time - backward
