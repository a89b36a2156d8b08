"""Tensor parallelism (after the survey, Megatron-LM): transformer layers split over t simulated
devices, each matrix pair column-parallel then row-parallel, the partial sums allreduced.

Each layer has an attention block (the heads split over the devices: Q, K, V column-parallel,
the output projection row-parallel) and an MLP block (the first matrix column-parallel, the
second row-parallel), each with a residual connection. Forward, each block ends in one allreduce
of b·s·h values; backward, each block's input gradient is one more: 4·b·s·h values per layer per
micro-batch, the catalogue's cost model (Shoeybi et al. 2019; Narayanan et al. 2021). Every
allreduce runs as a ring (reduce-scatter, then allgather) through `Links`, which counts the bytes
each device sends; the split layers are checked against the same layers on one device. Layer
norms and dropout are left out and tanh stands in for GeLU: elementwise, they split the same way.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .base import SEED, Demo, Param
from .common import Series, agreement, line_figure, metric, result, table

TOLERANCE = 1e-10


@dataclass
class Links:
    """The simulated devices' links: bytes sent by each device, values put through allreduces."""

    gamma: int
    devices: int
    sent: np.ndarray = field(init=False)
    allreduced: int = 0

    def __post_init__(self) -> None:
        self.sent = np.zeros(self.devices, dtype=np.int64)

    def allreduce(self, parts: list[np.ndarray]) -> np.ndarray:
        """The sum of every device's array, by a ring: t − 1 reduce-scatter steps, then t − 1
        allgather steps, each device sending one chunk per step to the next."""
        t = self.devices
        if t == 1:
            return parts[0]
        self.allreduced += parts[0].size
        chunks = [np.array_split(part.ravel().copy(), t) for part in parts]
        for step in range(t - 1):  # reduce-scatter: device d ends with chunk d + 1 summed
            for device in range(t):
                index = (device - step) % t
                self.sent[device] += chunks[device][index].size * self.gamma
                target = (device + 1) % t
                chunks[target][index] = chunks[target][index] + chunks[device][index]
        for step in range(t - 1):  # allgather: the summed chunks go round once more
            for device in range(t):
                index = (device + 1 - step) % t
                self.sent[device] += chunks[device][index].size * self.gamma
                chunks[(device + 1) % t][index] = chunks[device][index]
        return np.concatenate(chunks[0]).reshape(parts[0].shape)


@dataclass
class Layer:
    """One layer's weights: attention (Wq, Wk, Wv, Wo) and MLP (W1, W2)."""

    wq: np.ndarray
    wk: np.ndarray
    wv: np.ndarray
    wo: np.ndarray
    w1: np.ndarray
    w2: np.ndarray

    def shard(self, heads: slice, ffn: slice) -> "Layer":
        """A device's share: columns of Wq, Wk, Wv and W1, rows of Wo and W2."""
        return Layer(
            self.wq[:, heads], self.wk[:, heads], self.wv[:, heads], self.wo[heads, :],
            self.w1[:, ffn], self.w2[ffn, :],
        )  # fmt: skip


def make_layers(rng: np.random.Generator, count: int, h: int) -> list[Layer]:
    def matrix(rows: int, columns: int) -> np.ndarray:
        return rng.standard_normal((rows, columns)) / np.sqrt(rows)

    return [
        Layer(matrix(h, h), matrix(h, h), matrix(h, h), matrix(h, h), matrix(h, 4 * h),
              matrix(4 * h, h))
        for _ in range(count)
    ]  # fmt: skip


def _softmax(scores: np.ndarray) -> np.ndarray:
    scores = scores - scores.max(axis=-1, keepdims=True)
    exp = np.exp(scores)
    return exp / exp.sum(axis=-1, keepdims=True)


def _heads(x: np.ndarray, d: int) -> np.ndarray:
    """(b, s, n·d) -> (b, n, s, d)."""
    b, s, width = x.shape
    return x.reshape(b, s, width // d, d).transpose(0, 2, 1, 3)


def _merge(x: np.ndarray) -> np.ndarray:
    """(b, n, s, d) -> (b, s, n·d)."""
    b, n, s, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, n * d)


def attention_forward(x: np.ndarray, w: Layer, d: int) -> tuple[np.ndarray, dict]:
    """A device's heads: its partial output projection and what the backward pass needs."""
    q, k, v = (_heads(x @ m, d) for m in (w.wq, w.wk, w.wv))
    probabilities = _softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(d))
    out = _merge(probabilities @ v)
    return out @ w.wo, {"x": x, "q": q, "k": k, "v": v, "p": probabilities, "out": out}


