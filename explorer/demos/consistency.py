"""Model consistency: synchronous, stale-synchronous (SSP [98]) and asynchronous SGD [205].

P simulated workers own shards of a least-squares problem. Every (worker, iteration) has one
compute time, drawn once and shared by all modes, so the modes differ only in how they wait:
synchronous rounds wait for the slowest worker; SSP lets a worker run at most s iterations
ahead of the slowest; asynchronous workers never wait and apply gradients computed on stale
weights. A separate sweep runs gradient descent with a fixed delay τ.
"""

import heapq
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .base import SEED, Demo, Param, tracked
from .common import Series, agreement, bar_figure, line_figure, metric, result, table

SAMPLES, FEATURES = 2000, 20
DIVERGED = 1e6  # a loss this many times the initial one counts as diverged


@dataclass(frozen=True)
class Problem:
    x: np.ndarray
    y: np.ndarray
    shards: list[np.ndarray]
    lr: float  # absolute learning rate: the lr parameter divided by the largest curvature L

    def loss(self, w: np.ndarray) -> float:
        return float(np.mean((self.x @ w - self.y) ** 2) / 2)

    def gradient(self, w: np.ndarray) -> np.ndarray:
        return self.x.T @ (self.x @ w - self.y) / len(self.y)

    def shard_gradient(self, worker: int, w: np.ndarray) -> np.ndarray:
        """The shard's share of the full gradient: the shares sum to the full gradient."""
        rows = self.shards[worker]
        return self.x[rows].T @ (self.x[rows] @ w - self.y[rows]) / len(self.y)


@dataclass
class Trace:
    times: list[float] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    staleness: list[int] = field(default_factory=list)
    max_clock_gap: int = 0
    w: np.ndarray | None = None


def make_problem(params: dict[str, Any], rng: np.random.Generator) -> Problem:
    x = rng.standard_normal((SAMPLES, FEATURES)) * np.linspace(0.2, 1.0, FEATURES)
    y = x @ rng.standard_normal(FEATURES) + 0.5 * rng.standard_normal(SAMPLES)
    curvature = float(np.linalg.eigvalsh(x.T @ x / SAMPLES).max())
    shards = np.array_split(rng.permutation(SAMPLES), params["P"])
    return Problem(x, y, shards, params["lr"] / curvature)


def synchronous(problem: Problem, durations: np.ndarray) -> Trace:
    """Rounds: everybody computes on the same weights; the summed gradient is applied."""
    p, iterations = durations.shape
    w, trace, now = np.zeros(FEATURES), Trace(), 0.0
    for k in range(iterations):
        w = w - problem.lr * sum(problem.shard_gradient(i, w) for i in range(p))
        now += durations[:, k].max()
        trace.times.append(now)
        trace.losses.append(problem.loss(w))
        trace.staleness += [0] * p
    trace.w = w
    return trace


def stale_synchronous(problem: Problem, durations: np.ndarray, bound: int | None) -> Trace:
    """Each worker applies its own update when it finishes; bound=None is fully asynchronous."""
    p, iterations = durations.shape
    w, version, trace = np.zeros(FEATURES), 0, Trace()
    clock = np.zeros(p, dtype=int)  # iterations completed
    running: list[tuple[float, int, int, np.ndarray]] = []  # (finish, worker, version, weights)
    waiting: list[int] = []

    def start(worker: int, now: float) -> None:
        gap = clock[worker] - clock.min()
        if bound is not None and gap > bound:
            waiting.append(worker)
            return
        trace.max_clock_gap = max(trace.max_clock_gap, int(gap))
        finish = now + durations[worker, clock[worker]]
        heapq.heappush(running, (finish, worker, version, w.copy()))

    for worker in range(p):
        start(worker, 0.0)
    while running:
        now, worker, read_version, read_w = heapq.heappop(running)
        w = w - problem.lr * problem.shard_gradient(worker, read_w)
        trace.staleness.append(version - read_version)
        version += 1
        clock[worker] += 1
        if version % p == 0:
            trace.times.append(now)
            trace.losses.append(problem.loss(w))
        if clock[worker] == iterations:
            clock[worker] = np.iinfo(int).max // 2  # a finished worker never holds others back
        blocked, waiting[:] = list(waiting), []
        for candidate in [worker, *blocked]:
            if clock[candidate] < iterations:
                start(candidate, now)
    trace.w = w
    return trace


