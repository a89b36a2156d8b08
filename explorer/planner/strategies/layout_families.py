"""The strategies for transformers (after the survey): each family a constraint on the layout
search of layouts/, its strategy the fastest layout within it that fits. Data parallelism and
ZeRO (all devices one data-parallel group), tensor parallelism with and without sequence
parallelism (Megatron-LM, Korthikanti et al.), pipelines (GPipe, 1F1B, interleaved), expert
parallelism for mixture-of-experts networks, and the best data × tensor × pipeline layout."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..layouts.space import Layouts


@dataclass(frozen=True)
class TransformerStrategy:
    slug: str
    name: str
    techniques: tuple[str, ...]
    demos: tuple[str, ...]
    # the layouts of this family among all candidates (tp, pp, dp, options) -> mask
    choose: Callable[[Layouts, int], np.ndarray]
    options: dict  # sequence, zero, chunks, gpipe overrides for its candidate set
    moe_only: bool = False


def _pure_data(layouts: Layouts, _: int) -> np.ndarray:
    return (layouts.tp == 1) & (layouts.pp == 1) & (layouts.cp == 1)


def _tensor(layouts: Layouts, devices_per_node: int) -> np.ndarray:
    largest = layouts.tp[(layouts.pp == 1)].max(initial=1)
    plain = (layouts.pp == 1) & (layouts.cp == 1)
    return plain & (layouts.tp == min(largest, devices_per_node)) & (layouts.tp > 1)


def _pipeline(layouts: Layouts, _: int) -> np.ndarray:
    return (layouts.tp == 1) & (layouts.pp > 1) & (layouts.cp == 1)


def _everything(layouts: Layouts, _: int) -> np.ndarray:
    return np.ones(len(layouts), bool)


def _experts(layouts: Layouts, _: int) -> np.ndarray:
    return layouts.dp > 1


DP = ("data-parallelism", "allreduce-ring")
STRATEGIES: tuple[TransformerStrategy, ...] = (
    TransformerStrategy(
        "data",
        "Data parallelism (all P one group)",
        DP,
        ("data-parallel",),
        _pure_data,
        {"zero": 0},
    ),
    TransformerStrategy(
        "zero-1",
        "ZeRO stage 1: data parallelism, optimizer state sharded",
        DP,
        (),
        _pure_data,
        {"zero": 1},
    ),
    TransformerStrategy(
        "zero-3",
        "ZeRO stage 3: data parallelism, all model states sharded",
        DP,
        (),
        _pure_data,
        {"zero": 3},
    ),
    TransformerStrategy(
        "tensor",
        "Tensor parallelism in a node (Megatron-LM) × data parallelism",
        ("tensor-parallelism", *DP),
        (),
        _tensor,
        {"sequence": False},
    ),
    TransformerStrategy(
        "tensor-sequence",
        "Tensor and sequence parallelism in a node × data parallelism",
        ("tensor-parallelism", "sequence-parallelism", *DP),
        (),
        _tensor,
        {"sequence": True},
    ),
    TransformerStrategy(
        "pipeline-gpipe",
        "GPipe pipeline × data parallelism",
        ("pipelining", *DP),
        ("pipeline-bubble",),
        _pipeline,
        {"gpipe": True, "chunks": 1},
    ),
    TransformerStrategy(
        "pipeline-1f1b",
        "1F1B pipeline (PipeDream-Flush) × data parallelism",
        ("pipelining", *DP),
        ("pipeline-bubble",),
        _pipeline,
        {"chunks": 1},
    ),
    TransformerStrategy(
        "pipeline-interleaved",
        "Interleaved 1F1B pipeline × data parallelism",
        ("pipelining", *DP),
        ("pipeline-bubble",),
        _pipeline,
        {},
    ),
    TransformerStrategy(
        "expert",
        "Expert parallelism over the data-parallel devices (mixture of experts)",
        ("expert-parallelism", "tensor-parallelism", "sequence-parallelism", *DP),
        (),
        _experts,
        {},
        moe_only=True,
    ),
    TransformerStrategy(
        "3d",
        "Best data × tensor × pipeline layout (with sequence parallelism)",
        ("tensor-parallelism", "sequence-parallelism", "pipelining", *DP),
        (),
        _everything,
        {},
    ),
)
