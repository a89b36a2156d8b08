"""Time every demo: in-process with defaults, through the limited runner, and at its worst corner.

    python bench/demos_bench.py            # defaults in-process (median of 3) and via the runner
    python bench/demos_bench.py --corners  # also the worst corner of the bounds, via the runner

The corners are the parameter combinations measured as the slowest within each demo's bounds;
they run through the runner with its production limits, so a corner that does not fit shows up
as a limit error instead of a time.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Match the worker: one BLAS thread per run (numpy reads these once, at import).
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.demos import DEMOS, DemoError, run_demo, run_in_process  # noqa: E402

CORNERS: dict[str, dict[str, object]] = {
    "convolution-algorithms": {"N": 8, "C_in": 32, "C_out": 32, "size": 64, "K": 7},
    "fc-gemm": {"N": 256, "C_in": 2048, "C_out": 512},
    "data-parallel": {"P": 64, "B": 1024, "d": 1024, "steps": 100},
    "model-parallel": {"P": 16, "N": 128, "width": 512, "layers": 16},
    "pipeline-bubble": {"P": 64, "M": 1024},
    "hybrid-one-weird-trick": {"P": 256, "b": 1024},
    "large-minibatch": {"B0": 16, "max_batch": 4096, "epochs": 10, "hidden": 64, "samples": 4000},
    "consistency-sgd": {"P": 32, "iterations": 300, "s": 20, "heterogeneity": 4, "max_delay": 32},
    "allreduce-vs-ps": {"log2_P": 10, "S": 256},
    "gossip-averaging": {"graph": "ring", "n": 256, "rounds": 300, "trials": 50},
    "gradient-quantization": {"P": 8, "steps": 300, "batch": 64, "s": 255},
    "gradient-sparsification": {"P": 4, "steps": 200, "batch": 32, "density": 0.5},
    "model-averaging": {"P": 16, "steps": 400, "batch": 32, "H": 1},
    "regularized-evolution": {
        "population": 200,
        "sample": 50,
        "cycles": 800,
        "length": 64,
        "values": 8,
        "repeats": 10,
    },
}


def in_process_median(slug: str, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run_in_process(DEMOS[slug], {})
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def in_process_cpu(slug: str, params: dict[str, object]) -> float:
    """CPU seconds of one in-process run: what the worker's CPU limit counts (minus start-up)."""
    started = time.process_time()
    run_in_process(DEMOS[slug], params)
    return time.process_time() - started


def through_runner(slug: str, params: dict[str, object], slot_dir: str) -> str:
    try:
        return f"{run_demo(slug, params, slot_dir=slot_dir)['elapsed_s']:.2f}"
    except DemoError as error:
        return f"FAILED: {error}"


def row(slug: str, corners: bool, slot_dir: str) -> str:
    local = in_process_median(slug)
    runner = through_runner(slug, {}, slot_dir)
    overhead = "-" if runner.startswith("FAILED") else f"{float(runner) - local:.2f}"
    line = f"{slug:<26} {local:>10.2f} {runner:>8} {overhead:>9}"
    if corners:
        cpu = in_process_cpu(slug, CORNERS[slug])
        line += f" {cpu:>11.2f} {through_runner(slug, CORNERS[slug], slot_dir):>12}"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corners", action="store_true", help="also run each worst corner")
    args = parser.parse_args()
    slot_dir = tempfile.mkdtemp(prefix="demo-bench-slots-")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; times in seconds")
    header = f"{'demo':<26} {'in-process':>10} {'runner':>8} {'overhead':>9}"
    if args.corners:
        header += f" {'corner CPU':>11} {'corner wall':>12}"
    print(header)
    for slug in DEMOS:
        print(row(slug, args.corners, slot_dir), flush=True)
    if args.corners:
        print("\nCorners (CPU: in-process; wall: through the runner, start-up included):")
        for slug, params in CORNERS.items():
            print(f"  {slug}: {params}")


if __name__ == "__main__":
    main()
