"""Allreduce message schedules and a parameter server, simulated in the simplified LogP model.

A schedule is a list of steps; in a step every process sends at most one message and receives
at most one (full duplex). A message of b bytes takes L + b·G once both ends are free. The
simulation also moves real numbers through the schedule to check that it computes the sum.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import SEED, Demo, Param, tracked
from .common import Series, agreement, line_figure, metric, relative_error, result, table

TOLERANCE = 1e-9


@dataclass(frozen=True)
class Step:
    src: np.ndarray  # sender of each message
    dst: np.ndarray  # receiver of each message
    first_chunk: np.ndarray  # each message carries chunks first_chunk .. first_chunk+chunks-1
    chunks: int
    combine: bool  # True: the receiver adds the chunks to its own; False: it overwrites them


@dataclass(frozen=True)
class Schedule:
    processes: int
    chunks: int  # the vector is cut into this many equal chunks
    workers: int  # processes 0..workers-1 contribute a vector and must end with the sum
    steps: list[Step]


def tree_schedule(p: int) -> Schedule:
    """Binomial-tree reduce to process 0, then the mirrored broadcast."""
    ranks = np.arange(p)
    reduce_steps, broadcast_steps = [], []
    for k in range(int(math.log2(p))):
        senders = ranks[ranks % 2 ** (k + 1) == 2**k]
        reduce_steps.append(Step(senders, senders - 2**k, np.zeros_like(senders), 1, True))
        roots = ranks[ranks % 2 ** (k + 1) == 0]
        broadcast_steps.append(Step(roots, roots + 2**k, np.zeros_like(roots), 1, False))
    return Schedule(p, 1, p, reduce_steps + broadcast_steps[::-1])


def butterfly_schedule(p: int) -> Schedule:
    """Recursive doubling: every process exchanges its whole vector with rank XOR 2^k."""
    ranks = np.arange(p)
    steps = [
        Step(ranks, ranks ^ 2**k, np.zeros_like(ranks), 1, True) for k in range(int(math.log2(p)))
    ]
    return Schedule(p, 1, p, steps)


def ring_schedule(p: int) -> Schedule:
    """Reduce-scatter then allgather around a ring, one chunk of m/P per message."""
    ranks = np.arange(p)
    right = (ranks + 1) % p
    scatter = [Step(ranks, right, (ranks - s) % p, 1, True) for s in range(p - 1)]
    gather = [Step(ranks, right, (ranks + 1 - s) % p, 1, False) for s in range(p - 1)]
    return Schedule(p, p, p, scatter + gather)


def rabenseifner_schedule(p: int) -> Schedule:
    """Recursive-halving reduce-scatter, then recursive-doubling allgather [198]."""
    ranks = np.arange(p)
    low = np.zeros(p, dtype=int)  # first chunk of the range each process is responsible for
    size, scatter = p, []
    while size > 1:
        half = size // 2
        keeps_lower = (ranks & half) == 0
        scatter.append(
            Step(ranks, ranks ^ half, np.where(keeps_lower, low + half, low), half, True)
        )
        low = np.where(keeps_lower, low, low + half)
        size = half
    gather, size = [], 1
    while size < p:
        gather.append(Step(ranks, ranks ^ size, low.copy(), size, False))
        low = np.minimum(low, low[ranks ^ size])
        size *= 2
    return Schedule(p, p, p, scatter + gather)


def parameter_server_schedule(p: int, servers: int) -> Schedule:
    """P workers push shard j to server j, servers add, workers pull; servers are extra processes.

    Slots are staggered so that no port takes two messages at once: max(P, S) slots per phase.
    """
    slots = max(p, servers)
    pairs = [_slot_pairs(p, servers, t) for t in range(slots)]
    push = [Step(workers, p + shards, shards, 1, True) for workers, shards in pairs]
    pull = [Step(p + shards, workers, shards, 1, False) for workers, shards in pairs]
    return Schedule(p + servers, servers, p, push + pull)


def _slot_pairs(p: int, servers: int, slot: int) -> tuple[np.ndarray, np.ndarray]:
    if p >= servers:
        shards = np.arange(servers)
        return (shards + slot) % p, shards
    workers = np.arange(p)
    return workers, (workers + slot) % servers


def simulate_time(schedule: Schedule, latency: float, seconds_per_chunk: Any) -> Any:
    """Finish time when each message starts as soon as its sender and receiver are free.

    `seconds_per_chunk` may be an array: one simulation then covers several message sizes.
    """
    per_chunk = np.asarray(seconds_per_chunk, dtype=float)
    clock = np.zeros((schedule.processes, *per_chunk.shape))
    for step in schedule.steps:
        start = np.maximum(clock[step.src], clock[step.dst])
        end = start + latency + step.chunks * per_chunk
        # Ports are unique within a step, so plain fancy assignment is a correct scatter-max.
        clock[step.src] = np.maximum(clock[step.src], end)
        clock[step.dst] = np.maximum(clock[step.dst], end)
    finish = clock.max(axis=0)
    return float(finish) if finish.ndim == 0 else finish.tolist()


def execute(schedule: Schedule, data: np.ndarray) -> np.ndarray:
    """Move real data (processes x chunks x width) through the schedule."""
    data = data.copy()
    for step in schedule.steps:
        chunks = step.first_chunk[:, None] + np.arange(step.chunks)
        sent = data[step.src[:, None], chunks]  # a copy: exchanges within a step are simultaneous
        if step.combine:
            data[step.dst[:, None], chunks] += sent
        else:
            data[step.dst[:, None], chunks] = sent
    return data


def ring_bytes_sent(p: int, elements: int, gamma: int) -> np.ndarray:
    """Bytes each process sends in a ring allreduce of `elements` (chunks of ⌈elements/P⌉)."""
    width = -(-elements // p)
    lengths = np.clip(elements - width * np.arange(p), 0, width)
    sent = np.zeros(p, dtype=np.int64)
    for step in ring_schedule(p).steps:
        sent[step.src] += lengths[step.first_chunk] * gamma
    return sent


def ports_respected(schedule: Schedule) -> bool:
    """Each process sends at most one and receives at most one message per step."""
    size = schedule.processes
    return all(
        np.bincount(step.src, minlength=size).max() <= 1
        and np.bincount(step.dst, minlength=size).max() <= 1
        for step in schedule.steps
    )


def allreduces_correctly(schedule: Schedule, rng: np.random.Generator) -> bool:
    data = np.zeros((schedule.processes, schedule.chunks, 1))
    data[: schedule.workers] = rng.standard_normal((schedule.workers, schedule.chunks, 1))
    expected = data[: schedule.workers].sum(axis=0)
    final = execute(schedule, data)[: schedule.workers]
    return bool(np.allclose(final, expected, rtol=TOLERANCE, atol=TOLERANCE))


@dataclass(frozen=True)
class Algorithm:
    name: str
    schedule: Callable[[int, int], Schedule]  # (P, S) -> schedule
    formula_text: str
    formula: Callable[[int, int, float, float], float]  # (P, S, L, gamma·m·G) -> seconds
    status: str  # where the formula comes from (paper/FACTS.md §2.4)


RECALLED = "standard result (RECALLED; not checked against the paper)"


ALGORITHMS = (
    Algorithm(
        "tree",
        lambda p, s: tree_schedule(p),
        "2·log2(P)·(L + γmG)",
        lambda p, s, lat, bw: 2 * math.log2(p) * (lat + bw),
        "the survey's §2.5 (confirmed, S2)",
    ),
    Algorithm(
        "butterfly",
        lambda p, s: butterfly_schedule(p),
        "log2(P)·(L + γmG)",
        lambda p, s, lat, bw: math.log2(p) * (lat + bw),
        RECALLED,
    ),
    Algorithm(
        "ring",
        lambda p, s: ring_schedule(p),
        "2(P−1)·L + 2γmG·(P−1)/P",
        lambda p, s, lat, bw: 2 * (p - 1) * lat + 2 * bw * (p - 1) / p,
        RECALLED,
    ),
    Algorithm(
        "Rabenseifner",
        lambda p, s: rabenseifner_schedule(p),
        "2L·log2(P) + 2γmG·(P−1)/P",
        lambda p, s, lat, bw: 2 * lat * math.log2(p) + 2 * bw * (p - 1) / p,
        RECALLED,
    ),
    Algorithm(
        "parameter server",
        parameter_server_schedule,
        "2·max(P, S)·(L + γmG/S)",
        lambda p, s, lat, bw: 2 * max(p, s) * (lat + bw / s),
        "derived for this demo's staggered schedule; the survey gives no PS formula",
    ),
)


MESSAGE_SIZES = [10**k for k in range(0, 10)]  # elements, for the time-against-size figure
COLUMNS = [
    "algorithm",
    "simulated (s)",
    "formula (s)",
    "relative error",
    "steps",
    "messages",
    "sum correct",
]


@dataclass(frozen=True)
class Outcome:
    """One algorithm at the chosen P, plus its sweeps over P and over the message size."""

    algorithm: Algorithm
    schedule: Schedule
    simulated: float
    formula: float
    correct: bool  # the schedule computes the sum and respects one message per port per step
    by_p: list[tuple[int, float, float]]  # (P, simulated, formula)
    by_size: list[float]  # simulated time for each of MESSAGE_SIZES

    @property
    def error(self) -> float:
        return relative_error(self.simulated, self.formula)


def simulate(algorithm: Algorithm, params: dict[str, Any], rng: np.random.Generator) -> Outcome:
    """Each schedule is built and simulated once; the chosen P also covers every message size."""
    servers, latency = params["S"], params["L"] * 1e-6
    per_element = params["gamma"] * params["G"] * 1e-9  # γ·G: seconds per element sent
    by_p, by_size = [], []
    for log2_p in range(1, params["log2_P"] + 1):
        p = 2**log2_p
        schedule = algorithm.schedule(p, servers)
        chosen = log2_p == params["log2_P"]
        sizes = [params["m"], *MESSAGE_SIZES] if chosen else [params["m"]]
        times = simulate_time(schedule, latency, np.array(sizes) * per_element / schedule.chunks)
        formula = algorithm.formula(p, servers, latency, params["m"] * per_element)
        by_p.append((p, times[0], formula))
        by_size = times[1:]
    correct = allreduces_correctly(schedule, rng) and ports_respected(schedule)
    return Outcome(algorithm, schedule, by_p[-1][1], by_p[-1][2], correct, by_p, by_size)


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    outcomes = [simulate(algorithm, params, rng) for algorithm in tracked(ALGORITHMS, "algorithm")]
    rows = [
        [
            one.algorithm.name,
            one.simulated,
            one.formula,
            one.error,
            len(one.schedule.steps),
            sum(len(step.src) for step in one.schedule.steps),
            one.correct,
        ]
        for one in outcomes
    ]
    p = 2 ** params["log2_P"]
    tables = [table(f"Allreduce of m = {params['m']} elements on P = {p}", COLUMNS, rows)]
    figures = [_time_vs_p(outcomes), _time_vs_size(outcomes, p)]
    return result(
        [_metric(one) for one in outcomes], tables, figures, [_claim(one) for one in outcomes]
    )


def _metric(one: Outcome) -> dict[str, Any]:
    algorithm = one.algorithm
    note = f"{algorithm.formula_text}: {algorithm.status}"
    return metric(f"{algorithm.name} time", one.simulated, "s (simulated)", one.formula, note)


def _claim(one: Outcome) -> dict[str, Any]:
    return agreement(
        f"simulated {one.algorithm.name} time equals {one.algorithm.formula_text}",
        one.error <= TOLERANCE and one.correct,
        f"{one.simulated:.6g} s simulated vs {one.formula:.6g} s; relative error "
        f"{one.error:.1e}; "
        + ("every worker ends with the sum" if one.correct else "the schedule is WRONG")
        + f"; formula: {one.algorithm.status}",
    )


def _time_vs_p(outcomes: list[Outcome]) -> dict[str, Any]:
    series = []
    for one in outcomes:
        sizes = [p for p, _, _ in one.by_p]
        name = one.algorithm.name
        series.append(Series(f"{name} (simulated)", sizes, [t for _, t, _ in one.by_p], "markers"))
        series.append(
            Series(f"{name} (formula)", sizes, [f for _, _, f in one.by_p], "lines", "dash")
        )
    return line_figure(
        "Allreduce time against the number of processes P",
        "P",
        "time (s)",
        series,
        log_x=True,
        log_y=True,
    )


def _time_vs_size(outcomes: list[Outcome], p: int) -> dict[str, Any]:
    series = [
        Series(one.algorithm.name, MESSAGE_SIZES, one.by_size, "lines+markers") for one in outcomes
    ]
    return line_figure(
        f"Allreduce time against message size (P = {p})",
        "m (elements)",
        "time (s, simulated)",
        series,
        log_x=True,
        log_y=True,
    )


DEMO = Demo(
    slug="allreduce-vs-ps",
    title="Allreduce algorithms and a parameter server in the LogP model",
    version=1,
    level="distributed",
    techniques=(
        "allreduce-tree",
        "allreduce-butterfly",
        "allreduce-ring",
        "allreduce-rabenseifner",
        "parameter-server",
    ),
    works=(53, 198, 78, 152),
    summary="Message schedules of tree, butterfly, ring and Rabenseifner allreduce and of a "
    "sharded parameter server are simulated step by step; each simulated time is compared with "
    "its formula.",
    look_for="Latency-bound (small m): tree and butterfly win, the ring pays 2(P−1)L. "
    "Bandwidth-bound (large m): ring and Rabenseifner send only 2γm(P−1)/P per process. A "
    "parameter server needs S ≈ P servers to keep up.",
    params=(
        Param("log2_P", "int", 5, 1, 10, help="number of processes P = 2^log2_P (up to 1024)"),
        Param("m", "int", 1_000_000, 1, 1_000_000_000, help="elements per vector", unit="elements"),
        Param("gamma", "int", 4, 1, 8, help="bytes per element γ", unit="B"),
        Param("L", "float", 2.0, 0.0, 1000.0, help="latency per message", unit="µs"),
        Param(
            "G", "float", 0.1, 0.0, 100.0, help="time per byte (0.1 ns/B = 10 GB/s)", unit="ns/B"
        ),
        Param("S", "int", 4, 1, 256, help="parameter servers (sharded)"),
        SEED,
    ),
    run=run,
)