def attention_backward(grad: np.ndarray, w: Layer, d: int, saved: dict):
    """The device's partial input gradient and its weight gradients (Wq, Wk, Wv, Wo)."""
    x, q, k, v, p = (saved[name] for name in ("x", "q", "k", "v", "p"))
    d_wo = np.einsum("bsi,bsj->ij", saved["out"], grad)
    d_out = _heads(grad @ w.wo.T, d)
    d_p = d_out @ v.transpose(0, 1, 3, 2)
    d_v = p.transpose(0, 1, 3, 2) @ d_out
    d_scores = p * (d_p - (d_p * p).sum(axis=-1, keepdims=True)) / np.sqrt(d)
    d_q, d_k = d_scores @ k, d_scores.transpose(0, 1, 3, 2) @ q
    grads = [np.einsum("bsi,bsj->ij", x, _merge(g)) for g in (d_q, d_k, d_v)]
    partial = sum(_merge(g) @ m.T for g, m in zip((d_q, d_k, d_v), (w.wq, w.wk, w.wv), strict=True))
    return partial, [*grads, d_wo]


def mlp_forward(x: np.ndarray, w: Layer) -> tuple[np.ndarray, dict]:
    hidden = np.tanh(x @ w.w1)
    return hidden @ w.w2, {"x": x, "hidden": hidden}


def mlp_backward(grad: np.ndarray, w: Layer, saved: dict):
    x, hidden = saved["x"], saved["hidden"]
    d_w2 = np.einsum("bsi,bsj->ij", hidden, grad)
    d_pre = (grad @ w.w2.T) * (1 - hidden**2)
    return d_pre @ w.w1.T, [np.einsum("bsi,bsj->ij", x, d_pre), d_w2]


def train_step(shards: list[list[Layer]], x, target, d: int, links: Links):
    """One forward and backward pass over the layers, each device holding `shards[device]`:
    the output, the input gradient and every device's weight gradients."""
    devices, saved = range(links.devices), []
    for layer in range(len(shards[0])):
        attention = [attention_forward(x, shards[i][layer], d) for i in devices]
        x = x + links.allreduce([partial for partial, _ in attention])
        mlp = [mlp_forward(x, shards[i][layer]) for i in devices]
        x = x + links.allreduce([partial for partial, _ in mlp])
        saved.append(([s for _, s in attention], [s for _, s in mlp]))
    out, grad = x, (x - target) / x.shape[0]
    weight_grads = [[None] * len(saved) for _ in devices]
    for layer in reversed(range(len(saved))):
        attention, mlp = saved[layer]
        back = [mlp_backward(grad, shards[i][layer], mlp[i]) for i in devices]
        grad = grad + links.allreduce([partial for partial, _ in back])
        ahead = [attention_backward(grad, shards[i][layer], d, attention[i]) for i in devices]
        grad = grad + links.allreduce([partial for partial, _ in ahead])
        for i in devices:
            weight_grads[i][layer] = ahead[i][1] + back[i][1]  # Wq, Wk, Wv, Wo, W1, W2
    return out, grad, weight_grads


def _gathered(weight_grads, layer: int) -> list[np.ndarray]:
    """A layer's weight gradients put back together from the devices' shards."""
    parts = [grads[layer] for grads in weight_grads]
    axes = (1, 1, 1, 0, 1, 0)  # column-parallel shards join by columns, row-parallel by rows
    return [np.concatenate([p[k] for p in parts], axis=axes[k]) for k in range(6)]


def _loss(layers: list[Layer], x, target, d: int) -> float:
    out, _, _ = train_step([layers], x, target, d, Links(1, 1))
    return 0.5 * float(np.sum((out - target) ** 2)) / x.shape[0]


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    t, per_device, d = params["t"], params["heads_per_device"], params["head_dim"]
    b, s, count, gamma = params["b"], params["s"], params["layers"], params["gamma"]
    h = t * per_device * d
    layers = make_layers(rng, count, h)
    x, target = rng.standard_normal((b, s, h)), rng.standard_normal((b, s, h))
    heads = [slice(i * per_device * d, (i + 1) * per_device * d) for i in range(t)]
    ffn = [slice(i * 4 * h // t, (i + 1) * 4 * h // t) for i in range(t)]
    shards = [[layer.shard(heads[i], ffn[i]) for layer in layers] for i in range(t)]
    links = Links(gamma, t)
    out, grad, weight_grads = train_step(shards, x, target, d, links)
    ref_out, ref_grad, ref_weights = train_step([layers], x, target, d, Links(gamma, 1))
    differences = {
        "output": _difference(out, ref_out),
        "input gradient": _difference(grad, ref_grad),
        "weight gradients": max(
            _difference(a, r)
            for layer in range(count)
            for a, r in zip(_gathered(weight_grads, layer), ref_weights[0][layer], strict=True)
        ),
    }
    check = _finite_difference(layers, x, target, d, ref_weights[0], rng)
    return _report(params, h, links, differences, check)


def _difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)))


