"""Gossip averaging: nodes of a graph reach the average of their values by local exchanges.

Synchronous neighbour averaging applies a symmetric, doubly stochastic mixing matrix W
(Metropolis weights) every round; its consensus error obeys ‖e_t‖ ≤ λ^t‖e_0‖ with λ the second
largest eigenvalue modulus (1 − λ is the spectral gap). Randomized pairwise gossip (Boyd et al.
[24]) averages one random edge per tick; E‖e‖² shrinks at least by λ2(E[W]) per tick.
"""

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .base import SEED, Demo, Param, tracked
from .common import Series, agreement, line_figure, metric, result, table

if TYPE_CHECKING:
    from networkx import Graph

TARGET = 1e-3  # consensus error used for "rounds to converge"
FLOOR = 1e-13  # below this the error is rounding noise
MAX_ROUNDS = 5000  # cap on the rounds simulated for the graph-family table


def make_graph(kind: str, n: int, degree: int, rng: np.random.Generator) -> "Graph":
    # Imported here: networkx takes a good part of a second to import, and every demo run
    # starts a fresh worker process that would pay for it even when it runs another demo.
    import networkx as nx

    if kind == "ring":
        return nx.cycle_graph(n)
    if kind == "torus":
        side = max(3, round(math.sqrt(n)))
        return nx.convert_node_labels_to_integers(nx.grid_2d_graph(side, side, periodic=True))
    n += (n * degree) % 2  # a d-regular graph on n nodes needs n·d even
    for _ in range(20):
        graph = nx.random_regular_graph(degree, n, seed=int(rng.integers(2**31)))
        if nx.is_connected(graph):
            return graph
    raise ValueError("could not draw a connected random regular graph")  # pragma: no cover


class Mixing:
    """Metropolis weights: W_ij = 1/(1 + max(d_i, d_j)) on edges; rows sum to 1, W symmetric."""

    def __init__(self, graph: "Graph") -> None:
        self.n = graph.number_of_nodes()
        edges = np.array(graph.edges())
        self.i, self.j = edges[:, 0], edges[:, 1]
        degrees = np.array([graph.degree[node] for node in range(self.n)])
        self.weights = 1 / (1 + np.maximum(degrees[self.i], degrees[self.j]))
        incident = np.bincount(self.i, self.weights, self.n) + np.bincount(
            self.j, self.weights, self.n
        )
        self.self_weights = 1 - incident

    def apply(self, x: np.ndarray) -> np.ndarray:
        """W @ x in O(edges), so that long runs on large rings stay cheap."""
        return (
            self.self_weights * x
            + np.bincount(self.i, self.weights * x[self.j], self.n)
            + np.bincount(self.j, self.weights * x[self.i], self.n)
        )

    def dense(self) -> np.ndarray:
        w = np.diag(self.self_weights)
        w[self.i, self.j] = w[self.j, self.i] = self.weights
        return w


def second_eigenvalue_modulus(matrix: np.ndarray) -> float:
    moduli = np.sort(np.abs(np.linalg.eigvalsh(matrix)))
    return float(moduli[-2])


def pairwise_expected_matrix(mixing: Mixing) -> np.ndarray:
    """E[W] for one tick of pairwise gossip on a uniformly random edge: I − L/(2|E|)."""
    laplacian = np.zeros((mixing.n, mixing.n))
    laplacian[mixing.i, mixing.j] = laplacian[mixing.j, mixing.i] = -1.0
    laplacian[np.diag_indices(mixing.n)] = -laplacian.sum(axis=1)
    return np.eye(mixing.n) - laplacian / (2 * len(mixing.i))


def synchronous_errors(mixing: Mixing, x: np.ndarray, rounds: int) -> list[float]:
    deviation = x - x.mean()
    start, errors = np.linalg.norm(deviation), [1.0]
    for _ in range(rounds):
        deviation = mixing.apply(deviation)
        errors.append(float(np.linalg.norm(deviation) / start))
    return errors


