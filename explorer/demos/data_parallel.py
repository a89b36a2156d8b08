"""Data parallelism: P simulated workers split each minibatch and combine gradients by allreduce.

Each worker computes the gradient of its shard, weighted by its share of the minibatch; a ring
allreduce (the schedule of the allreduce demo, moving real numbers) sums them. The sum must be
the full-minibatch gradient, so data-parallel SGD follows the serial trajectory.
"""

from typing import Any

import numpy as np

from .allreduce import Schedule, execute, ring_bytes_sent, ring_schedule
from .base import SEED, Demo, Param
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


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    model, p, batch, d, gamma = (params[k] for k in ("model", "P", "B", "d", "gamma"))
    x, y = make_dataset(model, DATASET_BATCHES * batch, d, rng)
    schedule = ring_schedule(p)
    w_parallel, w_serial = np.zeros(d), np.zeros(d)
    losses_parallel, losses_serial, worst_difference = [], [], 0.0
    for step in range(params["steps"]):
        rows = slice(step % DATASET_BATCHES * batch, (step % DATASET_BATCHES + 1) * batch)
        xb, yb = x[rows], y[rows]
        shards = np.array_split(np.arange(batch), p)
        local = np.array(
            [gradient(model, xb[s], yb[s], w_parallel) * len(s) / batch for s in shards]
        )
        reduced = ring_allreduce(local, schedule)
        full = gradient(model, xb, yb, w_parallel)
        worst_difference = max(worst_difference, float(np.max(np.abs(reduced - full))))
        w_parallel = w_parallel - params["lr"] * reduced[0]
        w_serial = w_serial - params["lr"] * gradient(model, xb, yb, w_serial)
        losses_parallel.append(loss(model, x, y, w_parallel))
        losses_serial.append(loss(model, x, y, w_serial))
        if not np.isfinite(losses_parallel[-1]):
            break  # diverged: the learning rate is too large for this model
    return _report(params, losses_parallel, losses_serial, worst_difference, w_parallel - w_serial)


def _report(
    params: dict[str, Any],
    losses_parallel: list[float],
    losses_serial: list[float],
    worst_difference: float,
    drift: np.ndarray,
) -> dict[str, Any]:
    p, d, gamma, batch = params["P"], params["d"], params["gamma"], params["B"]
    sent = ring_bytes_sent(p, d, gamma)
    total_model = 2 * (p - 1) * d * gamma
    per_worker_model = 2 * (p - 1) / p * d * gamma
    drift_max = float(np.max(np.abs(drift)))
    steps = list(range(1, len(losses_parallel) + 1))
    metrics = [
        metric(
            "bytes sent per worker per step (max)",
            int(sent.max()),
            "B",
            per_worker_model,
            "ring allreduce: 2γd(P−1)/P; equal when P divides d",
        ),
        metric(
            "bytes sent by all workers per step", int(sent.sum()), "B", total_model, "2(P−1)·γd"
        ),
        metric("max |allreduced − full-minibatch gradient|", worst_difference),
        metric("max |data-parallel − serial weights| after training", drift_max),
        metric("final loss", losses_parallel[-1]),
    ]
    claims = [
        agreement(
            "the allreduced gradient equals the full-minibatch gradient (within 1e-12)",
            worst_difference <= 1e-12,
            f"max abs difference {worst_difference:.1e}",
        ),
        agreement(
            "data-parallel SGD follows serial SGD (within 1e-9)",
            drift_max <= 1e-9,
            f"max weight difference {drift_max:.1e} after {len(steps)} steps",
        ),
        agreement(
            "total ring traffic equals 2(P−1)·γd bytes",
            int(sent.sum()) == total_model,
            f"{int(sent.sum())} B counted, {total_model} B by the formula",
        ),
    ]
    shard_sizes = [len(s) for s in np.array_split(np.arange(batch), p)]
    rows = [[i, shard_sizes[i], int(sent[i])] for i in range(p)]
    figures = [
        line_figure(
            "Training loss: data-parallel and serial SGD",
            "step",
            "loss",
            [
                Series("data-parallel (P workers)", steps, losses_parallel, "lines"),
                Series("serial", steps, losses_serial, "markers"),
            ],
        ),
        _bytes_figure(d, gamma),
    ]
    return result(
        metrics,
        [table("Workers", ["worker", "shard size", "bytes sent per step"], rows)],
        figures,
        claims,
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


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + np.tanh(z / 2))  # overflow-free form of 1 / (1 + exp(-z))


DEMO = Demo(
    slug="data-parallel",
    title="Data parallelism: sharded minibatch, allreduced gradient",
    version=1,
    level="networks",
    techniques=("data-parallelism",),
    works=(262, 42, 78),
    summary="P simulated workers each compute the gradient of their shard of the minibatch; a "
    "ring allreduce sums them, and the result is compared with the full-minibatch gradient.",
    look_for="The allreduced gradient equals the serial one to rounding, so the loss curves "
    "overlap; the bytes each worker sends approach 2γd as P grows, whatever the minibatch size.",
    params=(
        Param("P", "int", 4, 1, 64, help="workers"),
        Param("B", "int", 256, 1, 2048, help="minibatch size (split over the workers)"),
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