def _finite_difference(layers, x, target, d: int, grads, rng) -> float:
    """Relative error of the backward pass against a central difference along a random
    direction of the first layer's Wq: the one-device layers compute the true gradient."""
    direction = rng.standard_normal(layers[0].wq.shape)
    epsilon = 1e-6
    moved = []
    for sign in (1, -1):
        changed = [Layer(**vars(layer)) for layer in layers]
        changed[0].wq = layers[0].wq + sign * epsilon * direction
        moved.append(_loss(changed, x, target, d))
    numeric = (moved[0] - moved[1]) / (2 * epsilon)
    analytic = float(np.sum(grads[0][0] * direction))
    return abs(numeric - analytic) / max(abs(analytic), 1e-12)


def _report(params, h: int, links: Links, differences: dict, check: float) -> dict[str, Any]:
    t, b, s, count, gamma = (params[k] for k in ("t", "b", "s", "layers", "gamma"))
    per_layer = 4 * b * s * h if t > 1 else 0
    measured_per_layer = links.allreduced // count
    ring = 4 * count * 2 * (t - 1) * (b * s * h // t) * gamma  # chunks divide: h is t·n·d
    metrics = [
        metric(
            "values allreduced per layer per micro-batch",
            measured_per_layer,
            "values",
            per_layer,
            "catalogue: 4·b·s·h (forward and backward; none with t = 1)",
        ),
        metric(
            "bytes each device sends per step",
            int(links.sent.max()),
            "B",
            ring,
            "ring allreduce: 4 · layers · 2(t−1) · b·s·h/t · γ",
        ),  # fmt: skip
        *(
            metric(f"max difference from one device: {name}", value)
            for name, value in differences.items()
        ),  # fmt: skip
        metric("backward pass against a finite difference (relative)", check),
    ]
    claims = [
        agreement(
            "the values allreduced equal the catalogue's 4·b·s·h per layer",
            measured_per_layer == per_layer,
            f"{measured_per_layer} counted, {per_layer} model (b = {b}, s = {s}, h = {h})",
        ),
        agreement(
            "every device sends the ring allreduce's 2(t−1)/t of each allreduce",
            bool(np.all(links.sent == ring)),
            f"{int(links.sent.min())}–{int(links.sent.max())} B counted, {ring} B model",
        ),
        agreement(
            f"the split layers compute what one device computes (within {TOLERANCE:g})",
            max(differences.values()) <= TOLERANCE,
            ", ".join(f"{name} {value:.1e}" for name, value in differences.items()),
        ),
        agreement(
            "the backward pass is the loss's gradient (finite difference, within 1e-5)",
            check <= 1e-5,
            f"relative error {check:.1e}",
        ),
    ]
    return result(metrics, [_device_table(params, h, links)], [_figure(params, h, links)], claims)


def _device_table(params, h: int, links: Links) -> dict[str, Any]:
    t, per_device = params["t"], params["heads_per_device"]
    rows = [[i, per_device, 4 * h // t, int(links.sent[i])] for i in range(t)]
    columns = ["device", "attention heads held", "MLP columns held", "bytes sent"]
    return table("Devices", columns, rows)


def _figure(params, h: int, links: Links) -> dict[str, Any]:
    b, s, count, gamma, t = (params[k] for k in ("b", "s", "layers", "gamma", "t"))
    devices = list(range(1, 9))
    model = [4 * count * 2 * (q - 1) / q * b * s * h * gamma for q in devices]
    return line_figure(
        "Bytes each device sends per step (this b, s, h)",
        "tensor-parallel devices t",
        "bytes",
        [
            Series("ring allreduce of 4·b·s·h per layer (model)", devices, model, "lines", "dash"),
            Series("simulated at this t", [t], [int(links.sent.max())], "markers"),
        ],
    )


DEMO = Demo(
    slug="tensor-parallel",
    title="Tensor parallelism: a transformer layer's matrices split over devices",
    version=1,
    level="networks",
    techniques=("tensor-parallelism",),
    works=(),  # after the survey: Megatron-LM (Shoeybi et al. 2019), not in its bibliography
    summary="Transformer layers (attention and MLP) run one training step on t simulated devices, "
    "each matrix pair split column-parallel then row-parallel as Megatron-LM does; every "
    "allreduce runs as a ring and its bytes are counted.",
    look_for="Four allreduces of b·s·h values per layer, two forward and two backward, whatever "
    "t: each device sends 2(t−1)/t of them, so the traffic per device barely grows past t = 4. "
    "The split layers give exactly the one-device output and gradients.",
    params=(
        Param("t", "int", 4, 1, 8, help="tensor-parallel devices"),
        Param("heads_per_device", "int", 1, 1, 2, help="attention heads on each device"),
        Param("head_dim", "int", 8, 2, 16, help="values per attention head (h = t · heads · d)"),
        Param("b", "int", 2, 1, 4, help="micro-batch (sequences)"),
        Param("s", "int", 16, 2, 64, help="sequence length (tokens)"),
        Param("layers", "int", 2, 1, 2, help="transformer layers"),
        Param("gamma", "int", 2, 1, 8, help="bytes per value γ", unit="B"),
        SEED,
    ),
    run=run,
)
