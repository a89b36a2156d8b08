"""The layout space: every P = dp × tp × pp (tensor parallelism inside a node, pipeline stages
dividing the layers, the batch split into micro-batches of the given size) with its ZeRO stage,
sequence parallelism and pipeline schedule, as arrays (one entry per layout), and the assumptions
the step model (step.py) shows. Pure: numbers in, arrays out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from explorer.workloads.formulas import CONFIRMED, Assumption
from explorer.workloads.transformers.shapes import TransformerConfig

from ..machine import Inputs
from .exchange import RANK_ORDER

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
MEGATRON_CP = (
    "https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/"
    "docs/user-guide/features/context_parallel.md"
)
RING_ATTENTION = Assumption(
    "ring-attention",
    "Context parallelism: each device's K/V chunk goes round a ring of cp devices, three times "
    "per layer and micro-batch, not overlapped",
    "3 · (cp − 1) · (L + 2·b·(s/cp)·kv width/t · b_a · G) per layer and micro-batch",
    "Megatron-Core's context parallelism splits every activation along the sequence over cp "
    "devices (activation memory divided by cp; devices = TP × CP × PP × DP) and gathers the "
    "keys and values of the whole sequence for attention: an all-gather forward, again "
    "backward, and a reduce-scatter of their gradients, each as point-to-point messages in a "
    f"ring ({MEGATRON_CP}; after Ring Attention, Liu et al., https://arxiv.org/abs/2310.01889). "
    "Its hops use the intra-node link while t·cp devices fit in one node, else the link between "
    "nodes. Pessimistic: Megatron-Core overlaps the ring with the attention kernels. The search "
    "tries cp up to 16 where 2·cp divides s (its chunks balance causal attention) and s/cp is "
    "at least 4,096 tokens (our bound, not sourced: short chunks' slower kernels are not "
    "priced); a pinned cp may go beyond both.",
)
FROZEN_BASE = Assumption(
    "lora-frozen-base",
    "LoRA: the base's weights frozen; only the rank-r adapters take gradients and optimizer "
    "state, and only their gradients are exchanged",
    "FLOPs = 2·B·s·l·(p·(m − 1) + p_a·m) + 4·B·s²·h·l·n + 4·B·s·h·V",
    "Hu et al., LoRA (https://arxiv.org/abs/2106.09685): W₀ frozen, ΔW = B·A trained. The "
    "forward runs in full, the backward computes the activations' gradients through every frozen "
    "matrix (its input gradient, 2 FLOPs per weight and token) but no weight gradient (one pass "
    "fewer: m − 1), the adapters p_a per layer (r·(4h + 2·kv width) on qkv and o, MLPerf's "
    "targets) train in all m passes, the frozen output layer takes 4·B·s·h·V (no weight "
    "gradient). Memory: the base's weights at b_w bytes, gradients and optimizer state for the "
    "adapters only; ZeRO-3 gathers the frozen weights (half an allreduce of them, exposed). "
    "The adapters' activations are not counted.",
)
# The arrays of `Layouts.out` that add up to a step, each a part the sensitivity may scale.
STEP_ARRAYS = ("compute", "bubble", "tensor", "pipeline", "data", "expert", "context")
# A layout's recomputation as its array holds it (machine.RECOMPUTE's order).
RECOMPUTE_CODES = {"none": 0, "selective": 1, "full": 2}
RECOMPUTE_NAMES = {code: name for name, code in RECOMPUTE_CODES.items()}


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
    cp: np.ndarray  # context parallelism: the sequence split over cp devices
    recompute: np.ndarray  # RECOMPUTE_CODES: the recomputation the layout was evaluated with
    # expert-parallel size tried (the search's axis when ep is free); 0: the query's ep, else
    # the divisor of dp leaving the fewest experts on a device (step.expert_parallel)
    ep: np.ndarray
    out: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.tp)

    def rows(self, start: int, stop: int) -> Layouts:
        """The layouts start to stop (not included), with their evaluation."""
        part = Layouts(**{name: getattr(self, name)[start:stop] for name in LAYOUT_FIELDS})
        part.out = {name: values[start:stop] for name, values in self.out.items()}
        return part

    def row(self, index: int) -> dict[str, Any]:
        return {
            "tp": int(self.tp[index]),
            "pp": int(self.pp[index]),
            "dp": int(self.dp[index]),
            "cp": int(self.cp[index]),
            "chunks": int(self.v[index]),
            "sequence_parallel": bool(self.sequence[index]),
            "zero": int(self.zero[index]),
            "recompute": RECOMPUTE_NAMES[int(self.recompute[index])],
            "schedule": "gpipe"
            if self.gpipe[index]
            else ("interleaved" if self.v[index] > 1 else "1f1b"),
        }


LAYOUT_FIELDS = ("tp", "pp", "dp", "v", "sequence", "zero", "gpipe", "cp", "recompute", "ep")


def concatenate(sets: list[Layouts]) -> Layouts:
    """One set of every row of `sets`, in order (not yet evaluated)."""
    return Layouts(
        **{name: np.concatenate([getattr(part, name) for part in sets]) for name in LAYOUT_FIELDS}
    )


def divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


# The search's bounds on context parallelism (a pinned cp may go beyond them): cp up to 16 (Llama
# 3 405B ran cp = 16 for its 128K-token sequences, arXiv 2407.21783 §3.3.2, recalled, not read
# here), and at least 4,096 tokens of the sequence on each device: our choice, not sourced; the
# step model prices no kernel made short by a short chunk, which would otherwise make cp look
# free on short sequences.
SEARCHED_CP = 16
SHORTEST_CHUNK = 4096


def context_sizes(inputs: Inputs, config: TransformerConfig, rest: int) -> list[int]:
    """The context-parallel sizes to try within `rest` devices: the pinned one, else 1 and every
    cp up to SEARCHED_CP dividing `rest` whose 2·cp chunks divide the sequence (Megatron-Core
    splits it in 2·cp chunks to balance causal attention) leaving SHORTEST_CHUNK tokens or more
    on each device."""
    if inputs.cp:
        return [inputs.cp] if rest % inputs.cp == 0 else []
    s = config.seq_len
    return [
        cp
        for cp in divisors(rest)
        if cp == 1 or (cp <= SEARCHED_CP and s % (2 * cp) == 0 and s // cp >= SHORTEST_CHUNK)
    ]


def factorisations(inputs: Inputs, config: TransformerConfig) -> list[tuple[int, int, int, int]]:
    """Every (tp, pp, dp, cp) with tp·cp·pp·dp = P and tp within a node, honouring pinned values.
    A tensor group divides the node's devices (tp = 3 or 6 on 8-GPU nodes would put a group
    across two nodes, whose allreduces the intra-node link does not carry)."""
    p = inputs.P
    found = []
    for tp in divisors(p):
        if inputs.devices_per_node % tp or (inputs.tp and tp != inputs.tp):
            continue
        for cp in context_sizes(inputs, config, p // tp):
            for pp in divisors(p // (tp * cp)):
                dp = p // (tp * cp * pp)
                if (inputs.pp and pp != inputs.pp) or (inputs.dp and dp != inputs.dp):
                    continue
                if pp > config.layers:
                    continue
                found.append((tp, pp, dp, cp))
    return found


def candidates(
    inputs: Inputs,
    config: TransformerConfig,
    triples: list[tuple[int, int, int, int]],
    sequence: bool = True,
    zero: int | None = None,
    chunks: int | None = None,
    gpipe: bool = False,
    ep: int = 0,
) -> Layouts:
    n = len(triples)
    arr = np.array(triples, dtype=float).reshape(n, 4)
    return Layouts(
        tp=arr[:, 0],
        pp=arr[:, 1],
        dp=arr[:, 2],
        v=np.full(n, float(chunks if chunks is not None else inputs.chunks)),
        sequence=np.full(n, sequence and inputs.sequence_parallel) & (arr[:, 0] > 1),
        zero=np.full(n, float(inputs.zero if zero is None else zero)),
        gpipe=np.full(n, gpipe),
        cp=arr[:, 3],
        recompute=np.full(n, float(RECOMPUTE_CODES[inputs.recompute])),
        ep=np.full(n, float(ep)),
    )


def best(layouts: Layouts, mask: np.ndarray | None = None) -> int | None:
    """The fastest layout that fits (within `mask`); else the fastest valid one; else None."""
    out = layouts.out
    allowed = np.ones(len(layouts), bool) if mask is None else mask
    for wanted in (out["fits"] & allowed, out["valid"] & allowed):
        if wanted.any():
            steps = np.where(wanted, out["step"], np.inf)
            return int(np.argmin(steps))
    return None
