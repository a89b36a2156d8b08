"""Regularized (aging) evolution versus removing the worst, on a toy noisy search space.

A genome is L integers in 0..V-1; its true fitness is the mean of pairwise interaction scores
between neighbouring genes (a rugged, NK-like landscape), and every evaluation adds Gaussian
noise, as training a candidate network does. Both searches use tournament selection [80]: draw
S individuals, mutate the best one. Regularized evolution [203] then removes the oldest
individual; the baseline removes the one with the worst observed fitness.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import SEED, Demo, Param, tracked
from .common import Series, agreement, line_figure, metric, result, table

POINTS = 40  # points per curve


class Landscape:
    def __init__(self, length: int, values: int, noise: float, rng: np.random.Generator) -> None:
        self.tables = rng.random((length - 1, values, values)) / (length - 1)
        self.positions = np.arange(length - 1)
        self.length, self.values, self.noise = length, values, noise

    def true_fitness(self, genome: np.ndarray) -> float:
        """Mean interaction score of neighbouring genes, in [0, 1]."""
        return float(self.tables[self.positions, genome[:-1], genome[1:]].sum())

    def observe(self, true_fitness: float, rng: np.random.Generator) -> float:
        return true_fitness + self.noise * float(rng.standard_normal())

    def random_genome(self, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, self.values, self.length)

    def mutate(self, genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Change one gene to a different value."""
        child = genome.copy()
        position = rng.integers(self.length)
        child[position] = (child[position] + rng.integers(1, self.values)) % self.values
        return child


def evolve(
    landscape: Landscape, params: dict[str, Any], aging: bool, rng: np.random.Generator
) -> tuple[list[float], float]:
    """(true fitness of the best-looking individual after each cycle, final population mean).

    The best-looking individual (highest observed fitness so far) is what a search reports, so
    its true fitness is what counts.
    """
    size = params["population"]
    genomes: list[np.ndarray] = []
    observed: list[float] = []
    true: list[float] = []  # oldest first
    best_observed, best_true, curve = -np.inf, 0.0, []
    for cycle in range(size + params["cycles"]):
        if cycle < size:
            genome = landscape.random_genome(rng)
        else:
            sample = rng.choice(len(genomes), min(params["sample"], len(genomes)), replace=False)
            parent = max(sample, key=lambda i: observed[i])
            genome = landscape.mutate(genomes[parent], rng)
        fitness = landscape.true_fitness(genome)
        seen = landscape.observe(fitness, rng)
        genomes.append(genome)
        observed.append(seen)
        true.append(fitness)
        if seen > best_observed:
            best_observed, best_true = seen, fitness
        if len(genomes) > size:
            leaving = 0 if aging else int(np.argmin(observed))
            del genomes[leaving], observed[leaving], true[leaving]
        if cycle >= size:
            curve.append(best_true)
    return curve, float(np.mean(true))


@dataclass(frozen=True)
class Searches:
    """Repeated searches of one method: per repeat, the curve and the final population mean."""

    name: str
    reported: np.ndarray  # (repeats, cycles): true fitness of the best-looking individual
    population_mean: np.ndarray  # (repeats,)

    @property
    def final(self) -> np.ndarray:
        return self.reported[:, -1]


def search(
    name: str, landscape: Landscape, params: dict[str, Any], aging: bool, seeds: np.ndarray
) -> Searches:
    outcomes = [
        evolve(landscape, params, aging, np.random.default_rng(seed))
        for seed in tracked(seeds, f"{name} search")
    ]
    return Searches(
        name, np.array([curve for curve, _ in outcomes]), np.array([m for _, m in outcomes])
    )


