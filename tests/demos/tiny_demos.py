"""Tiny demos that misbehave on purpose, for the runner tests.

The worker imports this registry by its path, TINY_REGISTRY, passed to run_demo(registry=...).
"""

import time

import numpy as np

from explorer.demos.base import SEED, Demo, Param, tracked

TINY_REGISTRY = "tests.demos.tiny_demos:TINY_DEMOS"


def echo(params: dict, rng: np.random.Generator) -> dict:
    print("a stray print must not corrupt the worker's reply")
    return {
        "metrics": [{"name": "n", "value": params["n"], "unit": "", "predicted": None, "note": ""}],
        "tables": [],
        "figures": [],
        "agreement": [],
    }


def steps(params: dict, rng: np.random.Generator) -> dict:
    for _ in tracked(range(params["n"]), "step"):
        time.sleep(0.3)  # longer than the worker's progress interval: every step is reported
    return echo(params, rng)


def spin(params: dict, rng: np.random.Generator) -> dict:
    while True:
        pass


def sleep(params: dict, rng: np.random.Generator) -> dict:
    time.sleep(60)  # uses no CPU: only the wall-clock limit can stop it
    return {}


def hog(params: dict, rng: np.random.Generator) -> dict:
    np.ones(4_000_000_000 // 8)  # 4 GB
    return {}


def boom(params: dict, rng: np.random.Generator) -> dict:
    raise RuntimeError("boom")


def make_tiny(slug: str, run) -> Demo:
    return Demo(
        slug=slug,
        title=slug,
        version=1,
        level="operators",
        techniques=(),
        works=(),
        summary="",
        look_for="",
        params=(Param("n", "int", 1, 0, 10), SEED),
        run=run,
    )


TINY_DEMOS = {
    slug: make_tiny(slug, run)
    for slug, run in {
        "echo": echo,
        "steps": steps,
        "spin": spin,
        "sleep": sleep,
        "hog": hog,
        "boom": boom,
    }.items()
}
