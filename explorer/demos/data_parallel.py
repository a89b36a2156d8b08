"""Data parallelism: P simulated workers split each minibatch and combine gradients by allreduce.

Each worker computes the gradient of its shard, weighted by its share of the minibatch; a ring
allreduce (the schedule of the allreduce demo, moving real numbers) sums them. The sum must be
the full-minibatch gradient, so data-parallel SGD follows the serial trajectory.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .allreduce import Schedule, execute, ring_bytes_sent, ring_schedule
from .base import SEED, Demo, Param, tracked
from .common import Series, agreement, line_figure, metric, powers_of_two, result, table

DATASET_BATCHES = 4  # the dataset holds this many minibatches; steps cycle through them


def gradient(model: str, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    if len(x) == 0:
        return np.zeros_like(w)
    residual = x @ w - y if model == "least-squares" else _sigmoid(x @ w) - y
    return x.T @ residual / len(x)


def loss(model: str, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    z = x @ w
    if model == "least-squares":
        return float(np.mean((z - y) ** 2) / 2)
    return float(np.mean(np.logaddexp(0, z) - y * z))


def make_dataset(
    model: str, n: int, d: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    x = rng.standard_normal((n, d)) / np.sqrt(d)
    w_true = rng.standard_normal(d)
    noise = 0.1 * rng.standard_normal(n)
    if model == "least-squares":
        return x, x @ w_true + noise
    return x, (x @ w_true + noise > 0).astype(float)


def ring_allreduce(vectors: np.ndarray, schedule: Schedule) -> np.ndarray:
    """Sum the workers' vectors (P x d) through the ring schedule; every worker gets the sum."""
    p, d = vectors.shape
    width = -(-d // p)  # elements per chunk, the last chunks padded with zeros
    padded = np.zeros((p, p * width))
    padded[:, :d] = vectors
    summed = execute(schedule, padded.reshape(p, p, width))
    return summed.reshape(p, p * width)[:, :d]


@dataclass
class Training:
    parallel: list[float] = field(default_factory=list)  # loss after each data-parallel step
    serial: list[float] = field(default_factory=list)  # loss after each serial step
    worst_difference: float = 0.0  # max |allreduced − full-minibatch gradient| over the steps
    drift: float = 0.0  # max |data-parallel − serial weights| at the end


def train(params: dict[str, Any], rng: np.random.Generator) -> Training:
    """Data-parallel SGD (shard gradients, ring allreduce) next to serial SGD on the same data."""
    model, p, batch, d = (params[k] for k in ("model", "P", "B", "d"))
    x, y = make_dataset(model, DATASET_BATCHES * batch, d, rng)
    schedule, shards = ring_schedule(p), np.array_split(np.arange(batch), p)
    w_parallel, w_serial, training = np.zeros(d), np.zeros(d), Training()
    for step in tracked(range(params["steps"]), "step"):
        rows = slice(step % DATASET_BATCHES * batch, (step % DATASET_BATCHES + 1) * batch)
        xb, yb = x[rows], y[rows]
        # Each worker weights its mean gradient by its share of the minibatch: the sum is exact.
        local = [gradient(model, xb[s], yb[s], w_parallel) * len(s) / batch for s in shards]
        reduced = ring_allreduce(np.array(local), schedule)
        full = gradient(model, xb, yb, w_parallel)
        training.worst_difference = max(training.worst_difference, _max_abs(reduced - full))
        w_parallel = w_parallel - params["lr"] * reduced[0]
        w_serial = w_serial - params["lr"] * gradient(model, xb, yb, w_serial)
        training.parallel.append(loss(model, x, y, w_parallel))
        training.serial.append(loss(model, x, y, w_serial))
        if not np.isfinite(training.parallel[-1]):
            break  # diverged: the learning rate is too large for this model
    training.drift = _max_abs(w_parallel - w_serial)
    return training


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    training = train(params, rng)
    sent = ring_bytes_sent(params["P"], params["d"], params["gamma"])
    shard_sizes = [len(s) for s in np.array_split(np.arange(params["B"]), params["P"])]
    rows = [[i, size, int(sent[i])] for i, size in enumerate(shard_sizes)]
    tables = [table("Workers", ["worker", "shard size", "bytes sent per step"], rows)]
    figures = [_loss_figure(training), _bytes_figure(params["d"], params["gamma"])]
    return result(
        _metrics(params, training, sent), tables, figures, _claims(params, training, sent)
    )


def _metrics(params: dict[str, Any], training: Training, sent: np.ndarray) -> list[dict[str, Any]]:
    p, d, gamma = params["P"], params["d"], params["gamma"]
    return [
        metric(
            "bytes sent per worker per step (max)",
            int(sent.max()),
            "B",
            2 * (p - 1) / p * d * gamma,
            "ring allreduce 2γd(P−1)/P (standard result, RECALLED); equal when P divides d",
        ),
        metric(
            "bytes sent by all workers per step",
            int(sent.sum()),
            "B",
            2 * (p - 1) * d * gamma,
            "2(P−1)·γd",
        ),
        metric("max |allreduced − full-minibatch gradient|", training.worst_difference),
        metric("max |data-parallel − serial weights| after training", training.drift),
        metric("final loss", training.parallel[-1]),
    ]


def _claims(params: dict[str, Any], training: Training, sent: np.ndarray) -> list[dict[str, Any]]:
    total_model = 2 * (params["P"] - 1) * params["d"] * params["gamma"]
    return [
        agreement(
            "the allreduced gradient equals the full-minibatch gradient (within 1e-12)",
            training.worst_difference <= 1e-12,
            f"max abs difference {training.worst_difference:.1e}",
        ),
        agreement(
            "data-parallel SGD follows serial SGD (within 1e-9)",
            training.drift <= 1e-9,
            f"max weight difference {training.drift:.1e} after {len(training.parallel)} steps",
        ),
        agreement(
            "total ring traffic equals 2(P−1)·γd bytes",
            int(sent.sum()) == total_model,
            f"{int(sent.sum())} B counted, {total_model} B by the formula",
        ),
    ]


def _loss_figure(training: Training) -> dict[str, Any]:
    steps = list(range(1, len(training.parallel) + 1))
    return line_figure(
        "Training loss: data-parallel and serial SGD",
        "step",
        "loss",
        [
            Series("data-parallel (P workers)", steps, training.parallel, "lines"),
            Series("serial", steps, training.serial, "markers"),
        ],
    )


def _bytes_figure(d: int, gamma: int) -> dict[str, Any]:
    sizes = powers_of_two(1, 64)
    measured = [int(ring_bytes_sent(p, d, gamma).max()) for p in sizes]
    formula = [2 * (p - 1) / p * d * gamma for p in sizes]
    return line_figure(
        "Bytes per worker per step of a ring allreduce",
        "workers P",
        "bytes",
        [
            Series("counted (largest per worker)", sizes, measured, "markers"),
            Series("2γd(P−1)/P", sizes, formula, "lines", "dash"),
        ],
        log_x=True,
    )


def _max_abs(values: np.ndarray) -> float:
    return float(np.max(np.abs(values)))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + np.tanh(z / 2))  # overflow-free form of 1 / (1 + exp(-z))


DEMO = Demo(
    slug="data-parallel",
    title="Data parallelism: sharded minibatch, allreduced gradient",
    version=2,  # 2: "simulated" for "measured"
    level="networks",
    techniques=("data-parallelism",),
    works=(262, 42, 78),
    summary="P simulated workers each compute the gradient of their shard of the minibatch; a "
    "ring allreduce sums them, and the result is compared with the full-minibatch gradient.",
    look_for="The allreduced gradient equals the serial one to rounding, so the loss curves "
    "overlap; the bytes each worker sends approach 2γd as P grows, whatever the minibatch size.",
    params=(
        Param("P", "int", 4, 1, 64, help="workers"),
        Param("B", "int", 256, 1, 1024, help="minibatch size (split over the workers)"),
        Param("d", "int", 64, 1, 1024, help="model parameters (features)"),
        Param("steps", "int", 20, 1, 100, help="SGD steps"),
        Param("lr", "float", 0.5, 0.001, 2.0, help="learning rate"),
        Param(
            "model",
            "choice",
            "logistic",
            choices=("logistic", "least-squares"),
            help="convex model trained",
        ),
        Param("gamma", "int", 4, 1, 8, help="bytes per gradient element γ", unit="B"),
        SEED,
    ),
    run=run,
)
