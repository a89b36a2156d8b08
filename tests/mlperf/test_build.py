"""The MLPerf builder on a small git repository shaped like a training_results round: same
snapshot, same bytes; rows carry their path; an absent log is named, never guessed."""

import gzip
import json

from catalogue.mlperf.fixture import read, records
from fixtures.build.mlperf import build
from tests.mlperf.conftest import SYSTEM, git


def test_it_builds_the_same_bytes_twice_with_every_row_sourced(snapshot, tmp_path):
    first = build({"v1.0": snapshot}, tmp_path / "a.json.gz", tmp_path / "a.md")
    second = build({"v1.0": snapshot}, tmp_path / "b.json.gz", tmp_path / "b.md")
    assert first == second
    assert gzip.decompress(first)  # a gzip stream with mtime 0
    assert first[4:8] == b"\0\0\0\0"
    fixture, _ = read(tmp_path / "a.json.gz")
    [v10] = [r for r in fixture["rounds"] if r["available"]]
    assert v10["repository"] == "mlcommons/training_results_v1.0"
    assert len(v10["commit"]) == 40
    others = [r["note"] for r in fixture["rounds"] if r is not v10]
    assert set(others) == {"no snapshot was given to the build"}
    assert all(run["path"] for run in records(fixture, "runs"))


def test_it_reads_the_system_runs_and_scores_and_names_the_absent_log(snapshot, tmp_path):
    build({"v1.0": snapshot}, tmp_path / "f.json.gz", tmp_path / "f.md")
    fixture, _ = read(tmp_path / "f.json.gz")
    [system] = records(fixture, "systems")
    assert system | {"round": "v1.0"} == system
    assert (system["nodes"], system["accelerators_per_node"], system["accelerators"]) == (8, 8, 64)
    assert system["path"] == "NVIDIA/systems/dgxa100_n8.json"
    runs = records(fixture, "runs")
    assert [(r["benchmark"], r["index"], r["status"]) for r in runs] == [
        ("resnet", 0, "success"),
        ("resnet", 1, "success"),
        ("resnet", 2, "success"),
        ("resnet", 3, "aborted"),
        ("resnet", 4, "success"),
        ("unet3d", 0, "absent"),
    ]
    assert runs[0] | {"minutes": 30.0, "global_batch": 3264, "at_target": 36.0} == runs[0]
    scores = {s["benchmark"]: s for s in records(fixture, "scores")}
    # One non-converging run counts as the slowest and is dropped: mean of 29, 30, 31.
    assert scores["resnet"]["minutes"] == 30.0
    assert scores["unet3d"]["minutes"] is None
    report = (tmp_path / "f.md").read_text()
    assert "| v1.0 |" in report and "| 1 | 6 | 4 | 1 | 0 | 1 | 1 | 1 | 0 |" in report
    assert "`NVIDIA/results/dgxa100_n8/unet3d/result_0.txt`" in report


def test_it_takes_a_missing_division_from_the_logs_and_says_so(snapshot, tmp_path):
    work = snapshot.parent
    described = {k: v for k, v in SYSTEM.items() if k != "division"}
    (work / "NVIDIA" / "systems" / "dgxa100_n8.json").write_text(json.dumps(described))
    log = work / "NVIDIA" / "results" / "dgxa100_n8" / "resnet" / "result_0.txt"
    line = {"time_ms": 1, "key": "submission_division", "value": "open", "metadata": {}}
    log.write_text(f":::MLLOG {json.dumps(line)}\n" + log.read_text())
    git(work, "commit", "-qam", "no division")
    build({"v1.0": snapshot}, tmp_path / "f.json.gz", tmp_path / "f.md")
    fixture, _ = read(tmp_path / "f.json.gz")
    assert records(fixture, "systems")[0]["division"] == "open"
    assert (
        "`NVIDIA/systems/dgxa100_n8.json`: no division in the description; 'open' from"
        in (tmp_path / "f.md").read_text()
    )