def run(params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    landscape = Landscape(params["length"], params["values"], params["noise"], rng)
    seeds = rng.integers(2**63, size=params["repeats"])
    aging = search("regularized (aging)", landscape, params, True, seeds)
    worst = search("remove worst", landscape, params, False, seeds)
    claim = agreement(
        "with noisy evaluations, regularized evolution reports a truly fitter individual "
        "(mean over repeats)",
        aging.final.mean() >= worst.final.mean(),
        f"{aging.final.mean():.4f} with aging, {worst.final.mean():.4f} removing the worst, "
        f"noise σ = {params['noise']:g}",
    )
    figure = _curve_figure(params, [aging, worst])
    return result(_metrics(params, aging, worst), [_table(aging, worst)], [figure], [claim])


def _metrics(params: dict[str, Any], aging: Searches, worst: Searches) -> list[dict[str, Any]]:
    metrics = [
        metric(
            f"reported individual's true fitness, {one.name} (mean of repeats)",
            float(one.final.mean()),
        )
        for one in (aging, worst)
    ]
    metrics += [
        metric(
            f"final population's mean true fitness, {one.name}", float(one.population_mean.mean())
        )
        for one in (aging, worst)
    ]
    wins = int(np.sum(aging.final > worst.final))
    evaluations = params["population"] + params["cycles"]
    return metrics + [
        metric(
            "repeats where regularized reports a truly fitter individual",
            wins,
            f"of {params['repeats']}",
        ),
        metric(
            "evaluations per search",
            evaluations,
            "",
            None,
            "initial population + one child per cycle",
        ),
    ]


def _table(aging: Searches, worst: Searches) -> dict[str, Any]:
    columns = [
        "repeat",
        "reported, aging",
        "reported, remove worst",
        "population mean, aging",
        "population mean, remove worst",
    ]
    rows = [
        [i, *values]
        for i, values in enumerate(
            zip(aging.final, worst.final, aging.population_mean, worst.population_mean, strict=True)
        )
    ]
    return table("Final true fitness per repeat", columns, rows)


def _curve_figure(params: dict[str, Any], searches: list[Searches]) -> dict[str, Any]:
    every = max(1, params["cycles"] // POINTS)
    cycles = list(range(every, params["cycles"] + 1, every))
    picks = [c - 1 for c in cycles]
    series = []
    for one in searches:
        name = one.name
        mean = one.reported[:, picks].mean(axis=0)
        spread = one.reported[:, picks].std(axis=0)
        series.append(Series(f"{name}, mean", cycles, mean.tolist(), "lines"))
        series.append(
            Series(f"{name}, mean − std", cycles, (mean - spread).tolist(), "lines", "dot")
        )
    return line_figure(
        f"True fitness of the best-looking individual ({params['repeats']} repeats)",
        "cycles (children evaluated)",
        "true fitness",
        series,
    )


DEMO = Demo(
    slug="regularized-evolution",
    title="Architecture search: regularized evolution vs removing the worst",
    version=1,
    level="training",
    techniques=("architecture-search-evolution",),
    works=(203, 80),
    summary="Tournament-selection evolution on a toy genome space with noisy evaluations, removing "
    "the oldest individual (regularized evolution, as in AmoebaNet) or the worst one; repeated "
    "over seeds.",
    look_for="Under evaluation noise, removing the worst keeps individuals that were merely "
    "lucky, and they keep winning tournaments; aging forces good genes to prove themselves again "
    "through their children. Set noise to 0 and the greedy baseline does as well or better.",
    params=(
        Param("population", "int", 50, 10, 200, help="population size P"),
        Param("sample", "int", 10, 2, 50, help="tournament size S (at most P)"),
        Param(
            "cycles", "int", 600, 50, 800, help="children evaluated after the initial population"
        ),
        Param("length", "int", 24, 4, 64, help="genes per genome"),
        Param("values", "int", 4, 2, 8, help="values per gene"),
        Param("noise", "float", 0.1, 0.0, 0.2, help="standard deviation of evaluation noise"),
        Param("repeats", "int", 6, 1, 10, help="independent searches per method"),
        SEED,
    ),
    run=run,
)
