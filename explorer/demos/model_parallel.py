"""Model parallelism: an MLP split over P simulated devices, by layers or by neurons.

Every array that moves between devices goes through `Links.send`, which counts its bytes at γ
bytes per element; the model-parallel gradients are checked against a single-device backprop.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .base import SEED, Demo, Param
from .common import Series, agreement, line_figure, metric, result, table


@dataclass
class Links:
    gamma: int
    devices: int
    sent: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.sent = np.zeros((self.devices, self.devices), dtype=np.int64)

    def send(self, array: np.ndarray, source: int, target: int) -> np.ndarray:
        if source != target:
            self.sent[source, target] += array.size * self.gamma
        return array


Arrays = list[np.ndarray]


def reference_gradients(weights: Arrays, x: np.ndarray, target: np.ndarray) -> Arrays:
    """Single-device backprop of 0.5·||MLP(x) − target||² / N (tanh hidden layers)."""
    activations = [x]
    for i, w in enumerate(weights):
        z = activations[-1] @ w
        activations.append(z if i == len(weights) - 1 else np.tanh(z))
    delta = (activations[-1] - target) / len(x)
    grads: Arrays = [np.empty(0)] * len(weights)
    for i in reversed(range(len(weights))):
        grads[i] = activations[i].T @ delta
        if i > 0:
            delta = (delta @ weights[i].T) * (1 - activations[i] ** 2)
    return grads


def layer_split_gradients(
    weights: Arrays, x: np.ndarray, target: np.ndarray, links: Links
) -> Arrays:
    """Contiguous blocks of layers per device; activations and their gradients cross blocks."""
    blocks = np.array_split(np.arange(len(weights)), links.devices)
    owner = [device for device, block in enumerate(blocks) for _ in block]
    activations, device = [x], 0
    for i, w in enumerate(weights):
        h = links.send(activations[-1], device, owner[i])
        device = owner[i]
        z = h @ w
        activations.append(z if i == len(weights) - 1 else np.tanh(z))
    delta = (activations[-1] - target) / len(x)
    grads: Arrays = [np.empty(0)] * len(weights)
    for i in reversed(range(len(weights))):
        delta = links.send(delta, device, owner[i])
        device = owner[i]
        grads[i] = activations[i].T @ delta
        if i > 0:
            delta = (delta @ weights[i].T) * (1 - activations[i] ** 2)
    return grads


def neuron_split_gradients(
    weights: Arrays, x: np.ndarray, target: np.ndarray, links: Links
) -> Arrays:
    """Every layer's output neurons are split over the devices (x is replicated).

    Forward, each device gathers the other devices' slices of the activations; backward, each
    device sends every other device its partial input gradient for that device's slice.
    """
    p, width = links.devices, weights[0].shape[1]
    slices = np.array_split(np.arange(width), p)
    inputs, outputs = [], []  # per layer: the full input each device holds; its output slices
    h = x
    for i, w in enumerate(weights):
        inputs.append(h)
        z = [h @ w[:, s] for s in slices]
        out = z if i == len(weights) - 1 else [np.tanh(part) for part in z]
        outputs.append(out)
        if i < len(weights) - 1:
            h = _all_gather(out, links)
    deltas = [(out - target[:, s]) / len(x) for out, s in zip(outputs[-1], slices, strict=True)]
    grads: Arrays = [np.empty(0)] * len(weights)
    for i in reversed(range(len(weights))):
        grads[i] = np.concatenate([inputs[i].T @ delta for delta in deltas], axis=1)
        if i > 0:
            partial = [delta @ weights[i][:, s].T for delta, s in zip(deltas, slices, strict=True)]
            summed = _reduce_scatter(partial, slices, links)
            deltas = [g * (1 - a**2) for g, a in zip(summed, outputs[i - 1], strict=True)]
    return grads


def _all_gather(parts: Arrays, links: Links) -> np.ndarray:
    for source, part in enumerate(parts):
        for target in range(links.devices):
            links.send(part, source, target)
    return np.concatenate(parts, axis=1)


def _reduce_scatter(partial: Arrays, slices: Arrays, links: Links) -> Arrays:
    return [
        sum(links.send(partial[source][:, s], source, target) for source in range(links.devices))
        for target, s in enumerate(slices)
    ]


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    n, width, depth, p, gamma = (params[k] for k in ("N", "width", "layers", "P", "gamma"))
    weights = [rng.standard_normal((width, width)) / np.sqrt(width) for _ in range(depth)]
    x, target = rng.standard_normal((n, width)), rng.standard_normal((n, width))
    reference = reference_gradients(weights, x, target)
    by_layers, by_neurons = Links(gamma, p), Links(gamma, p)
    errors = [
        _max_difference(layer_split_gradients(weights, x, target, by_layers), reference),
        _max_difference(neuron_split_gradients(weights, x, target, by_neurons), reference),
    ]
    boundaries = min(p, depth) - 1
    splits = [
        (
            "layers",
            int(by_layers.sent.sum()),
            2 * n * width * gamma * boundaries,
            "2·N·width·γ per device boundary",
            f"{boundaries} device boundaries",
        ),
        (
            "neurons",
            int(by_neurons.sent.sum()),
            2 * (p - 1) * n * width * gamma * (depth - 1),
            "2(P−1)·N·width·γ per layer boundary",
            f"{depth - 1} layer boundaries",
        ),
    ]
    metrics = [
        metric(f"bytes per step, split by {name}", counted, "B", model, f"{formula}, {count}")
        for name, counted, model, formula, count in splits
    ]
    metrics += [
        metric(f"max gradient difference, by {name}", error)
        for (name, *_), error in zip(splits, errors, strict=True)
    ]
    claims = [
        agreement(
            f"split by {name}: bytes equal {formula}",
            counted == model,
            f"{counted} B counted, {model} B model ({count})",
        )
        for name, counted, model, formula, count in splits
    ]
    claims.append(
        agreement(
            "both splits compute the single-device gradients (within 1e-10)",
            max(errors) <= 1e-10,
            f"max differences {errors[0]:.1e} and {errors[1]:.1e}",
        )
    )
    measured = [counted for _, counted, *_ in splits]
    tables = [_device_table(p, depth, width, by_layers, by_neurons)]
    return result(metrics, tables, [_bytes_figure(params, measured)], claims)


def _device_table(
    p: int, depth: int, width: int, by_layers: Links, by_neurons: Links
) -> dict[str, Any]:
    layer_blocks = np.array_split(np.arange(depth), p)
    neuron_blocks = np.array_split(np.arange(width), p)
    rows = [
        [
            d,
            len(layer_blocks[d]),
            int(by_layers.sent[d].sum()),
            len(neuron_blocks[d]),
            int(by_neurons.sent[d].sum()),
        ]
        for d in range(p)
    ]
    columns = [
        "device",
        "layers held (by layers)",
        "bytes sent (by layers)",
        "neurons per layer (by neurons)",
        "bytes sent (by neurons)",
    ]
    return table("Devices", columns, rows)


def _bytes_figure(params: dict[str, Any], measured: list[int]) -> dict[str, Any]:
    n, width, depth, p, gamma = (params[k] for k in ("N", "width", "layers", "P", "gamma"))
    devices = list(range(1, 17))
    layers = [2 * n * width * gamma * (min(q, depth) - 1) for q in devices]
    neurons = [2 * (q - 1) * n * width * gamma * (depth - 1) for q in devices]
    return line_figure(
        "Activation bytes per training step",
        "devices P",
        "bytes",
        [
            Series("by layers (model)", devices, layers, "lines", "dash"),
            Series("by neurons (model)", devices, neurons, "lines", "dash"),
            Series("simulated at this P", [p, p], measured, "markers"),
        ],
    )


def _max_difference(grads: Arrays, reference: Arrays) -> float:
    return max(float(np.max(np.abs(g - r))) for g, r in zip(grads, reference, strict=True))


DEMO = Demo(
    slug="model-parallel",
    title="Model parallelism: an MLP split by layers or by neurons",
    version=2,  # 2: "simulated" for "measured"
    level="networks",
    techniques=("model-parallelism",),
    works=(45, 136, 142),
    summary="A tanh MLP is trained for one step on P simulated devices, split by layers and by "
    "neurons; every array crossing a device boundary is counted.",
    look_for="Splitting by layers moves 2·N·width·γ per boundary whatever P; splitting by neurons "
    "moves (P−1)/P of every activation at every layer, so its traffic grows with P. Both give "
    "exactly the single-device gradients.",
    params=(
        Param("P", "int", 4, 1, 16, help="devices"),
        Param("N", "int", 64, 1, 128, help="minibatch size"),
        Param("width", "int", 256, 2, 512, help="neurons per layer"),
        Param("layers", "int", 8, 1, 16, help="layers"),
        Param("gamma", "int", 4, 1, 8, help="bytes per activation element γ", unit="B"),
        SEED,
    ),
    run=run,
)