def pairwise_errors(
    graph: "Graph", trials: int, rounds: int, rng: np.random.Generator
) -> list[float]:
    """Root mean square relative error over trials, once per round of n/2 ticks."""
    edges = np.array(graph.edges())
    n, rows = graph.number_of_nodes(), np.arange(trials)
    x = rng.standard_normal((trials, n))
    x -= x.mean(axis=1, keepdims=True)  # averaging preserves the mean, so track deviations
    start, errors = np.sum(x**2, axis=1), [1.0]
    for _ in tracked(range(rounds), "pairwise round"):
        chosen = edges[rng.integers(len(edges), size=(n // 2, trials))]  # (ticks, trials, 2)
        for i, j in zip(chosen[:, :, 0], chosen[:, :, 1], strict=True):
            x[rows, i] = x[rows, j] = (x[rows, i] + x[rows, j]) / 2
        errors.append(float(np.sqrt(np.mean(np.sum(x**2, axis=1) / start))))
    return errors


def measured_rate(errors: list[float]) -> float:
    """Geometric mean per-round decay over the second half of the rounds above the float floor."""
    usable = [e for e in errors if e > FLOOR]
    half = len(usable) // 2
    if len(usable) - 1 - half < 1:
        return 0.0
    return (usable[-1] / usable[half]) ** (1 / (len(usable) - 1 - half))


@dataclass(frozen=True)
class Decay:
    """Measured consensus errors per round and their spectral bounds."""

    nodes: int
    slem: float  # λ of the synchronous mixing matrix W
    pairwise_lambda: float  # λ2(E[W]) of one pairwise tick
    synchronous: list[float]
    synchronous_bound: list[float]
    pairwise: list[float]
    pairwise_bound: list[float]


def measure(graph: "Graph", rounds: int, trials: int, rng: np.random.Generator) -> Decay:
    n = graph.number_of_nodes()
    mixing = Mixing(graph)
    slem = second_eigenvalue_modulus(mixing.dense())
    pairwise_lambda = second_eigenvalue_modulus(pairwise_expected_matrix(mixing))
    return Decay(
        nodes=n,
        slem=slem,
        pairwise_lambda=pairwise_lambda,
        synchronous=synchronous_errors(mixing, rng.standard_normal(n), rounds),
        synchronous_bound=[slem**t for t in range(rounds + 1)],
        pairwise=pairwise_errors(graph, trials, rounds, rng),
        # E‖e‖² shrinks by λ2(E[W]) per tick and a round has n/2 ticks: rms bound λ^(t·n/4).
        pairwise_bound=[math.sqrt(pairwise_lambda ** (t * (n // 2))) for t in range(rounds + 1)],
    )


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    graph = make_graph(params["graph"], params["n"], params["degree"], rng)
    decay = measure(graph, params["rounds"], params["trials"], rng)
    figure = _figure(f"Consensus error on a {params['graph']} of {decay.nodes} nodes", decay)
    tables = [_comparison_table(params, rng)]
    return result(_metrics(decay), tables, [figure], _claims(decay, params["trials"]))


def _metrics(decay: Decay) -> list[dict[str, Any]]:
    return [
        metric(
            "nodes",
            decay.nodes,
            "",
            None,
            "a torus has a square number of nodes; a d-regular graph needs n·d even",
        ),
        metric(
            "spectral gap 1 − λ", 1 - decay.slem, "", None, "λ: second largest |eigenvalue| of W"
        ),
        metric(
            "simulated decay per round (synchronous)",
            measured_rate(decay.synchronous),
            "",
            decay.slem,
            "asymptotically λ",
        ),
        metric(
            "pairwise: bound on E‖e‖² decay per tick", decay.pairwise_lambda, "", None, "λ2(E[W])"
        ),
        metric("final error, synchronous", decay.synchronous[-1]),
        metric("final error, pairwise (rms over trials)", decay.pairwise[-1]),
    ]


def _claims(decay: Decay, trials: int) -> list[dict[str, Any]]:
    slack = _largest_ratio(decay.synchronous, decay.synchronous_bound)
    pairwise_slack = _largest_ratio(decay.pairwise, decay.pairwise_bound)
    rate, slem = measured_rate(decay.synchronous), decay.slem
    return [
        agreement(
            "the synchronous consensus error never exceeds λ^t (spectral bound)",
            slack <= 1 + 1e-9,
            f"largest error / bound = {slack:.6f}",
        ),
        agreement(
            "pairwise gossip stays below the bound λ2(E[W])^(t·n/4) on its rms error",
            pairwise_slack <= 1 + 1e-9,
            f"largest error / bound = {pairwise_slack:.4f} over {trials} trials "
            "(the bound holds in expectation)",
        ),
        agreement(
            "the simulated per-round decay approaches λ from below (within 0.02)",
            slem - 0.02 <= rate <= slem + 1e-9,
            f"simulated {rate:.5f}, λ = {slem:.5f}",
        ),
    ]


def _figure(title: str, decay: Decay) -> dict[str, Any]:
    rounds = list(range(len(decay.synchronous)))
    return line_figure(
        title,
        "round (pairwise: n/2 random edges per round)",
        "‖x − mean‖ / ‖x₀ − mean‖",
        [
            Series("synchronous (simulated)", rounds, _floored(decay.synchronous)),
            Series("λ^t", rounds, decay.synchronous_bound, "lines", "dash"),
            Series("pairwise gossip (rms over trials)", rounds, _floored(decay.pairwise)),
            Series("pairwise bound λ2(E[W])^(t·n/4)", rounds, decay.pairwise_bound, "lines", "dot"),
        ],
        log_y=True,
    )


def _comparison_table(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Spectral gap and rounds to TARGET for every graph family at this size."""
    rows = []
    for kind in ("ring", "torus", "random-regular"):
        graph = make_graph(kind, params["n"], params["degree"], rng)
        mixing = Mixing(graph)
        slem = second_eigenvalue_modulus(mixing.dense())
        predicted = math.ceil(math.log(TARGET) / math.log(slem)) if slem > 0 else 1
        errors = synchronous_errors(
            mixing, rng.standard_normal(mixing.n), min(predicted, MAX_ROUNDS)
        )
        reached = next((t for t, e in enumerate(errors) if e <= TARGET), None)
        rows.append([kind, graph.number_of_nodes(), 1 - slem, predicted, reached])
    columns = [
        "graph",
        "nodes",
        "spectral gap",
        f"rounds to {TARGET:g} (bound)",
        f"simulated (empty: not reached in {MAX_ROUNDS})",
    ]
    return table("Graph families, synchronous averaging", columns, rows)


def _largest_ratio(errors: list[float], bound: list[float]) -> float:
    return max(e / b for e, b in zip(errors, bound, strict=True) if b > FLOOR)


def _floored(errors: list[float]) -> list[float | None]:
    return [e if e > FLOOR else None for e in errors]


DEMO = Demo(
    slug="gossip-averaging",
    title="Gossip averaging and the spectral gap",
    version=2,  # 2: "simulated" for "measured"
    level="distributed",
    techniques=("gossip-averaging",),
    works=(24, 54, 100, 121, 201),
    summary="Nodes of a ring, a 2-D torus or a random regular graph average their values with "
    "their neighbours, synchronously or by random pairwise exchanges; the decay of the consensus "
    "error is set against the spectral gap of the mixing matrix.",
    look_for="The error falls like λ^t: a ring's gap shrinks as 1/n², a torus's as 1/n, an "
    "expander's (random regular graph) stays constant, so well-connected graphs agree in a few "
    "rounds whatever their size.",
    params=(
        Param(
            "graph",
            "choice",
            "torus",
            choices=("ring", "torus", "random-regular"),
            help="communication graph",
        ),
        Param("n", "int", 64, 9, 256, help="nodes"),
        Param("degree", "int", 4, 3, 16, help="degree of the random regular graph"),
        Param("rounds", "int", 100, 1, 300, help="averaging rounds"),
        Param("trials", "int", 10, 1, 50, help="independent runs of pairwise gossip"),
        SEED,
    ),
    run=run,
)
