"""A fully-connected layer as one GEMM, and the depth of its reduction over the inputs.

y[n, o] = sum_i W[o, i] x[n, i]: the products are independent (depth 1) and only the sum over
C_in creates a dependency chain. Summing pairwise, level by level, gives depth ⌈log2 C_in⌉.
"""

import math
from typing import Any

import numpy as np

from .base import SEED, Demo, Param
from .common import Series, agreement, line_figure, metric, result, table, timed

TOLERANCE = 1e-9
CHUNK_ELEMENTS = 2_000_000  # products held at once by the tree reduction (16 MB)


def tree_sum(values: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Pairwise sum over the last axis: (sums, levels, additions)."""
    levels = additions = 0
    while values.shape[-1] > 1:
        even = values.shape[-1] // 2 * 2
        pairs = values[..., 0:even:2] + values[..., 1:even:2]
        additions += pairs.size
        carry = values[..., even:]  # an odd element waits for the next level
        values = np.concatenate([pairs, carry], axis=-1)
        levels += 1
    return values[..., 0], levels, additions


def tree_layer(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int, int, int]:
    """The layer by explicit products and tree sums: (y, levels, multiplications, additions)."""
    chunk = max(1, CHUNK_ELEMENTS // w.size)
    outputs, levels, multiplications, additions = [], 0, 0, 0
    for start in range(0, x.shape[0], chunk):
        products = x[start : start + chunk, None, :] * w[None, :, :]
        sums, levels, added = tree_sum(products)
        outputs.append(sums)
        multiplications += products.size
        additions += added
    return np.concatenate(outputs), levels, multiplications, additions


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    n, c_in, c_out = params["N"], params["C_in"], params["C_out"]
    x = rng.standard_normal((n, c_in))
    w = rng.standard_normal((c_out, c_in))
    y_gemm, gemm_s = timed(lambda: x @ w.T)
    (y_tree, levels, multiplications, additions), tree_s = timed(lambda: tree_layer(x, w))
    work = n * c_in * c_out
    depth_model = math.ceil(math.log2(c_in))
    error = float(np.max(np.abs(y_tree - y_gemm)))
    metrics = [
        metric(
            "multiplications",
            multiplications,
            "",
            work,
            "Table 4 FC row (RECALLED, unconfirmed): W = O(C_out·C_in·N)",
        ),
        metric("additions", additions, "", n * c_out * (c_in - 1), "N·C_out·(C_in − 1)"),
        metric(
            "reduction levels",
            levels,
            "",
            depth_model,
            "Table 4 FC row (RECALLED, unconfirmed): D = O(log C_in)",
        ),
        metric("average parallelism W/D", work / (1 + levels), "", None, "depth counts products"),
        metric("GEMM time", gemm_s, "s"),
        metric("explicit tree time", tree_s, "s"),
    ]
    claims = [
        agreement(
            "the pairwise reduction needs ⌈log2 C_in⌉ levels",
            levels == depth_model,
            f"simulated {levels} levels, ⌈log2 {c_in}⌉ = {depth_model}",
        ),
        agreement(
            "multiply-adds equal the work N·C_in·C_out",
            multiplications == work and additions == n * c_out * (c_in - 1),
            f"{multiplications} multiplications and {additions} additions; N·C_in·C_out = {work}",
        ),
        agreement(
            f"the tree sum equals the GEMM within {TOLERANCE:g}",
            error <= TOLERANCE,
            f"max abs difference {error:.2e} (the sums are added in a different order)",
        ),
    ]
    rows = [
        ["work (multiply-adds)", multiplications, work],
        ["depth (reduction levels)", levels, depth_model],
        ["depth of a sequential sum", c_in - 1, c_in - 1],
    ]
    tables = [table("Work and depth", ["quantity", "simulated", "model"], rows)]
    return result(metrics, tables, [_depth_figure(c_in)], claims)


def _depth_figure(c_in_max: int) -> dict[str, Any]:
    sizes = sorted({1, 2, 3, c_in_max} | {2**k + d for k in range(1, 12) for d in (0, 1)})
    sizes = [size for size in sizes if size <= c_in_max]
    measured = [tree_sum(np.ones(size))[1] for size in sizes]
    return line_figure(
        "Depth of the sum over C_in",
        "C_in",
        "levels of additions",
        [
            Series("pairwise tree (simulated)", sizes, measured, "markers"),
            Series("⌈log2 C_in⌉", sizes, [math.ceil(math.log2(size)) for size in sizes], "lines"),
            Series(
                "sequential sum (C_in − 1)", sizes, [size - 1 for size in sizes], "lines", "dot"
            ),
        ],
        log_x=True,
        log_y=False,
    )


DEMO = Demo(
    slug="fc-gemm",
    title="Fully-connected layer as GEMM: work and reduction depth",
    version=2,  # 2: "simulated" for "measured"
    level="operators",
    techniques=("fully-connected",),
    works=(115, 184, 179),
    summary="A fully-connected layer computed as one GEMM and again with explicit products and a "
    "pairwise reduction tree, counting operations and tree levels.",
    look_for="The work grows as N·C_in·C_out but the depth only as ⌈log2 C_in⌉; a step appears "
    "each time C_in passes a power of two. The tree and the GEMM agree to rounding.",
    params=(
        Param("N", "int", 32, 1, 256, help="minibatch size"),
        Param("C_in", "int", 512, 1, 2048, help="input features (the reduction length)"),
        Param("C_out", "int", 128, 1, 512, help="output features"),
        SEED,
    ),
    run=run,
)
