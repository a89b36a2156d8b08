"""Large minibatches: the linear scaling rule with and without gradual warm-up (Goyal et al. [83]).

A one-hidden-layer softmax network is trained on a Gaussian mixture for a fixed number of
epochs with batch sizes B0, 2·B0, ... and learning rate base_lr·B/B0. With warm-up the rate
climbs linearly from base_lr to that value over the first epochs. The survey's §3 trade-off:
large batches use hardware better but, past some size, generalize worse; warm-up moves that
size up without removing it.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import SEED, Demo, Param, tracked
from .common import Series, agreement, line_figure, metric, result, table
from .problems import Dataset, gaussian_mixture

FEASIBLE_DROP = 0.02  # a batch is feasible while its test accuracy is within 2 points of B0's


@dataclass(frozen=True)
class Outcome:
    batch: int
    lr: float
    steps: int
    train_accuracy: float
    test_accuracy: float
    diverged: bool

    @property
    def gap(self) -> float:
        return self.train_accuracy - self.test_accuracy


class Network:
    """x → ReLU(x·W1) → softmax(h·W2); biases ride on the constant input column."""

    def __init__(self, features: int, hidden: int, classes: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.w1 = rng.standard_normal((features, hidden)) * np.sqrt(2 / features)
        self.w2 = rng.standard_normal((hidden, classes)) * np.sqrt(1 / hidden)

    def step(self, x: np.ndarray, y: np.ndarray, lr: float) -> float:
        """One SGD step on the minibatch; returns its loss."""
        h = np.maximum(x @ self.w1, 0)
        logits = h @ self.w2
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        loss = float(-np.mean(np.log(p[np.arange(len(y)), y] + 1e-300)))
        p[np.arange(len(y)), y] -= 1
        p /= len(y)
        grad_h = (p @ self.w2.T) * (h > 0)
        self.w2 -= lr * (h.T @ p)
        self.w1 -= lr * (x.T @ grad_h)
        return loss

    def accuracy(self, x: np.ndarray, y: np.ndarray) -> float:
        logits = np.maximum(x @ self.w1, 0) @ self.w2
        return float(np.mean(np.argmax(logits, axis=1) == y))


def learning_rates(
    params: dict[str, Any], batch: int, warmup: bool, steps_per_epoch: int
) -> np.ndarray:
    """The rate of every step: base_lr·B/B0, reached linearly over the warm-up epochs."""
    target = params["base_lr"] * batch / params["B0"]
    total = params["epochs"] * steps_per_epoch
    rates = np.full(total, target)
    ramp = min(total, int(params["warmup_epochs"] * steps_per_epoch)) if warmup else 0
    rates[:ramp] = np.linspace(params["base_lr"], target, ramp, endpoint=False)
    return rates


def train(params: dict[str, Any], data: Dataset, batch: int, warmup: bool, seed: int) -> Outcome:
    net = Network(data.x_train.shape[1], params["hidden"], data.classes, seed)
    order_rng = np.random.default_rng(seed)
    n = len(data.y_train)
    steps_per_epoch = -(-n // batch)
    rates = learning_rates(params, batch, warmup, steps_per_epoch)
    step = 0
    for _ in tracked(range(params["epochs"]), "epoch"):
        order = order_rng.permutation(n)
        for start in range(0, n, batch):
            rows = order[start : start + batch]
            loss = net.step(data.x_train[rows], data.y_train[rows], rates[step])
            step += 1
            if not np.isfinite(loss) or loss > 1e3:
                return Outcome(batch, rates[-1], step, 1 / data.classes, 1 / data.classes, True)
    return Outcome(
        batch,
        float(rates[-1]),
        step,
        net.accuracy(data.x_train, data.y_train),
        net.accuracy(data.x_test, data.y_test),
        False,
    )


def feasible_batch(outcomes: list[Outcome], reference: float) -> int:
    """The largest batch whose test accuracy stays within FEASIBLE_DROP of B0's."""
    good = [o.batch for o in outcomes if o.test_accuracy >= reference - FEASIBLE_DROP]
    return max(good)


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    # Large inputs make the loss sharply curved at initialization, the regime where warm-up
    # matters; the curvature drops as the network learns.
    data = gaussian_mixture(rng, params["samples"], 16, 8, clusters_per_class=6, scale=5.0)
    seed = int(rng.integers(2**31))
    batches = [params["B0"]]
    while batches[-1] * 2 <= params["max_batch"]:
        batches.append(batches[-1] * 2)
    plain = [train(params, data, b, False, seed) for b in batches]
    # At B0 the warm-up ramps from base_lr to base_lr: the same run.
    warm = plain[:1] + [train(params, data, b, True, seed) for b in batches[1:]]
    n_train = len(data.y_train)
    return result(
        _metrics(plain, warm),
        [_table(plain, warm)],
        _figures(params, plain, warm, n_train),
        _claims(params, plain, warm, n_train),
    )


