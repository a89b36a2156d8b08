"""Hybrid parallelism, "one weird trick" [135]: data-parallel conv layers, model-parallel FC layers.

Convolutional layers have few parameters and large activations; fully-connected layers the
reverse. Data parallelism moves parameters (gradients), model parallelism moves activations, so
each layer type gets the scheme that moves its smaller side. Bytes are counted message by
message (ring allreduce for gradients, all-to-all exchanges for activations) and compared with
closed forms.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .allreduce import ring_bytes_sent
from .base import SEED, Demo, Param
from .common import Series, agreement, line_figure, metric, result, table


@dataclass(frozen=True)
class Layer:
    name: str
    inputs: int  # input channels (conv) or features (FC)
    outputs: int
    kernel: int  # 1 for FC layers
    out_size: int  # output height = width before pooling (1 for FC)
    passed_on: int  # activations per sample handed to the next layer (after pooling)

    @property
    def is_conv(self) -> bool:
        return self.kernel > 1

    @property
    def parameters(self) -> int:
        return self.kernel**2 * self.inputs * self.outputs + self.outputs

    @property
    def multiply_adds(self) -> int:
        return self.out_size**2 * self.kernel**2 * self.inputs * self.outputs


# AlexNet-like sizes: the one-column variant of torchvision's AlexNet, whose documentation cites
# [135]. Computed from the architecture (kernels, channels, 224x224 inputs), not quoted.
ALEXNET = (
    Layer("conv1", 3, 64, 11, 55, 27 * 27 * 64),
    Layer("conv2", 64, 192, 5, 27, 13 * 13 * 192),
    Layer("conv3", 192, 384, 3, 13, 13 * 13 * 384),
    Layer("conv4", 384, 256, 3, 13, 13 * 13 * 256),
    Layer("conv5", 256, 256, 3, 13, 6 * 6 * 256),
    Layer("fc6", 9216, 4096, 1, 1, 4096),
    Layer("fc7", 4096, 4096, 1, 1, 4096),
    Layer("fc8", 4096, 1000, 1, 1, 1000),
)
CONV = [layer for layer in ALEXNET if layer.is_conv]
FC = [layer for layer in ALEXNET if not layer.is_conv]


def data_parallel_bytes(p: int, gamma: int) -> int:
    """Every gradient is ring-allreduced."""
    return int(ring_bytes_sent(p, sum(layer.parameters for layer in ALEXNET), gamma).sum())


def hybrid_bytes(p: int, per_worker_batch: int, gamma: int) -> int:
    """Conv gradients are allreduced; FC activations are exchanged forward and backward."""
    conv_parameters = sum(layer.parameters for layer in CONV)
    total = int(ring_bytes_sent(p, conv_parameters, gamma).sum())
    # The input of fc6 (conv5's output) sits with the worker that owns the sample.
    total += 2 * _exchange_samples(p, per_worker_batch, CONV[-1].passed_on, gamma)
    # FC outputs are split by neurons; the next FC layer needs all of them for every sample.
    for layer in FC[:-1]:
        total += 2 * _exchange_slices(p, p * per_worker_batch, layer.passed_on, gamma)
    # The last layer's logits go back to the worker that owns each sample, for the loss.
    total += 2 * _exchange_slices(p, per_worker_batch, FC[-1].passed_on, gamma)
    return total


def _exchange_samples(p: int, samples_each: int, width: int, gamma: int) -> int:
    """Each worker sends its own samples' activations to every other worker."""
    pair_bytes = np.full((p, p), samples_each * width * gamma)
    np.fill_diagonal(pair_bytes, 0)
    return int(pair_bytes.sum())


def _exchange_slices(p: int, samples: int, width: int, gamma: int) -> int:
    """Each worker sends its slice of `width` neurons, for `samples` samples, to every other."""
    slice_sizes = np.array([len(s) for s in np.array_split(np.arange(width), p)])
    pair_bytes = np.repeat(slice_sizes[:, None] * samples * gamma, p, axis=1)
    np.fill_diagonal(pair_bytes, 0)
    return int(pair_bytes.sum())


def data_parallel_formula(p: int, gamma: int) -> int:
    return 2 * (p - 1) * gamma * sum(layer.parameters for layer in ALEXNET)


def hybrid_formula(p: int, b: int, gamma: int) -> int:
    fc_inputs = CONV[-1].passed_on + sum(layer.passed_on for layer in FC[:-1])
    conv_parameters = sum(layer.parameters for layer in CONV)
    return 2 * (p - 1) * gamma * (conv_parameters + p * b * fc_inputs + b * FC[-1].passed_on)


def crossover_batch(p: int) -> int | None:
    """Smallest per-worker batch at which the hybrid moves more bytes than data parallelism."""
    fc_parameters = sum(layer.parameters for layer in FC)
    per_sample = p * (CONV[-1].passed_on + sum(layer.passed_on for layer in FC[:-1]))
    per_sample += FC[-1].passed_on
    return fc_parameters // per_sample + 1 if p > 1 else None


