"""Pipelining: a GPipe-style schedule of M micro-batches over P stages, simulated event by event.

Each stage runs its tasks in a fixed order: forwards F0..F(M-1), then, after the flush,
backwards B(M-1)..B0. A task starts when its stage is free and its input has arrived; the idle
("bubble") fraction of the stage-time is then compared with (P-1)/(M+P-1).
"""

from typing import Any

from .base import SEED, Demo, Param
from .common import Series, agreement, gantt_figure, line_figure, metric, result, table

TOLERANCE = 1e-9
GANTT_LIMIT = 2000  # draw the schedule only when it has at most this many tasks

Task = tuple[str, int, int]  # (kind "F" or "B", micro-batch, stage)


def stage_order(stage: int, micro_batches: int, with_backward: bool) -> list[Task]:
    forwards = [("F", m, stage) for m in range(micro_batches)]
    backwards = [("B", m, stage) for m in reversed(range(micro_batches))] if with_backward else []
    return forwards + backwards


def dependency(task: Task, stages: int) -> Task | None:
    kind, m, stage = task
    if kind == "F":
        return ("F", m, stage - 1) if stage > 0 else None
    return ("B", m, stage + 1) if stage < stages - 1 else ("F", m, stage)


def simulate(stages: int, micro_batches: int, backward_cost: float) -> dict[Task, float]:
    """Start time of every task; forwards take 1 time unit, backwards `backward_cost`."""
    queues = [stage_order(s, micro_batches, backward_cost > 0) for s in range(stages)]
    position, free = [0] * stages, [0.0] * stages
    start: dict[Task, float] = {}
    finish: dict[Task, float] = {}
    remaining = sum(len(queue) for queue in queues)
    while remaining:
        for stage, queue in enumerate(queues):
            # Run this stage's queue as far as its inputs are ready, then visit the next stage.
            while position[stage] < len(queue):
                task = queue[position[stage]]
                needed = dependency(task, stages)
                if needed is not None and needed not in finish:
                    break
                start[task] = max(free[stage], finish[needed] if needed else 0.0)
                finish[task] = start[task] + (1.0 if task[0] == "F" else backward_cost)
                free[stage] = finish[task]
                position[stage] += 1
                remaining -= 1
    return start


def bubble_fraction(stages: int, micro_batches: int, backward_cost: float) -> tuple[float, float]:
    """(idle fraction of P × makespan, makespan) measured from the simulated schedule."""
    start = simulate(stages, micro_batches, backward_cost)
    durations = {task: 1.0 if task[0] == "F" else backward_cost for task in start}
    makespan = max(start[task] + durations[task] for task in start)
    busy = sum(durations.values())
    return 1 - busy / (stages * makespan), makespan


def bubble_formula(stages: int, micro_batches: int) -> float:
    return (stages - 1) / (micro_batches + stages - 1)


def run(params: dict[str, Any], rng: Any) -> dict[str, Any]:
    p, m, backward = params["P"], params["M"], params["backward_cost"]
    measured, makespan = bubble_fraction(p, m, backward)
    error = abs(measured - bubble_formula(p, m))
    claim = agreement(
        "the simulated bubble fraction equals (P−1)/(M+P−1)",
        error <= TOLERANCE,
        f"simulated {measured:.12f}, model {bubble_formula(p, m):.12f}, difference {error:.1e}",
    )
    sweep = _micro_batch_sweep(m)
    swept = [bubble_fraction(p, size, backward)[0] for size in sweep]
    models = [bubble_formula(p, size) for size in sweep]
    figures = [_sweep_figure(p, sweep, swept, models)]
    if p * m * (2 if backward else 1) <= GANTT_LIMIT:
        figures.insert(0, _gantt(p, m, backward))
    rows = list(zip(sweep, swept, models, strict=True))
    columns = ["M", "simulated", "(P−1)/(M+P−1)"]
    tables = [table(f"Bubble fraction on P = {p} stages", columns, rows)]
    return result(_metrics(p, m, backward, measured, makespan), tables, figures, [claim])


def _metrics(
    p: int, m: int, backward: float, measured: float, makespan: float
) -> list[dict[str, Any]]:
    return [
        metric(
            "bubble (idle) fraction",
            measured,
            "",
            bubble_formula(p, m),
            "(P−1)/(M+P−1), the GPipe bubble formula (not from the survey)",
        ),
        metric(
            "makespan",
            makespan,
            "time units",
            (m + p - 1) * (1 + backward),
            "(M+P−1)·(t_forward + t_backward)",
        ),
        metric(
            "speedup over one device",
            p * m * (1 + backward) / makespan,
            "×",
            p * m / (m + p - 1),
            "P·M/(M+P−1)",
        ),
        metric(
            "micro-batches stashed on stage 0 at the flush",
            m if backward else 0,
            "",
            None,
            "GPipe keeps every micro-batch's activations until its backward pass",
        ),
    ]


def _sweep_figure(
    p: int, sweep: list[int], swept: list[float], models: list[float]
) -> dict[str, Any]:
    return line_figure(
        f"Bubble fraction against micro-batches (P = {p})",
        "micro-batches M",
        "idle fraction",
        [
            Series("simulated", sweep, swept, "markers"),
            Series("(P−1)/(M+P−1)", sweep, models, "lines", "dash"),
        ],
        log_x=True,
    )


def _micro_batch_sweep(m: int) -> list[int]:
    values = {2**k for k in range(11)} | {m}
    return sorted(value for value in values if value <= max(m, 32))


def _gantt(p: int, m: int, backward: float) -> dict[str, Any]:
    start = simulate(p, m, backward)
    bars = [
        ("forward" if kind == "F" else "backward", stage, begin, 1.0 if kind == "F" else backward)
        for (kind, _, stage), begin in start.items()
    ]
    lanes = [f"stage {s}" for s in range(p)]
    return gantt_figure(f"GPipe schedule, P = {p}, M = {m}", "pipeline stage", lanes, bars)


DEMO = Demo(
    slug="pipeline-bubble",
    title="Pipelining: the bubble of a GPipe-style schedule",
    version=2,  # 2: "simulated" for "measured"
    level="networks",
    techniques=("pipelining",),
    works=(62,),
    summary="M micro-batches flow through P pipeline stages, forward then backward after a flush; "
    "an event simulation measures how much of the stage-time is idle.",
    look_for="The idle fraction is exactly (P−1)/(M+P−1): more micro-batches shrink the bubble, "
    "more stages grow it. The GPipe schedule itself postdates the survey; the survey's pipelining "
    "section covers layer pipelining such as Deep Stacking Networks [62].",
    params=(
        Param("P", "int", 4, 1, 64, help="pipeline stages"),
        Param("M", "int", 8, 1, 1024, help="micro-batches per minibatch"),
        Param(
            "backward_cost",
            "float",
            2.0,
            0.0,
            4.0,
            help="time of a backward pass relative to a forward pass (0: inference only)",
        ),
        SEED,
    ),
    run=run,
)