def _metrics(plain: list[Outcome], warm: list[Outcome]) -> list[dict[str, Any]]:
    reference = plain[0].test_accuracy
    return [
        metric("test accuracy at B0", reference),
        metric("test accuracy at the largest batch, no warm-up", plain[-1].test_accuracy),
        metric("test accuracy at the largest batch, warm-up", warm[-1].test_accuracy),
        metric(
            "largest feasible batch, no warm-up",
            feasible_batch(plain, reference),
            "samples",
            None,
            "test accuracy within 2 points of B0's",
        ),
        metric("largest feasible batch, warm-up", feasible_batch(warm, reference), "samples"),
    ]


def _claims(
    params: dict[str, Any], plain: list[Outcome], warm: list[Outcome], n_train: int
) -> list[dict[str, Any]]:
    largest, reference = plain[-1].batch, plain[0].test_accuracy
    steps_per_epoch = -(-n_train // largest)
    schedule = learning_rates(params, largest, True, steps_per_epoch)
    rule = params["base_lr"] * largest / params["B0"]
    first = params["base_lr"] if params["warmup_epochs"] * steps_per_epoch >= 1 else rule
    return [
        agreement(
            "the learning rate reaches the linear scaling rule base_lr·B/B0 (after any warm-up)",
            abs(schedule[-1] - rule) <= 1e-12 and abs(schedule[0] - first) <= 1e-12,
            f"at B = {largest}: final rate {schedule[-1]:g} = {params['base_lr']:g}·{largest}/"
            f"{params['B0']}; first rate {schedule[0]:g}",
        ),
        agreement(
            "warm-up does not remove the limit: the largest batch loses accuracy",
            warm[-1].test_accuracy < reference - FEASIBLE_DROP or len(plain) == 1,
            f"test accuracy {warm[-1].test_accuracy:.3f} at B = {largest} vs "
            f"{reference:.3f} at B0 = {plain[0].batch} (same number of epochs)",
        ),
    ]


def _table(plain: list[Outcome], warm: list[Outcome]) -> dict[str, Any]:
    rows = [
        [
            p.batch,
            p.lr,
            p.steps,
            p.test_accuracy,
            p.gap,
            w.test_accuracy,
            w.gap,
            p.diverged or w.diverged,
        ]
        for p, w in zip(plain, warm, strict=True)
    ]
    columns = [
        "batch B",
        "learning rate (linear rule)",
        "steps",
        "test acc.",
        "gap",
        "test acc. (warm-up)",
        "gap (warm-up)",
        "diverged",
    ]
    return table("Batch sizes (gap = train − test accuracy)", columns, rows)


def _figures(
    params: dict[str, Any], plain: list[Outcome], warm: list[Outcome], n_train: int
) -> list[dict[str, Any]]:
    batches = [o.batch for o in plain]
    accuracy = line_figure(
        "Test accuracy against batch size (same epochs)",
        "batch size B",
        "test accuracy",
        [
            Series(
                "linear scaling, no warm-up",
                batches,
                [o.test_accuracy for o in plain],
                "lines+markers",
            ),
            Series(
                "linear scaling + warm-up",
                batches,
                [o.test_accuracy for o in warm],
                "lines+markers",
            ),
        ],
        log_x=True,
    )
    gap = line_figure(
        "Generalization gap against batch size",
        "batch size B",
        "train − test accuracy",
        [
            Series("no warm-up", batches, [o.gap for o in plain], "lines+markers"),
            Series("warm-up", batches, [o.gap for o in warm], "lines+markers"),
        ],
        log_x=True,
    )
    largest = batches[-1]
    steps_per_epoch = -(-n_train // largest)
    schedule = [learning_rates(params, largest, w, steps_per_epoch) for w in (False, True)]
    steps = list(range(len(schedule[0])))
    rates = line_figure(
        f"Learning rate schedule at B = {largest}",
        "step",
        "learning rate",
        [
            Series("no warm-up", steps, schedule[0].tolist()),
            Series("warm-up", steps, schedule[1].tolist()),
        ],
    )
    return [accuracy, gap, rates]


DEMO = Demo(
    slug="large-minibatch",
    title="Large minibatches: linear scaling and warm-up",
    version=1,
    level="training",
    techniques=("large-minibatch",),
    works=(83, 249),
    summary="A small network is trained for a fixed number of epochs with growing batch sizes and "
    "learning rates scaled linearly with the batch, with and without gradual warm-up.",
    look_for="Up to some batch size the linear rule keeps accuracy; without warm-up the large "
    "initial rates break training earlier. Warm-up moves the limit up, but the largest batches "
    "still lose accuracy: fewer, larger steps in the same epochs.",
    params=(
        Param("B0", "int", 32, 16, 256, help="reference batch size"),
        Param("max_batch", "int", 2048, 8, 4096, help="largest batch size tried (B0·2^k)"),
        Param("base_lr", "float", 0.1, 0.001, 1.0, help="learning rate at B0"),
        Param("warmup_epochs", "float", 2.0, 0.0, 10.0, help="epochs of linear warm-up"),
        Param("epochs", "int", 8, 1, 10, help="training epochs (the same for every batch)"),
        Param("hidden", "int", 32, 8, 64, help="hidden units"),
        Param("samples", "int", 3000, 1000, 4000, help="samples (a quarter held out for testing)"),
        SEED,
    ),
    run=run,
)
