"""The planner's answers, uncached, in this tree against an earlier commit, alternately in one run.

    .venv/bin/python -m bench.planner_ab [--base d59e2f6] [--rounds 3] [--runs 9] [--presets]

The base commit is unpacked (git archive) into bench/data/base-<commit>/ and both trees answer
the same URLs through Django's test client (RESPONSE_CACHE=false) in their own process, each
against its own copy of the survey database (migrate + load_survey, made once). A round runs the
base, then this tree; the figures are the medians over the rounds of each URL's median time:
- "repeat": the same URL again (what the memos of a process give a repeated query);
- "fresh": a new value of P for every request (nothing repeated: the load test's mix);
and the ratio this tree / base. With --presets, the URLs are every preset's page and answer
(each network of this tree, each machine preset) instead of URLS, and the slowest is named; a URL
that does not answer 200 is marked. Timings belong here, never in tests/.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data"
URLS = (
    "/api/planner/?network=resnet-50&P={P}",
    "/planner/?network=resnet-50&P={P}",
    "/api/planner/?network=gpt3-175b&P={P}",
    "/planner/?network=gpt3-175b&P={P}",
    "/api/planner/?network=llama2-70b&device=h100-sxm&P={P}",
    "/api/planner/?network=llama3.1-405b&device=h100-sxm&P={P}",
    "/api/planner/?network=megatron-1t&machine=a100-cluster&P={big}&batch={big}",
    "/planner/accuracy/",
)
FRESH_P = [8 * k for k in range(2, 40)]

# The child: times URLS in one process and prints JSON (run with the tree's python path).
CHILD = r"""
import json, os, statistics, sys, time
import django
django.setup()
from django.test import Client
runs, fresh = int(sys.argv[1]), json.loads(sys.argv[2])
urls = json.loads(sys.argv[3])
client = Client()
try:  # a served process freezes its memos as it warms (explorer/wsgi.py), where the tree has it
    from explorer.web.memory import freeze_as_it_warms
    freeze_as_it_warms()
except ImportError:
    pass
client.get(urls[0].format(P=8, big=65536))  # imports and the first reads, as a warm server
out = {}
for url in urls:
    same = url.format(P=64, big=65536)
    client.get(same)
    times = []
    for _ in range(runs):
        start = time.perf_counter(); client.get(same); times.append(time.perf_counter() - start)
    new = []
    for p in fresh[:runs]:
        u = url.format(P=p, big=65536 - p)
        start = time.perf_counter(); client.get(u); new.append(time.perf_counter() - start)
    status = client.get(same).status_code
    out[url] = [1000 * statistics.median(times), 1000 * statistics.median(new), status]
print(json.dumps(out))
"""


def _tree(base: str) -> Path:
    folder = DATA / f"base-{base}"
    if not folder.exists():
        folder.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "archive", base], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def _database(tree: Path, name: str) -> Path:
    database = DATA / f"{name}.sqlite3"
    if not database.exists():
        env = os.environ | {"DATABASE_URL": f"sqlite:///{database}"}
        for command in (["migrate", "--noinput"], ["load_survey"]):
            subprocess.run(
                [sys.executable, "manage.py", *command, "-v", "0"], cwd=tree, env=env, check=True
            )
    return database


# Every preset's slug in this tree: the networks (layer tables and transformers), the machines.
PRESETS = r"""
import json
import django
django.setup()
from explorer.planner.machine import PRESETS
from explorer.workloads.networks import networks
from explorer.workloads.transformers.shapes import PRESETS as TRANSFORMERS
print(json.dumps([[*networks(), *TRANSFORMERS], list(PRESETS)]))
"""


def preset_urls() -> list[str]:
    env = os.environ | {"DJANGO_SETTINGS_MODULE": "explorer.settings", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PRESETS], cwd=ROOT, env=env, check=True, capture_output=True
    )
    network_slugs, machine_slugs = json.loads(done.stdout.strip().splitlines()[-1])
    queries = [f"network={slug}" for slug in network_slugs]
    queries += [f"machine={slug}" for slug in machine_slugs]
    return [
        f"{path}?{query}&P={{P}}" for query in queries for path in ("/planner/", "/api/planner/")
    ]


def _measure(tree: Path, database: Path, runs: int, urls: list[str]) -> dict[str, list[float]]:
    env = os.environ | {
        "DATABASE_URL": f"sqlite:///{database}",
        "DJANGO_SETTINGS_MODULE": "explorer.settings",
        "RESPONSE_CACHE": "false",
        "PYTHONPATH": str(tree),
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(runs), json.dumps(FRESH_P), json.dumps(urls)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="d59e2f6")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--presets", action="store_true", help="every preset's page and answer")
    arguments = parser.parse_args()
    urls = preset_urls() if arguments.presets else list(URLS)
    base = _tree(arguments.base)
    trees = {
        "base": (base, _database(base, f"planner-ab-{arguments.base}")),
        "this": (ROOT, _database(ROOT, "planner-ab-this")),
    }
    found: dict[str, list[dict[str, list[float]]]] = {"base": [], "this": []}
    for _ in range(arguments.rounds):
        for name, (tree, database) in trees.items():
            found[name].append(_measure(tree, database, arguments.runs, urls))
    print(f"median ms over {arguments.rounds} alternating rounds (base {arguments.base}):")
    print(f"{'URL':64} {'repeat':>15} {'fresh':>15} {'ratio':>11}")
    slowest: dict[str, tuple[float, str]] = {"base": (0.0, ""), "this": (0.0, "")}
    for url in urls:
        medians = {}
        for name, rounds in found.items():
            same, new = (statistics.median(r[url][i] for r in rounds) for i in (0, 1))
            medians[name] = same, new
            if rounds[-1][url][2] == 200:
                slowest[name] = max(slowest[name], (max(same, new), url))
        (base_same, base_new), (this_same, this_new) = medians["base"], medians["this"]
        marks = "".join(
            f" [{name}: {rounds[-1][url][2]}]"
            for name, rounds in found.items()
            if rounds[-1][url][2] != 200
        )
        print(
            f"{url:64} {base_same:6.1f} → {this_same:6.1f} {base_new:6.1f} → {this_new:6.1f} "
            f"{this_same / base_same:5.2f} {this_new / base_new:5.2f}{marks}"
        )
    for name, (ms, url) in slowest.items():
        print(f"slowest answering 200 ({name}): {ms:.1f} ms, {url}")


if __name__ == "__main__":
    main()
