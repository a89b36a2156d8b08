"""A small git repository shaped like a training_results round, for the builder and loader."""

import json
import subprocess

import pytest

SYSTEM = {
    "submitter": "NVIDIA",
    "division": "closed",
    "status": "available",
    "system_name": "DGX A100 x8",
    "number_of_nodes": "8",
    "accelerators_per_node": "8",
    "accelerator_model_name": "NVIDIA A100-SXM4-80GB",
    "host_processor_model_name": "AMD EPYC 7742",
    "host_networking": "8x HDR InfiniBand",
    "accelerator_interconnect": "NVLink",
    "framework": "MXNet NVIDIA Release 21.05",
}


EPOCH = {"epoch_num": 36}


def mllog(minutes: float, status: str = "success") -> str:
    start = 1_600_000_000_000
    lines = [
        {"time_ms": start - 5, "key": "global_batch_size", "value": 3264, "metadata": {}},
        {"time_ms": start, "key": "run_start", "value": None, "metadata": {}},
        {"time_ms": start + 1, "key": "eval_accuracy", "value": 0.76, "metadata": EPOCH},
        {"time_ms": start + 2, "key": "throughput", "value": 25000.0, "metadata": {}},
        {
            "time_ms": start + int(minutes * 60000),
            "key": "run_stop",
            "value": None,
            "metadata": {"status": status},
        },
    ]
    return "".join(f":::MLLOG {json.dumps(line)}\n" for line in lines)


def git(cwd, *args):
    return subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def snapshot(tmp_path):
    """A v1.0-shaped repository with five resnet logs, one of them then made absent."""
    work = tmp_path / "repo"
    results = work / "NVIDIA" / "results" / "dgxa100_n8" / "resnet"
    results.mkdir(parents=True)
    (work / "NVIDIA" / "systems").mkdir()
    (work / "NVIDIA" / "systems" / "dgxa100_n8.json").write_text(json.dumps(SYSTEM) + "\n")
    for index, minutes in enumerate((30.0, 31.0, 29.0, 32.0, 28.0)):
        status = "aborted" if index == 3 else "success"
        (results / f"result_{index}.txt").write_text(mllog(minutes, status))
    unet = work / "NVIDIA" / "results" / "dgxa100_n8" / "unet3d"
    unet.mkdir()
    (unet / "result_0.txt").write_text(mllog(9.0) + "absent " * 10)
    git(work, "init", "-q")
    git(work, "add", ".")
    git(work, "commit", "-qm", "results")
    sha = git(work, "rev-parse", "HEAD:NVIDIA/results/dgxa100_n8/unet3d/result_0.txt").strip()
    (work / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    return work / ".git"
