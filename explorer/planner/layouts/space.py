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

from ..formulas import CONFIRMED, Assumption
from ..machine import Inputs
from ..transformer import TransformerConfig
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
    """Every (tp, pp, dp) with tp·pp·dp = P and tp within a node, honouring pinned values. A
    tensor group divides the node's devices (tp = 3 or 6 on 8-GPU nodes would put a group
    across two nodes, whose allreduces the intra-node link does not carry)."""
    p = inputs.P
    found = []
    for tp in divisors(p):
        if inputs.devices_per_node % tp or (inputs.tp and tp != inputs.tp):
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


def best(layouts: Layouts, mask: np.ndarray | None = None) -> int | None:
    """The fastest layout that fits (within `mask`); else the fastest valid one; else None."""
    out = layouts.out
    allowed = np.ones(len(layouts), bool) if mask is None else mask
    for wanted in (out["fits"] & allowed, out["valid"] & allowed):
        if wanted.any():
            steps = np.where(wanted, out["step"], np.inf)
            return int(np.argmin(steps))
    return None
