"""Gradient sparsification: each worker sends only its k largest gradient values.

With residual accumulation (Strom [224], Aji & Heafield [3], DGC [158]) the values not sent are
kept and added to the next gradient, so nothing is lost, only delayed; without it they are
dropped. DGC's momentum correction and warm-up are left out. A sent value costs 32 bits plus
its index.
"""

import math
from typing import Any

import numpy as np

from .base import SEED, Demo, Param
from .common import Series, agreement, line_figure, metric, result, table
from .problems import Compressor, Dataset, compressed_sgd, evaluation_steps, gaussian_mixture

FLOAT_BITS = 32
SWEEP = (0.001, 0.01, 0.1)
CONSERVATION_TOLERANCE = 1e-9


class TopK:
    def __init__(
        self, workers: int, shape: tuple[int, int], density: float, residual: bool
    ) -> None:
        size = shape[0] * shape[1]
        self.k = max(1, round(density * size))
        self.keep_residual = residual
        self.residual = np.zeros((workers, *shape))
        self.sent_total = np.zeros((workers, *shape))
        self.gradient_total = np.zeros((workers, *shape))
        self.bits = self.k * (FLOAT_BITS + math.ceil(math.log2(size)))

    def __call__(self, worker: int, gradient: np.ndarray) -> tuple[np.ndarray, int]:
        value = gradient + self.residual[worker] if self.keep_residual else gradient
        largest = np.argpartition(np.abs(value), -self.k, axis=None)[-self.k :]
        sent = np.zeros(value.size)
        sent[largest] = value.ravel()[largest]
        sent = sent.reshape(value.shape)
        if self.keep_residual:
            self.residual[worker] = value - sent
        self.sent_total[worker] += sent
        self.gradient_total[worker] += gradient
        return sent, self.bits

    def conservation_error(self) -> float:
        """max |Σ sent + residual − Σ gradients|: zero when nothing is lost."""
        return float(np.max(np.abs(self.sent_total + self.residual - self.gradient_total)))


class Dense:
    def __call__(self, worker: int, gradient: np.ndarray) -> tuple[np.ndarray, int]:
        return gradient, FLOAT_BITS * gradient.size


def train(
    params: dict[str, Any], data: Dataset, compress: Compressor, batch_seed: int
) -> list[float]:
    losses, _ = compressed_sgd(
        data,
        compress,
        workers=params["P"],
        steps=params["steps"],
        lr=params["lr"],
        batch=params["batch"],
        batch_seed=batch_seed,
        eval_every=_eval_every(params),
    )
    return losses


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    data = gaussian_mixture(rng, 3000, 100, 10)
    batch_seed = int(rng.integers(2**63))
    shape, density = data.parameters_shape, params["density"]
    runs = _density_sweep(params, data, batch_seed)
    with_residual, curve_with = runs[density, True]
    curves = {
        "dense (32-bit)": train(params, data, Dense(), batch_seed),
        "top-k + residual": curve_with,
        "top-k, residual dropped": runs[density, False][1],
    }
    final = {name: curve[-1] for name, curve in curves.items()}
    dense_bits = FLOAT_BITS * shape[0] * shape[1]
    conservation = with_residual.conservation_error()
    metrics = [metric(f"final loss, {name}", value) for name, value in final.items()]
    metrics += [
        metric("values sent per worker per step", with_residual.k, "", None, "k = density·d"),
        metric(
            "bits per worker per step",
            with_residual.bits,
            "bit",
            None,
            "k·(32 + ⌈log2 d⌉): value and index",
        ),
        metric("compression", dense_bits / with_residual.bits, "×"),
    ]
    claims = [
        agreement(
            "with residual accumulation nothing is lost: Σ sent + residual = Σ gradients",
            conservation <= CONSERVATION_TOLERANCE,
            f"max difference {conservation:.1e}",
        ),
        agreement(
            "residual accumulation ends at a lower loss than dropping the unsent values",
            final["top-k + residual"] <= final["top-k, residual dropped"],
            f"{final['top-k + residual']:.4f} with, {final['top-k, residual dropped']:.4f} without",
        ),
    ]
    sweep = [(d, runs[d, True][1][-1], runs[d, False][1][-1]) for d in sorted({d for d, _ in runs})]
    figures = [_loss_figure(params, curves), _sweep_figure(sweep, final["dense (32-bit)"])]
    rows = [[d, loss_with, loss_without] for d, loss_with, loss_without in sweep]
    tables = [table("Final loss against density", ["density", "with residual", "dropped"], rows)]
    return result(metrics, tables, figures, claims)


def _density_sweep(
    params: dict[str, Any], data: Dataset, batch_seed: int
) -> dict[tuple[float, bool], tuple[TopK, list[float]]]:
    """Top-k runs, with and without residual, for the sweep densities and the chosen one."""
    shape, p = data.parameters_shape, params["P"]
    runs = {}
    for density in set(SWEEP) | {params["density"]}:
        for residual in (True, False):
            compress = TopK(p, shape, density, residual)
            runs[density, residual] = compress, train(params, data, compress, batch_seed)
    return runs


def _eval_every(params: dict[str, Any]) -> int:
    return max(1, params["steps"] // 25)


def _loss_figure(params: dict[str, Any], curves: dict[str, list[float]]) -> dict[str, Any]:
    steps = evaluation_steps(params["steps"], _eval_every(params))
    return line_figure(
        f"Training loss at density {params['density']:g}",
        "step",
        "training loss",
        [Series(name, steps, curve) for name, curve in curves.items()],
        log_y=True,
    )


def _sweep_figure(sweep: list[tuple[float, float, float]], dense_loss: float) -> dict[str, Any]:
    densities = [row[0] for row in sweep]
    return line_figure(
        "Final loss against density",
        "density (fraction of values sent)",
        "final training loss",
        [
            Series("top-k + residual", densities, [row[1] for row in sweep], "lines+markers"),
            Series(
                "top-k, residual dropped", densities, [row[2] for row in sweep], "lines+markers"
            ),
            Series("dense", densities, [dense_loss] * len(sweep), "lines", "dash"),
        ],
        log_x=True,
    )


DEMO = Demo(
    slug="gradient-sparsification",
    title="Gradient sparsification: top-k with residual accumulation",
    version=1,
    level="training",
    techniques=("gradient-sparsification",),
    works=(224, 3, 158),
    summary="Data-parallel SGD on a softmax regression where each worker sends only its k "
    "largest gradient values, keeping the rest as a residual for later (or dropping it).",
    look_for="With the residual, even 1% density trains nearly as well as dense SGD; without it, "
    "the small values are lost for good and the loss stalls.",
    params=(
        Param("density", "float", 0.01, 0.001, 1.0, help="fraction of gradient values sent"),
        Param("P", "int", 4, 1, 4, help="workers"),
        Param("steps", "int", 150, 10, 200, help="SGD steps"),
        Param("lr", "float", 1.0, 0.01, 5.0, help="learning rate"),
        Param("batch", "int", 16, 1, 32, help="minibatch per worker"),
        SEED,
    ),
    run=run,
)