def delayed_descent(problem: Problem, iterations: int, delay: int) -> float:
    """Final loss of gradient descent whose gradient is evaluated `delay` steps in the past."""
    history = [np.zeros(FEATURES)]
    initial = problem.loss(history[0])
    for _ in range(iterations):
        stale = history[max(0, len(history) - 1 - delay)]
        history.append(history[-1] - problem.lr * problem.gradient(stale))
        history = history[-(delay + 1) :]
        if not problem.loss(history[-1]) < DIVERGED * initial:
            return float("inf")
    return problem.loss(history[-1])


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    problem = make_problem(params, rng)
    p, iterations, bound = params["P"], params["iterations"], params["s"]
    speeds = 1 + params["heterogeneity"] * np.linspace(0, 1, p)[:, None]  # persistent stragglers
    durations = speeds * (1 + 0.5 * rng.exponential(size=(p, iterations)))
    traces = {
        "synchronous": synchronous(problem, durations),
        f"stale-synchronous (s = {bound})": stale_synchronous(problem, durations, bound),
        "asynchronous": stale_synchronous(problem, durations, None),
    }
    descent = _plain_descent(problem, iterations)
    sync_error = float(np.max(np.abs(traces["synchronous"].w - descent)))
    ssp = traces[f"stale-synchronous (s = {bound})"]
    times = [trace.times[-1] for trace in traces.values()]
    claims = [
        agreement(
            "synchronous training is full-batch gradient descent (within 1e-10)",
            sync_error <= 1e-10,
            f"max weight difference {sync_error:.1e}",
        ),
        agreement(
            f"SSP never lets a worker get more than s = {bound} iterations ahead",
            ssp.max_clock_gap <= bound,
            f"largest lead simulated: {ssp.max_clock_gap}",
        ),
        agreement(
            "relaxing consistency only removes waiting: time async ≤ SSP ≤ sync",
            times[2] <= times[1] + 1e-9 and times[1] <= times[0] + 1e-9,
            "finish times " + ", ".join(f"{t:.1f}" for t in times) + " (sync, SSP, async)",
        ),
    ]
    delays = sorted(
        {0, 1, 2, 4, 8, 16, 32, params["max_delay"]} & set(range(params["max_delay"] + 1))
    )
    sweep = [
        delayed_descent(problem, iterations, delay) for delay in tracked(delays, "sweep point")
    ]
    return result(
        _metrics(traces),
        [_table(traces)],
        _figures(traces, delays, sweep),
        claims,
    )


def _plain_descent(problem: Problem, iterations: int) -> np.ndarray:
    w = np.zeros(FEATURES)
    for _ in range(iterations):
        w = w - problem.lr * problem.gradient(w)
    return w


def _metrics(traces: dict[str, Trace]) -> list[dict[str, Any]]:
    metrics = []
    for name, trace in traces.items():
        metrics.append(metric(f"final loss, {name}", trace.losses[-1]))
        metrics.append(metric(f"finish time, {name}", trace.times[-1], "time units"))
        metrics.append(
            metric(f"mean staleness, {name}", float(np.mean(trace.staleness)), "updates")
        )
    return metrics


def _table(traces: dict[str, Trace]) -> dict[str, Any]:
    rows = [
        [
            name,
            trace.times[-1],
            trace.losses[-1],
            float(np.mean(trace.staleness)),
            int(np.max(trace.staleness)),
        ]
        for name, trace in traces.items()
    ]
    columns = ["mode", "finish time", "final loss", "mean staleness", "max staleness"]
    return table("Consistency modes", columns, rows)


def _figures(
    traces: dict[str, Trace], delays: list[int], sweep: list[float]
) -> list[dict[str, Any]]:
    by_time = line_figure(
        "Loss against simulated time",
        "time (units of one computation)",
        "training loss",
        [Series(name, t.times, t.losses) for name, t in traces.items()],
        log_y=True,
    )
    by_updates = line_figure(
        "Loss against gradients applied",
        "gradients applied / P",
        "training loss",
        [Series(name, list(range(1, len(t.losses) + 1)), t.losses) for name, t in traces.items()],
        log_y=True,
    )
    largest = max(max(t.staleness) for t in traces.values())
    staleness = bar_figure(
        "Staleness of applied gradients",
        "updates missed since the read",
        "gradients",
        [str(v) for v in range(largest + 1)],
        [
            (name, np.bincount(t.staleness, minlength=largest + 1).tolist())
            for name, t in traces.items()
        ],
    )
    delay = line_figure(
        "Gradient descent with a fixed delay τ",
        "delay τ (steps)",
        "final loss (missing: diverged)",
        [Series("final loss", delays, sweep, "lines+markers")],
        log_y=True,
    )
    return [by_time, by_updates, staleness, delay]


DEMO = Demo(
    slug="consistency-sgd",
    title="Synchronous, stale-synchronous and asynchronous SGD",
    version=2,  # 2: "simulated" for "measured"
    level="training",
    techniques=("synchronous-sgd", "stale-synchronous-sgd", "asynchronous-sgd"),
    works=(205, 98, 56),
    summary="Simulated workers with uneven speeds train a least-squares model synchronously, with "
    "bounded staleness (SSP) and asynchronously; a sweep shows gradient descent with a fixed "
    "delay.",
    look_for="Asynchronous training finishes first but applies stale gradients; SSP's bound s "
    "trades waiting for staleness. With a large learning rate, growing delays slow and then "
    "break convergence: stale updates need smaller steps.",
    params=(
        Param("P", "int", 8, 1, 32, help="workers"),
        Param("iterations", "int", 100, 10, 300, help="gradients computed by each worker"),
        Param(
            "lr",
            "float",
            0.5,
            0.01,
            1.9,
            help="learning rate in units of 1/L (L: largest curvature); GD is stable below 2",
        ),
        Param("s", "int", 2, 0, 20, help="SSP staleness bound (iterations)"),
        Param(
            "heterogeneity",
            "float",
            1.0,
            0.0,
            4.0,
            help="the slowest worker takes 1 + this times longer than the fastest",
        ),
        Param("max_delay", "int", 8, 0, 32, help="largest delay τ in the fixed-delay sweep"),
        SEED,
    ),
    run=run,
)
