"""How long `load_survey` takes with the full MLPerf fixture on SQLite: fresh, then repeated.

    .venv/bin/python -m bench.mlperf_load_bench [--repeat 3]

A fresh SQLite file in bench/data/ is migrated, then `manage.py load_survey` runs against it
(DATABASE_URL in its environment, as bench/synthetic.py does): the first load writes every round,
system, run and score; the next ones find the fixture's hash unchanged and skip it. Prints each
wall-clock time, the rows loaded and the file's size. The issue's target: under 30 s.
"""

from __future__ import annotations

import argparse
import sqlite3
import time
from pathlib import Path

from bench.synthetic import DATA, _remove, manage

DB = DATA / "mlperf-load.sqlite3"
TABLES = ("mlperfround", "mlperfsystem", "mlperfrun", "mlperfscore")


def timed(db: Path, *args: str) -> float:
    start = time.perf_counter()
    manage(db, *args)
    return time.perf_counter() - start


def counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {
            t: conn.execute(f"SELECT COUNT(*) FROM catalogue_{t}").fetchone()[0] for t in TABLES
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="loads after the first")
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    _remove(DB)
    print(f"migrate: {timed(DB, 'migrate', '--noinput', '-v', '0'):.1f} s")
    print(f"load_survey, fresh: {timed(DB, 'load_survey', '-v', '0'):.1f} s  {counts(DB)}")
    for number in range(1, args.repeat + 1):
        print(f"load_survey, repeat {number}: {timed(DB, 'load_survey', '-v', '0'):.1f} s")
    print(f"database: {DB.stat().st_size / 2**20:.1f} MiB ({DB})")
    _remove(DB)


if __name__ == "__main__":
    main()
