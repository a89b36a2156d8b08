"""One convolution layer four ways: direct, im2col + GEMM, FFT and Winograd F(2x2, 3x3).

All four compute the same cross-correlation ("convolution" in DNN usage), stride 1, no padding,
in float64. Each implementation counts its own multiplications so that the counts can be set
against the Table 6 work formula.
"""

import math
from typing import Any

import numpy as np

from .base import SEED, Demo, Param
from .common import agreement, bar_figure, metric, result, table, timed

TOLERANCE = 1e-9  # max abs error allowed against the direct method (float64, inputs ~ N(0, 1))

# Lavin & Gray's F(2x2, 3x3) transforms: output tile m = 2, kernel r = 3, input tile alpha = 4.
WINOGRAD_BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], dtype=float)
WINOGRAD_G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], dtype=float)
WINOGRAD_AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], dtype=float)


def direct(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int]:
    """Loop over kernel offsets; each offset is one channel contraction over all pixels."""
    n, c_in, h, width = x.shape
    c_out, _, k_y, k_x = w.shape
    h_out, w_out = h - k_y + 1, width - k_x + 1
    y = np.zeros((n, c_out, h_out, w_out))
    multiplies = 0
    for dy in range(k_y):
        for dx in range(k_x):
            window = x[:, :, dy : dy + h_out, dx : dx + w_out]
            y += np.einsum("nchw,oc->nohw", window, w[:, :, dy, dx], optimize=True)
            multiplies += window.size * c_out
    return y, multiplies


def im2col(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int]:
    """Unroll input patches into a (C_in*K_y*K_x) x (N*H'*W') matrix, then one GEMM."""
    n, c_in, h, width = x.shape
    c_out, _, k_y, k_x = w.shape
    h_out, w_out = h - k_y + 1, width - k_x + 1
    patches = np.lib.stride_tricks.sliding_window_view(x, (k_y, k_x), axis=(2, 3))
    # patches: (N, C_in, H', W', K_y, K_x) -> rows (C_in, K_y, K_x), columns (N, H', W')
    columns = patches.transpose(1, 4, 5, 0, 2, 3).reshape(c_in * k_y * k_x, n * h_out * w_out)
    product = w.reshape(c_out, -1) @ columns
    multiplies = c_out * columns.size
    return product.reshape(c_out, n, h_out, w_out).transpose(1, 0, 2, 3), multiplies


