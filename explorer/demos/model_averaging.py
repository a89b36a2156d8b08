"""Model averaging: workers train their own copies and combine models instead of gradients.

Compared on a softmax regression, all with the same minibatches: synchronous SGD (gradients
averaged every step), local SGD (models averaged every H steps), one-shot averaging at the end
(Zinkevich et al. [266]) and synchronous EASGD [258], whose workers are pulled towards a centre
variable with the elastic coefficient α = β/P every H steps.
"""

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .base import SEED, Demo, Param
from .common import Series, agreement, line_figure, metric, result, table
from .problems import (
    Dataset,
    batched_softmax_gradients,
    gaussian_mixture,
    minibatch,
    shards,
    softmax_loss,
)

MAX_POINTS = 50  # evaluations per curve


@dataclass
class Trace:
    rounds: list[int] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)


class Workers:
    """The workers' local data and minibatch stream; every method gets an identical copy."""

    def __init__(self, data: Dataset, params: dict[str, Any], batch_seed: int) -> None:
        self.data, self.params = data, params
        self.batches = np.random.default_rng(batch_seed)
        by_label = params["split"] == "by-label"
        self.local = shards(data.y_train, params["P"], by_label, self.batches)

    def gradients(self, w: np.ndarray) -> np.ndarray:
        rows = np.stack([minibatch(ix, self.params["batch"], self.batches) for ix in self.local])
        return batched_softmax_gradients(w, self.data.x_train[rows], self.data.y_train[rows])

    def loss(self, w: np.ndarray) -> float:
        return softmax_loss(w, self.data.x_train, self.data.y_train)


def synchronous_sgd(workers: Workers, steps: int, lr: float) -> tuple[np.ndarray, Trace]:
    w, trace = np.zeros(workers.data.parameters_shape), Trace()
    for step in range(1, steps + 1):
        w = w - lr * workers.gradients(w).mean(axis=0)
        _record(trace, workers, step, steps, w)
    return w, trace


def local_sgd(workers: Workers, steps: int, lr: float, period: int) -> tuple[np.ndarray, Trace]:
    """Models averaged every `period` steps and at the end; returns the final average."""
    p = workers.params["P"]
    models = np.zeros((p, *workers.data.parameters_shape))
    trace, rounds = Trace(), math.ceil(steps / period)
    for step in range(1, steps + 1):
        models = models - lr * workers.gradients(models)
        if step % period == 0 or step == steps:
            models[:] = models.mean(axis=0)
            _record(trace, workers, len(trace.rounds) + 1, rounds, models[0])
    return models[0], trace


def easgd(workers: Workers, steps: int, lr: float, period: int, beta: float) -> Trace:
    """Synchronous EASGD: every `period` steps, workers and centre pull towards each other."""
    p = workers.params["P"]
    alpha = beta / p
    models = np.zeros((p, *workers.data.parameters_shape))
    centre, trace, rounds = models[0].copy(), Trace(), steps // period
    for step in range(1, steps + 1):
        models = models - lr * workers.gradients(models)
        if step % period == 0:
            pull = alpha * (models - centre)
            models -= pull
            centre = centre + pull.sum(axis=0)
            _record(trace, workers, step // period, rounds, centre)
    return trace


def _record(trace: Trace, workers: Workers, round_: int, rounds: int, w: np.ndarray) -> None:
    """Evaluate at about MAX_POINTS evenly spread rounds, always including the last."""
    if round_ % max(1, rounds // MAX_POINTS) == 0 or round_ == rounds:
        trace.rounds.append(round_)
        trace.losses.append(workers.loss(w))


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    data = gaussian_mixture(rng, 3000, 50, 10)
    seed = int(rng.integers(2**63))
    steps, lr, period = params["steps"], params["lr"], min(params["H"], params["steps"])
    w_sync, sync = synchronous_sgd(Workers(data, params, seed), steps, lr)
    w_every_step, _ = local_sgd(Workers(data, params, seed), steps, lr, 1)
    _, local = local_sgd(Workers(data, params, seed), steps, lr, period)
    _, one_shot = local_sgd(Workers(data, params, seed), steps, lr, steps)
    elastic = easgd(Workers(data, params, seed), steps, lr, period, params["beta"])
    traces = {
        "synchronous SGD": sync,
        f"local SGD (H = {period})": local,
        "one-shot averaging": one_shot,
        f"EASGD (every {period} steps, β = {params['beta']:g})": elastic,
    }
    difference = float(np.max(np.abs(w_every_step - w_sync)))
    jensen = _jensen_check(data, params, seed, steps, lr)
    rows = [
        [name, trace.rounds[-1] if trace.rounds else 0, trace.losses[-1] if trace.losses else None]
        for name, trace in traces.items()
    ]
    metrics = [metric(f"final loss, {row[0]}", row[2]) for row in rows]
    metrics += [metric(f"communication rounds, {row[0]}", row[1]) for row in rows]
    claims = [
        agreement(
            "local SGD with H = 1 is synchronous SGD (within 1e-12)",
            difference <= 1e-12,
            f"max weight difference {difference:.1e} after {steps} steps",
        ),
        agreement(
            "the averaged model's loss is at most the workers' mean loss (convexity)",
            jensen[0] <= jensen[1] + 1e-12,
            f"one-shot: loss of the average {jensen[0]:.4f}, mean of the workers' losses "
            f"{jensen[1]:.4f}",
        ),
    ]
    tables = [table("Methods", ["method", "communication rounds", "final training loss"], rows)]
    figure = line_figure(
        "Training loss against communication rounds",
        "communication rounds",
        "training loss",
        [
            Series(name, trace.rounds, trace.losses, "lines+markers")
            for name, trace in traces.items()
        ],
        log_x=True,
    )
    return result(metrics, tables, [figure], claims)


def _jensen_check(
    data: Dataset, params: dict[str, Any], seed: int, steps: int, lr: float
) -> tuple[float, float]:
    """Train without any averaging; compare the loss of the average with the average loss."""
    workers = Workers(data, params, seed)
    models = np.zeros((params["P"], *data.parameters_shape))
    for _ in range(steps):
        models = models - lr * workers.gradients(models)
    return workers.loss(models.mean(axis=0)), float(np.mean([workers.loss(m) for m in models]))


DEMO = Demo(
    slug="model-averaging",
    title="Model averaging: one-shot, local SGD and EASGD",
    version=1,
    level="training",
    techniques=("model-averaging",),
    works=(266, 258, 195),
    summary="Workers train their own model copies and average models rather than gradients: "
    "once at the end, every H steps, or elastically (EASGD); the loss is plotted against the "
    "number of communication rounds.",
    look_for="Local SGD reaches nearly the synchronous loss with H times fewer rounds; one-shot "
    "averaging communicates once but suffers when the shards differ (split = by-label).",
    params=(
        Param("P", "int", 8, 1, 16, help="workers"),
        Param("steps", "int", 200, 10, 400, help="local SGD steps per worker"),
        Param("H", "int", 10, 1, 400, help="steps between averaging (local SGD, EASGD)"),
        Param("beta", "float", 0.9, 0.01, 1.0, help="EASGD moving rate β; α = β/P"),
        Param("lr", "float", 0.5, 0.01, 5.0, help="learning rate"),
        Param("batch", "int", 16, 1, 32, help="minibatch per worker"),
        Param(
            "split",
            "choice",
            "iid",
            choices=("iid", "by-label"),
            help="how the training data is split over the workers",
        ),
        SEED,
    ),
    run=run,
)
