"""Time the planner: the ranked table and a 32-point sweep over P, pure and through the API.

    .venv/bin/python -m bench.planner_bench            # pure computation, median of 15 runs
    .venv/bin/python -m bench.planner_bench --http     # also /api/planner/ through Django

Targets (issue 14): under 50 ms for the ranked table, under 200 ms for a 32-point sweep. The
--http run builds bench/data/planner.sqlite3 (migrate + load_survey) the first time and times
GET /api/planner/ with Django's test client, database reads included.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATABASE = ROOT / "bench" / "data" / "planner.sqlite3"
NETWORKS = ("alexnet", "vgg-16", "resnet-50")
# Transformers (issue 26): the whole layout search, target under 1 s through the API at P = 4096
# and, since issue 38, at P = 65,536 (the bound).
TRANSFORMERS = (
    "network=gpt3-175b&machine=a100-cluster&P=4096&batch=4096",
    "network=megatron-1t&machine=a100-cluster&P=4096&batch=4096",
    "network=deepspeed-moe-52b&machine=a100-cluster&P=4096&batch=4096",
    "network=gpt3-175b&machine=a100-cluster&P=65536&batch=65536",
    "network=megatron-1t&machine=a100-cluster&P=65536&batch=65536",
    "network=deepspeed-moe-52b&machine=a100-cluster&P=65536&batch=65536",
)


def median_ms(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def pure(runs: int) -> None:
    from explorer.planner import layer_table_plan
    from explorer.planner import plan as planning
    from explorer.planner.machine import parse
    from explorer.workloads.formulas import fixture_formulas
    from explorer.workloads.networks import networks

    formulas = fixture_formulas()
    print(f"pure computation (median of {runs}):")
    for slug in NETWORKS:
        inputs = parse(
            {"network": slug, "P": "64", "sweep_max": "4096", "sweep_points": "32"}, set(networks())
        )
        planning.plan(inputs, formulas)  # warm the parse cache, as a running server has
        table = median_ms(lambda i=inputs: planning.plan(i, formulas, with_sweep=False), runs)
        swept = median_ms(lambda i=inputs: layer_table_plan.sweep(i, formulas), runs)
        points = len(layer_table_plan.sweep_points(inputs))
        print(
            f"  {slug:10} ranked table {table:6.1f} ms   sweep of {points} P values {swept:6.1f} ms"
        )
    from explorer.planner.transformers.network import NETWORK_DEFAULTS
    from explorer.workloads.transformers.shapes import NETWORKS as TRANSFORMER_NETWORKS

    for query in TRANSFORMERS:
        values = dict(item.split("=") for item in query.split("&"))
        inputs = parse(values, set(TRANSFORMER_NETWORKS), NETWORK_DEFAULTS)
        document = planning.plan(inputs, formulas)
        searched = median_ms(lambda i=inputs: planning.plan(i, formulas), runs)
        count = document["layouts"]["evaluated"]
        print(
            f"  {values['network']:18} P = {values['P']:>5}: {count} layouts, 10 strategies "
            f"{searched:6.1f} ms"
        )


def http(runs: int) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{DATABASE}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "explorer.settings")
    os.environ["RESPONSE_CACHE"] = "false"
    if not DATABASE.exists():
        DATABASE.parent.mkdir(parents=True, exist_ok=True)
        for command in (["migrate", "--noinput"], ["load_survey"]):
            subprocess.run(
                [sys.executable, "manage.py", *command, "-v", "0"],
                cwd=ROOT,
                env=os.environ,
                check=True,
            )
    import django

    django.setup()
    from django.test import Client

    client = Client()
    print(f"GET /api/planner/ through Django, database reads included (median of {runs}):")
    for slug in NETWORKS:
        small = f"/api/planner/?network={slug}&P=64&sweep_points=2&sweep_max=2"
        full = f"/api/planner/?network={slug}&P=64&sweep_points=32&sweep_max=4096"
        client.get(full)
        table = median_ms(lambda url=small: client.get(url), runs)
        swept = median_ms(lambda url=full: client.get(url), runs)
        print(
            f"  {slug:10} ranked table (2-point sweep) {table:6.1f} ms   with a 32-point sweep "
            f"{swept:6.1f} ms"
        )
    for query in TRANSFORMERS:
        url = f"/api/planner/?{query}"
        client.get(url)
        searched = median_ms(lambda url=url: client.get(url), runs)
        p = query.split("P=")[1].split("&")[0]
        print(f"  {query.split('&')[0]:26} whole layout search, P = {p:>5} {searched:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--http", action="store_true")
    arguments = parser.parse_args()
    pure(arguments.runs)
    if arguments.http:
        http(arguments.runs)


if __name__ == "__main__":
    main()