def run(params: dict[str, Any], rng: Any) -> dict[str, Any]:
    p, b, gamma = params["P"], params["b"], params["gamma"]
    data, hybrid = data_parallel_bytes(p, gamma), hybrid_bytes(p, b, gamma)
    data_model, hybrid_model = data_parallel_formula(p, gamma), hybrid_formula(p, b, gamma)
    conv_share = _share(CONV, lambda layer: layer.parameters)
    crossover = crossover_batch(p)
    metrics = [
        metric("bytes per step, data parallelism", data, "B", data_model, "2(P−1)·γ·|W|"),
        metric(
            "bytes per step, hybrid",
            hybrid,
            "B",
            hybrid_model,
            "2(P−1)·γ·(|W_conv| + B·(a5 + a6 + a7) + b·a8)",
        ),
        metric("hybrid / data-parallel bytes", hybrid / data if data else None, "×"),
        metric("parameters in conv layers", conv_share * 100, "%"),
        metric(
            "multiply-adds in conv layers",
            _share(CONV, lambda layer: layer.multiply_adds) * 100,
            "%",
        ),
        metric(
            "per-worker batch where the hybrid stops paying",
            crossover,
            "samples",
            None,
            "the hybrid moves fewer bytes below this batch per worker",
        ),
    ]
    claims = [
        agreement(
            "data-parallel bytes counted message by message equal 2(P−1)·γ·|W|",
            data == data_model,
            f"{data} B counted, {data_model} B formula",
        ),
        agreement(
            "hybrid bytes counted message by message equal the closed form",
            hybrid == hybrid_model,
            f"{hybrid} B counted, {hybrid_model} B formula",
        ),
    ]
    return result(metrics, [_layer_table()], [_bytes_vs_p(b, gamma), _bytes_vs_b(p, gamma)], claims)


def _share(layers: list[Layer], size: Callable[[Layer], int]) -> float:
    return sum(size(layer) for layer in layers) / sum(size(layer) for layer in ALEXNET)


def _layer_table() -> dict[str, Any]:
    total = sum(layer.parameters for layer in ALEXNET)
    rows = [
        [
            layer.name,
            layer.parameters,
            round(100 * layer.parameters / total, 2),
            layer.passed_on,
            layer.multiply_adds,
            "data" if layer.is_conv else "model",
        ]
        for layer in ALEXNET
    ]
    columns = [
        "layer",
        "parameters",
        "% of parameters",
        "activations per sample passed on",
        "multiply-adds per sample",
        "hybrid scheme",
    ]
    return table("AlexNet-like layers (computed from the architecture)", columns, rows)


def _bytes_vs_p(b: int, gamma: int) -> dict[str, Any]:
    workers = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    return line_figure(
        f"Bytes per step against workers (b = {b} per worker)",
        "workers P",
        "bytes per step",
        [
            Series(
                "data parallelism",
                workers,
                [data_parallel_bytes(q, gamma) for q in workers],
                "lines+markers",
            ),
            Series(
                "hybrid (conv data, FC model)",
                workers,
                [hybrid_bytes(q, b, gamma) for q in workers],
                "lines+markers",
            ),
        ],
        log_x=True,
        log_y=True,
    )


def _bytes_vs_b(p: int, gamma: int) -> dict[str, Any]:
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    return line_figure(
        f"Bytes per step against batch per worker (P = {p})",
        "batch per worker b",
        "bytes per step",
        [
            Series(
                "data parallelism", batches, [data_parallel_bytes(p, gamma)] * len(batches), "lines"
            ),
            Series(
                "hybrid (conv data, FC model)",
                batches,
                [hybrid_bytes(p, q, gamma) for q in batches],
                "lines+markers",
            ),
        ],
        log_x=True,
        log_y=True,
    )


DEMO = Demo(
    slug="hybrid-one-weird-trick",
    title="Hybrid parallelism: data-parallel conv, model-parallel FC",
    version=1,
    level="networks",
    techniques=("hybrid-parallelism",),
    works=(135, 56, 39),
    summary="Bytes moved per SGD step for an AlexNet-like network, with pure data parallelism and "
    "with Krizhevsky's hybrid: conv layers data-parallel, fully-connected layers model-parallel.",
    look_for="The conv layers hold a few percent of the parameters but most of the multiply-adds. "
    "The hybrid moves far fewer bytes at moderate batch sizes; its traffic grows with the batch "
    "and with P, so past the crossover batch plain data parallelism is cheaper again.",
    params=(
        Param("P", "int", 8, 1, 256, help="workers"),
        Param("b", "int", 128, 1, 1024, help="minibatch per worker (global batch B = P·b)"),
        Param("gamma", "int", 4, 1, 8, help="bytes per element γ", unit="B"),
        SEED,
    ),
    run=run,
)
