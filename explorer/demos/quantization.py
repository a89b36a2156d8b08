"""Gradient quantization: 1-bit SGD with error feedback [210], QSGD [5] and TernGrad [237].

P workers train a softmax regression by data-parallel SGD; each sends a quantized gradient.
Bits are those of a fixed-width code (no entropy coding), per worker and per step.
"""

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .base import SEED, Demo, Param
from .common import Series, agreement, line_figure, metric, result, table
from .problems import (
    Compressor,
    Dataset,
    compressed_sgd,
    evaluation_steps,
    gaussian_mixture,
    softmax_gradient,
)

FLOAT_BITS = 32
UNBIASED_DRAWS = 500
RATIO_LIMIT = 2.0  # the noise ratio is about 1 ± 0.1 for these sizes when there is no bias


class FullPrecision:
    def __call__(self, worker: int, gradient: np.ndarray) -> tuple[np.ndarray, int]:
        return gradient, FLOAT_BITS * gradient.size


class OneBit:
    """Sign of each value; per column, the mean of the positive and of the negative values.

    With error feedback the quantization error is kept and added to the next gradient.
    """

    def __init__(self, workers: int, shape: tuple[int, int], feedback: bool) -> None:
        self.error = np.zeros((workers, *shape))
        self.feedback = feedback

    def __call__(self, worker: int, gradient: np.ndarray) -> tuple[np.ndarray, int]:
        value = gradient + self.error[worker] if self.feedback else gradient
        positive = value >= 0
        up = _column_mean(value, positive)
        down = _column_mean(value, ~positive)
        decoded = np.where(positive, up, down)
        if self.feedback:
            self.error[worker] = value - decoded
        return decoded, value.size + 2 * FLOAT_BITS * value.shape[1]


class QSGD:
    """Stochastic rounding of |v_i|/‖v‖ to one of s levels; unbiased."""

    def __init__(self, levels: int, rng: np.random.Generator) -> None:
        self.levels, self.rng = levels, rng

    def __call__(self, worker: int, gradient: np.ndarray) -> tuple[np.ndarray, int]:
        return qsgd(gradient, self.levels, self.rng), qsgd_bits(gradient.size, self.levels)


