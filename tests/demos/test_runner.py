import fcntl

import pytest

from explorer.demos import (
    DemoBusy,
    DemoError,
    DemoLimitExceeded,
    ParamError,
    UnknownDemo,
    run_demo,
)

from .tiny_demos import TINY_REGISTRY


def run_tiny(slug: str, slot_dir, **limits):
    return run_demo(slug, {"n": "3"}, registry=TINY_REGISTRY, slot_dir=slot_dir, **limits)


def test_it_runs_a_demo_in_a_worker_process(tmp_path):
    run = run_tiny("echo", tmp_path)

    assert run["slug"] == "echo"
    assert run["version"] == 1
    assert run["params"] == {"n": 3, "seed": 0}
    assert run["result"]["metrics"][0]["value"] == 3
    assert run["elapsed_s"] > 0


def test_it_runs_a_real_demo_through_the_worker(tmp_path):
    run = run_demo("pipeline-bubble", {"P": 4, "M": 8}, slot_dir=tmp_path)

    assert run["result"]["agreement"][0]["holds"] is True


def test_it_stops_an_endless_loop_at_the_cpu_limit(tmp_path):
    with pytest.raises(DemoLimitExceeded, match=r"CPU time \(1 s CPU limit\)") as caught:
        run_tiny("spin", tmp_path, cpu_seconds=1, wall_seconds=10)

    assert caught.value.limit == "cpu"


def test_it_stops_a_sleeping_demo_at_the_wall_clock_limit(tmp_path):
    with pytest.raises(DemoLimitExceeded, match=r"out of time \(1 s wall-clock limit\)") as caught:
        run_tiny("sleep", tmp_path, wall_seconds=1)

    assert caught.value.limit == "wall"


def test_it_stops_a_memory_hog_at_the_memory_limit(tmp_path):
    with pytest.raises(DemoLimitExceeded, match=r"out of memory \(1.5 GB memory limit\)") as caught:
        run_tiny("hog", tmp_path)

    assert caught.value.limit == "memory"


def test_it_reports_a_failing_demo_without_its_traceback(tmp_path):
    with pytest.raises(DemoError) as caught:
        run_tiny("boom", tmp_path)

    assert str(caught.value) == "the demo failed: RuntimeError: boom"


def test_it_refuses_when_every_slot_is_taken_and_recovers_after(tmp_path):
    held = [open(tmp_path / f"slot-{i}.lock", "a") for i in range(2)]
    for handle in held:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)

    with pytest.raises(DemoBusy) as caught:
        run_tiny("echo", tmp_path, max_concurrent=2)
    assert caught.value.retry_after == 5

    held[1].close()
    assert run_tiny("echo", tmp_path, max_concurrent=2)["params"]["n"] == 3
    held[0].close()


def test_it_releases_its_slot_after_a_failed_run(tmp_path):
    with pytest.raises(DemoError):
        run_tiny("boom", tmp_path, max_concurrent=1)

    assert run_tiny("echo", tmp_path, max_concurrent=1)["result"]["metrics"][0]["value"] == 3


def test_it_validates_before_starting_a_worker(tmp_path):
    with pytest.raises(ParamError, match="n must be between 0 and 10"):
        run_demo("echo", {"n": 11}, registry=TINY_REGISTRY, slot_dir=tmp_path)
    with pytest.raises(UnknownDemo, match="unknown demo 'nope'"):
        run_demo("nope", {}, slot_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []  # no slot was even taken


def test_it_passes_the_demos_progress_on_while_it_runs(tmp_path):
    heard = []

    run = run_demo(
        "steps",
        {"n": 4},
        registry=TINY_REGISTRY,
        slot_dir=tmp_path,
        on_progress=lambda fraction, message: heard.append((fraction, message)),
    )

    assert run["result"]["metrics"][0]["value"] == 4
    # Sampled every half second (a heartbeat even when nothing new came): the start, then the
    # latest "step i of 4" report, never going back.
    expected = [(0.0, "started")] + [((i - 1) / 4, f"step {i} of 4") for i in range(1, 5)]
    distinct = list(dict.fromkeys(heard))
    assert distinct[0] == (0.0, "started")
    assert len(distinct) >= 2
    assert sorted(distinct, key=expected.index) == distinct
    assert set(distinct) <= set(expected)


def test_a_real_demo_reports_its_sweep_points(tmp_path):
    heard = []

    run_demo(
        "data-parallel",
        {"steps": 100, "P": 64, "B": 1024, "d": 1024},
        slot_dir=tmp_path,
        on_progress=lambda fraction, message: heard.append((fraction, message)),
    )

    messages = [message for _, message in heard if message.startswith("step ")]
    assert messages and all(message.endswith(" of 100") for message in messages)
    fractions = [fraction for fraction, _ in heard]
    assert fractions == sorted(fractions)
