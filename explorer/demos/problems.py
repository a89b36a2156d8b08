"""Small synthetic learning problems shared by the training demos.

A Gaussian mixture (a few clusters per class) keeps problems small, seeded and quick, yet not
linearly trivial; softmax regression on it is convex, so differences between training schemes
show up as differences in loss rather than as luck.
"""

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class Dataset:
    x_train: np.ndarray  # (n, features + 1): the last column is a constant 1 for the bias
    y_train: np.ndarray  # (n,) class indices
    x_test: np.ndarray
    y_test: np.ndarray
    classes: int

    @property
    def parameters_shape(self) -> tuple[int, int]:
        return self.x_train.shape[1], self.classes


def gaussian_mixture(
    rng: np.random.Generator,
    samples: int,
    features: int,
    classes: int,
    *,
    clusters_per_class: int = 2,
    spread: float = 1.0,
    scale: float = 1.0,
    test_fraction: float = 0.25,
) -> Dataset:
    centres = rng.standard_normal((classes * clusters_per_class, features)) * 1.5
    cluster = rng.integers(0, len(centres), samples)
    x = centres[cluster] + spread * rng.standard_normal((samples, features))
    x = np.hstack([x * (scale / np.sqrt(features)), np.ones((samples, 1))])
    y = cluster % classes
    n_test = int(samples * test_fraction)
    return Dataset(x[n_test:], y[n_test:], x[:n_test], y[:n_test], classes)


def softmax_probabilities(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    logits = x @ w
    logits -= logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    return exp / exp.sum(axis=1, keepdims=True)


def softmax_loss(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    probabilities = softmax_probabilities(w, x)
    return float(-np.mean(np.log(probabilities[np.arange(len(y)), y] + 1e-300)))


def softmax_gradient(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    probabilities = softmax_probabilities(w, x)
    probabilities[np.arange(len(y)), y] -= 1
    return x.T @ probabilities / len(y)


def accuracy(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.argmax(x @ w, axis=1) == y))


def shards(
    labels: np.ndarray, workers: int, by_label: bool, rng: np.random.Generator
) -> list[np.ndarray]:
    """Index sets of the workers' local data: a random split, or sorted by label (non-IID)."""
    order = np.argsort(labels, kind="stable") if by_label else rng.permutation(len(labels))
    return np.array_split(order, workers)


def minibatch(indices: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` samples drawn with replacement (cheap, and what SGD analyses assume)."""
    return indices[rng.integers(0, len(indices), size)]


class Compressor(Protocol):
    """Turns one worker's gradient into what the others receive, and its size in bits."""

    def __call__(self, worker: int, gradient: np.ndarray) -> tuple[np.ndarray, int]: ...


def compressed_sgd(
    data: Dataset,
    compress: Compressor,
    *,
    workers: int,
    steps: int,
    lr: float,
    batch: int,
    batch_seed: int,
    eval_every: int,
) -> tuple[list[float], int]:
    """Data-parallel SGD where every worker's gradient passes through `compress`.

    Returns the training loss every `eval_every` steps (and at step 0) and the bits one worker
    sends per step. The same `batch_seed` gives every method the same minibatches.
    """
    batches = np.random.default_rng(batch_seed)
    local = shards(data.y_train, workers, False, batches)
    w = np.zeros(data.parameters_shape)
    losses, bits = [softmax_loss(w, data.x_train, data.y_train)], 0
    for step in range(1, steps + 1):
        rows = np.stack([minibatch(indices, batch, batches) for indices in local])
        gradients = batched_softmax_gradients(w, data.x_train[rows], data.y_train[rows])
        received = []
        for worker, gradient in enumerate(gradients):
            decoded, bits = compress(worker, gradient)
            received.append(decoded)
        w = w - lr * np.mean(received, axis=0)
        if step % eval_every == 0 or step == steps:
            losses.append(softmax_loss(w, data.x_train, data.y_train))
    return losses, bits


def batched_softmax_gradients(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """One gradient per worker: x is (workers, batch, features), y (workers, batch).

    `w` is one model shared by all workers (features, classes) or one per worker.
    """
    if w.ndim == 2:  # one large GEMM is much faster than a stack of small ones
        logits = (x.reshape(-1, x.shape[2]) @ w).reshape(*x.shape[:2], -1)
    else:
        logits = x @ w
    logits -= logits.max(axis=2, keepdims=True)
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum(axis=2, keepdims=True)
    np.put_along_axis(
        probabilities, y[..., None], np.take_along_axis(probabilities, y[..., None], 2) - 1, 2
    )
    return np.swapaxes(x, 1, 2) @ probabilities / x.shape[1]


def evaluation_steps(steps: int, eval_every: int) -> list[int]:
    """The steps at which `compressed_sgd` records the loss."""
    return [0, *range(eval_every, steps, eval_every), steps]