class TernGrad:
    """max|g| · sign(g) · Bernoulli(|g|/max|g|); unbiased, two bits per value."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, worker: int, gradient: np.ndarray) -> tuple[np.ndarray, int]:
        return terngrad(gradient, self.rng), 2 * gradient.size + FLOAT_BITS


def qsgd(v: np.ndarray, levels: int, rng: np.random.Generator) -> np.ndarray:
    norm = np.linalg.norm(v)
    if norm == 0:
        return np.zeros_like(v)
    scaled = np.abs(v) / norm * levels
    lower = np.floor(scaled)
    level = lower + (rng.random(v.shape) < scaled - lower)
    return norm * np.sign(v) * level / levels


def qsgd_bits(size: int, levels: int) -> int:
    return FLOAT_BITS + size * (1 + math.ceil(math.log2(levels + 1)))


def terngrad(v: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    scale = np.max(np.abs(v))
    if scale == 0:
        return np.zeros_like(v)
    return scale * np.sign(v) * (rng.random(v.shape) < np.abs(v) / scale)


def _column_mean(value: np.ndarray, mask: np.ndarray) -> np.ndarray:
    counts = mask.sum(axis=0)
    return np.where(counts > 0, (value * mask).sum(axis=0) / np.maximum(counts, 1), 0.0)


def qsgd_variance(v: np.ndarray, levels: int) -> np.ndarray:
    norm = np.linalg.norm(v)
    fraction = np.abs(v) / norm * levels % 1.0 if norm else np.zeros_like(v)
    return (norm / levels) ** 2 * fraction * (1 - fraction)


def terngrad_variance(v: np.ndarray) -> np.ndarray:
    scale = np.max(np.abs(v))
    keep = np.abs(v) / scale if scale else np.zeros_like(v)
    return scale**2 * keep * (1 - keep)


def noise_ratio(
    quantize: Callable[[np.ndarray], np.ndarray], v: np.ndarray, variance: np.ndarray
) -> float:
    """‖mean of K draws − v‖² over its expectation Σ Var/K for an unbiased quantizer (≈ 1).

    A bias adds K·‖bias‖²/Σ Var and drives the ratio far above 1.
    """
    mean = np.mean([quantize(v) for _ in range(UNBIASED_DRAWS)], axis=0)
    expected = variance.sum() / UNBIASED_DRAWS
    return float(np.sum((mean - v) ** 2) / expected) if expected else math.inf


def methods(
    params: dict[str, Any], data: Dataset, rng: np.random.Generator
) -> dict[str, Compressor]:
    shape, p = data.parameters_shape, params["P"]
    return {
        "32-bit": FullPrecision(),
        "1-bit + error feedback": OneBit(p, shape, feedback=True),
        "1-bit, no feedback": OneBit(p, shape, feedback=False),
        f"QSGD (s = {params['s']})": QSGD(params["s"], rng),
        "TernGrad": TernGrad(rng),
    }


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    data = gaussian_mixture(rng, 3000, 50, 10)
    batch_seed = int(rng.integers(2**63))
    eval_every = max(1, params["steps"] // 25)
    curves, bits = {}, {}
    for name, compress in methods(params, data, rng).items():
        curves[name], bits[name] = compressed_sgd(
            data,
            compress,
            workers=params["P"],
            steps=params["steps"],
            lr=params["lr"],
            batch=params["batch"],
            batch_seed=batch_seed,
            eval_every=eval_every,
        )
    final = {name: curve[-1] for name, curve in curves.items()}
    dense_bits = bits["32-bit"]
    rows = [[name, bits[name], dense_bits / bits[name], final[name]] for name in curves]
    metrics = [metric(f"final loss, {name}", final[name]) for name in curves]
    metrics += [metric(f"bits per worker per step, {name}", bits[name], "bit") for name in curves]
    figures = [_loss_figure(params, curves, eval_every), _tradeoff_figure(bits, final)]
    columns = ["method", "bits per worker per step", "compression ×", "final training loss"]
    tables = [table("Quantizers", columns, rows)]
    return result(metrics, tables, figures, _claims(params, data, rng, final))


def _claims(
    params: dict[str, Any], data: Dataset, rng: np.random.Generator, final: dict[str, float]
) -> list[dict[str, Any]]:
    probe = gaussian_mixture(rng, 200, 50, 10)
    v = softmax_gradient(np.zeros(data.parameters_shape), probe.x_train, probe.y_train)
    ratio_qsgd = noise_ratio(lambda g: qsgd(g, params["s"], rng), v, qsgd_variance(v, params["s"]))
    ratio_tern = noise_ratio(lambda g: terngrad(g, rng), v, terngrad_variance(v))
    baseline = final["32-bit"]
    feedback, no_feedback = final["1-bit + error feedback"], final["1-bit, no feedback"]
    return [
        _unbiased_claim("QSGD", ratio_qsgd),
        _unbiased_claim("TernGrad", ratio_tern),
        agreement(
            "1-bit SGD with error feedback ends within 10% of the 32-bit loss",
            feedback <= 1.1 * baseline,
            f"{feedback:.4f} vs {baseline:.4f} (32-bit)",
        ),
        agreement(
            "error feedback helps 1-bit SGD",
            feedback <= no_feedback,
            f"{feedback:.4f} with feedback, {no_feedback:.4f} without",
        ),
    ]


def _unbiased_claim(method: str, ratio: float) -> dict[str, Any]:
    return agreement(
        f"{method} is unbiased: the mean of {UNBIASED_DRAWS} quantizations is the gradient "
        "up to sampling noise",
        ratio <= RATIO_LIMIT,
        f"squared error of the mean is {ratio:.2f}x what the quantizer's variance alone gives "
        "(1 expected; a bias makes it grow with the number of draws)",
    )


def _loss_figure(
    params: dict[str, Any], curves: dict[str, list[float]], eval_every: int
) -> dict[str, Any]:
    steps = evaluation_steps(params["steps"], eval_every)
    series = [Series(name, steps, curve) for name, curve in curves.items()]
    return line_figure(
        "Training loss with quantized gradients", "step", "training loss", series, log_y=True
    )


def _tradeoff_figure(bits: dict[str, int], final: dict[str, float]) -> dict[str, Any]:
    series = [Series(name, [bits[name]], [final[name]], "markers") for name in bits]
    return line_figure(
        "Final loss against bits sent",
        "bits per worker per step",
        "final training loss",
        series,
        log_x=True,
    )


DEMO = Demo(
    slug="gradient-quantization",
    title="Gradient quantization: 1-bit SGD, QSGD, TernGrad",
    version=1,
    level="training",
    techniques=("gradient-quantization",),
    works=(210, 5, 237),
    summary="Data-parallel SGD on a softmax regression where each worker sends a quantized "
    "gradient: 1 bit per value (with and without error feedback), QSGD with s levels, TernGrad.",
    look_for="A 10-30x smaller message costs little loss; 1-bit SGD needs its error feedback; "
    "QSGD and TernGrad stay unbiased thanks to stochastic rounding, at the price of variance.",
    params=(
        Param("P", "int", 4, 1, 8, help="workers"),
        Param("steps", "int", 150, 10, 300, help="SGD steps"),
        Param("lr", "float", 1.0, 0.01, 5.0, help="learning rate"),
        Param("batch", "int", 16, 1, 64, help="minibatch per worker"),
        Param("s", "int", 4, 1, 255, help="QSGD quantization levels"),
        SEED,
    ),
    run=run,
)