def fft(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Pointwise products in the frequency domain; returns (y, complex products, 2-D transforms)."""
    n, c_in, h, width = x.shape
    c_out, _, k_y, k_x = w.shape
    # Cross-correlation is convolution with the flipped kernel; the valid part starts at K-1.
    x_hat = np.fft.rfft2(x, s=(h, width))
    w_hat = np.fft.rfft2(w[:, :, ::-1, ::-1], s=(h, width))
    y_hat = np.einsum("nchw,ochw->nohw", x_hat, w_hat, optimize=True)
    y = np.fft.irfft2(y_hat, s=(h, width))[:, :, k_y - 1 :, k_x - 1 :]
    products = x_hat.size * c_out
    transforms = c_out * c_in + n * c_in + n * c_out
    return y, products, transforms


def winograd(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int, int]:
    """F(2x2, 3x3); returns (y, elementwise multiplications, number of tiles P)."""
    n, c_in, h, width = x.shape
    h_out, w_out = h - 2, width - 2
    tiles_y, tiles_x = math.ceil(h_out / 2), math.ceil(w_out / 2)
    # Pad so that every 2x2 output tile has its full 4x4 input tile; the extra outputs are cut.
    padded = np.zeros((n, c_in, 2 * tiles_y + 2, 2 * tiles_x + 2))
    padded[:, :, :h, :width] = x
    tiles = np.lib.stride_tricks.sliding_window_view(padded, (4, 4), axis=(2, 3))[:, :, ::2, ::2]
    u = np.einsum("ij,ocjk,lk->ocil", WINOGRAD_G, w, WINOGRAD_G, optimize=True)
    v = np.einsum("ij,ncyxjk,lk->ncyxil", WINOGRAD_BT, tiles, WINOGRAD_BT, optimize=True)
    m = np.einsum("ocil,ncyxil->noyxil", u, v, optimize=True)
    y_tiles = np.einsum("ij,noyxjk,lk->noyxil", WINOGRAD_AT, m, WINOGRAD_AT, optimize=True)
    y = y_tiles.transpose(0, 1, 2, 4, 3, 5).reshape(n, -1, 2 * tiles_y, 2 * tiles_x)
    tile_count = n * tiles_y * tiles_x
    multiplies = v.size * u.shape[0]  # each transformed input tile meets every output channel
    return y[:, :, :h_out, :w_out], multiplies, tile_count


NOTES = (
    "Winograd F(2x2,3x3) runs only for K = 3 (stride 1). The Winograd work formula of Table 6 as "
    "transcribed is doubtful (FACTS §2.3), so its count is compared with Lavin & Gray's "
    "α²·C_in·C_out·P instead. FFT products are complex over the real FFT's half spectrum, "
    "H·(W/2+1) per plane, where Table 6 counts H·W."
)


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    n, c_in, c_out, size, k = (params[name] for name in ("N", "C_in", "C_out", "size", "K"))
    x = rng.standard_normal((n, c_in, size, size))
    w = rng.standard_normal((c_out, c_in, k, k))
    h_out = size - k + 1
    work = n * c_out * h_out * h_out * c_in * k * k  # Table 6, direct and im2col
    depth = math.ceil(math.log2(c_in)) + 2 * math.ceil(math.log2(k))
    transforms_model = c_out * c_in + n * c_in + n * c_out

    (y_ref, direct_count), direct_s = timed(lambda: direct(x, w))
    (y_im2col, im2col_count), im2col_s = timed(lambda: im2col(x, w))
    (y_fft, fft_count, transforms), fft_s = timed(lambda: fft(x, w))
    im2col_error, fft_error = _max_error(y_im2col, y_ref), _max_error(y_fft, y_ref)
    rows = [
        ["direct", direct_count, work, depth, 0.0],
        ["im2col + GEMM", im2col_count, work, depth, im2col_error],
        ["FFT (complex products)", fft_count, n * c_in * c_out * size * size, None, fft_error],
    ]
    metrics = [
        metric(
            "direct multiplications", direct_count, "", work, "Table 6 (S2): N·C_out·H'·W'·C_in·K²"
        ),
        metric(
            "im2col multiplications", im2col_count, "", work, "Table 6 (S2): same work as direct"
        ),
        metric(
            "FFT 2-D transforms", transforms, "", transforms_model, "C_out·C_in + N·C_in + N·C_out"
        ),
        metric("depth (Table 6, direct and im2col)", depth, "", None, "⌈log2 C_in⌉ + 2⌈log2 K⌉"),
        metric("average parallelism W/D", work / max(depth, 1)),
        metric("direct time", direct_s, "s"),
        metric("im2col time", im2col_s, "s"),
        metric("FFT time", fft_s, "s"),
    ]
    claims = [
        _equal_claim("im2col + GEMM", im2col_error),
        _equal_claim("FFT", fft_error),
        agreement(
            "direct and im2col multiplications equal the Table 6 work formula",
            direct_count == work == im2col_count,
            f"counted {direct_count} and {im2col_count}; formula {work}",
        ),
        agreement(
            "FFT takes C_out·C_in + N·C_in + N·C_out transforms (Table 6)",
            transforms == transforms_model,
            f"{transforms} transforms: weights and inputs forward, outputs inverse",
        ),
    ]
    if k == 3:
        _add_winograd(x, w, y_ref, direct_count, rows, metrics, claims)
    figure = bar_figure(
        "Multiplications counted per method",
        "method",
        "multiplications",
        [row[0] for row in rows],
        [("counted", [row[1] for row in rows])],
        log_y=True,
    )
    columns = ["method", "multiplications counted", "model", "depth (Table 6)", "max abs error"]
    tables = [table("Convolution methods", columns, rows), table("Notes", ["note"], [[NOTES]])]
    return result(metrics, tables, [figure], claims)


def _add_winograd(
    x: np.ndarray,
    w: np.ndarray,
    y_ref: np.ndarray,
    direct_count: int,
    rows: list[list[Any]],
    metrics: list[dict[str, Any]],
    claims: list[dict[str, Any]],
) -> None:
    (y, count, tiles), seconds = timed(lambda: winograd(x, w))
    error = _max_error(y, y_ref)
    model = 16 * x.shape[1] * w.shape[0] * tiles
    rows.append(["Winograd F(2x2,3x3)", count, model, None, error])
    metrics.append(metric("Winograd multiplications", count, "", model, "α²·C_in·C_out·P, α = 4"))
    metrics.append(metric("Winograd time", seconds, "s"))
    claims.append(_equal_claim("Winograd F(2x2,3x3)", error))
    claims.append(
        agreement(
            "Winograd multiplications equal Lavin & Gray's α²·C_in·C_out·P",
            count == model,
            f"{count} counted, {direct_count / count:.2f}x fewer than direct (2.25x for even H')",
        )
    )


def _equal_claim(method: str, error: float) -> dict[str, Any]:
    return agreement(
        f"{method} output equals direct within {TOLERANCE:g}",
        error <= TOLERANCE,
        f"max abs error {error:.2e}",
    )


def _max_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)))


DEMO = Demo(
    slug="convolution-algorithms",
    title="Convolution: direct, im2col, FFT and Winograd",
    version=1,
    level="operators",
    techniques=("conv-direct", "conv-im2col", "conv-fft", "conv-winograd"),
    works=(31, 166, 232, 140, 241),
    summary="One convolution layer computed four ways; each method counts its multiplications "
    "and is timed, and its output is compared with the direct method.",
    look_for="Direct and im2col do exactly the Table 6 work yet run at different speeds; FFT "
    "gains as K grows; Winograd (K = 3 only) needs 2.25x fewer multiplications.",
    params=(
        Param("N", "int", 2, 1, 8, help="minibatch size"),
        Param("C_in", "int", 8, 1, 32, help="input channels"),
        Param("C_out", "int", 8, 1, 32, help="output channels"),
        Param("size", "int", 16, 8, 64, help="input height and width H = W", unit="px"),
        Param("K", "int", 3, 1, 7, help="kernel height and width (Winograd runs only for 3)"),
        SEED,
    ),
    run=run,
)
