# ruff: noqa: E501  (log excerpts keep the real lines whole)
"""The run-log parser on excerpts shaped like the real logs of each format."""

from catalogue.mlperf.logs import RunLog, parse_log, progress_unit

V05 = b"""\
:::MLPv0.5.0 resnet 1541659705.672368050 (<string>:1) run_clear_caches
:::MLPv0.5.0 resnet 1541660379.583660841 (resnet/resnet_main.py:523) run_start
:::MLPv0.5.0 resnet 1541660379.783846378 (resnet/resnet_main.py:594) input_batch_size: 1024
:::MLPv0.5.0 resnet 1541660379.785486698 (resnet/resnet_main.py:684) eval_target: 0.749
:::MLPv0.5.0 resnet 1541671198.427093267 (in_memory_eval.py:262) eval_accuracy: {"epoch": 60, "value": 0.7482706904411316}
:::MLPv0.5.0 resnet 1541671385.128942966 (in_memory_eval.py:262) eval_accuracy: {"epoch": 61, "value": 0.7503255009651184}
:::MLPv0.5.0 resnet 1541671385.130687952 (in_memory_eval.py:270) run_stop: {"success": "true"}
:::MLPv0.5.0 resnet 1541671387.829762459 (resnet/resnet_main.py:776) run_final
"""

V06 = b"""\
:::MLL 1558635960.488 run_start: {"value": null, "metadata": {"file": "train_imagenet.py", "lineno": 190}}
:::MLL 1558635960.500 global_batch_size: {"value": 6240, "metadata": {"file": "fit.py", "lineno": 3}}
2019-05-23 18:26:00,488 Node[0] start with arguments Namespace(batch_size=52)
:::MLL 1558636057.588 eval_accuracy: {"value": 0.75602, "metadata": {"epoch_num": 82, "file": "common/fit.py", "lineno": 970}}
:::MLL 1558636062.045 eval_accuracy: {"value": 0.76078, "metadata": {"epoch_num": 86, "file": "common/fit.py", "lineno": 970}}
:::MLL 1558636062.045 run_stop: {"value": null, "metadata": {"status": "success", "file": "common/fit.py", "lineno": 977}}
"""

MLLOG = b"""\
0: :::MLLOG {"namespace": "", "time_ms": 1683425409481, "event_type": "POINT_IN_TIME", "key": "submission_benchmark", "value": "bert", "metadata": {"file": "run_pretraining.py", "lineno": 1270}}
0: :::MLLOG {"namespace": "", "time_ms": 1683425409482, "event_type": "POINT_IN_TIME", "key": "global_batch_size", "value": 3072, "metadata": {"file": "run_pretraining.py", "lineno": 1274}}
0: :::MLLOG {"namespace": "", "time_ms": 1683425559155, "event_type": "INTERVAL_START", "key": "run_start", "value": null, "metadata": {"file": "run_pretraining.py", "lineno": 1607}}
1: :::MLLOG {"namespace": "", "time_ms": 1683425559160, "event_type": "INTERVAL_START", "key": "run_start", "value": null, "metadata": {"file": "run_pretraining.py", "lineno": 1607}}
0: :::MLLOG {"namespace": "", "time_ms": 1683425561033, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.3734, "metadata": {"file": "run_pretraining.py", "lineno": 1829, "epoch_num": 175256}}
0: :::MLLOG {"namespace": "", "time_ms": 1683425562000, "event_type": "POINT_IN_TIME", "key": "tracked_stats", "value": {"throughput": 61234.5}, "metadata": {"file": "run_pretraining.py", "step": 10}}
0: :::MLLOG {"namespace": "", "time_ms": 1683425679155, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.7203, "metadata": {"file": "run_pretraining.py", "lineno": 1829, "epoch_num": 2625256}}
0: :::MLLOG {"namespace": "", "time_ms": 1683425679155, "event_type": "INTERVAL_END", "key": "run_stop", "value": null, "metadata": {"file": "run_pretraining.py", "lineno": 1900, "status": "success"}}
0: :::MLLOG {"namespace": "", "time_ms": 1683425680000, "event_type": "POINT_IN_TIME", "key": "tracked_stats", "value": {"throughput": 1.0}, "metadata": {"file": "run_pretraining.py"}}
"""


def test_it_reads_a_v05_log():
    log = parse_log(V05)
    assert (log.format, log.status, log.benchmark) == ("mlp05", "success", "resnet")
    assert log.start == 1541660379.583660841
    assert log.minutes == round((1541671385.130687952 - 1541660379.583660841) / 60, 4)
    assert (log.global_batch, log.at_target) == (1024, 61.0)


def test_it_reads_a_v05_stop_without_status_by_the_target():
    log = parse_log(V05.replace(b'run_stop: {"success": "true"}', b"run_stop"))
    assert log.status == "success"
    assert "eval_target" in log.note


def test_it_reads_a_v05_failed_run():
    log = parse_log(V05.replace(b'{"success": "true"}', b'{"success": false}'))
    assert log.status == "aborted"


def test_it_reads_a_v06_log():
    log = parse_log(V06)
    assert (log.format, log.status, log.global_batch, log.at_target) == (
        "mll",
        "success",
        6240,
        86.0,
    )
    assert log.minutes == round((1558636062.045 - 1558635960.488) / 60, 4)


def test_it_reads_a_v06_status_written_as_a_python_dict():
    text = V06.replace(
        b'{"value": null, "metadata": {"status": "success", "file": "common/fit.py", "lineno": 977}}',
        b"{\"value\": null, \"metadata\": {'lineno': 53, 'status': 'aborted'}}",
    )
    assert parse_log(text).status == "aborted"


def test_it_reads_an_mllog_log_with_the_first_start_and_the_last_throughput_before_stop():
    log = parse_log(MLLOG)
    assert (log.format, log.status, log.benchmark) == ("mllog", "success", "bert")
    assert (log.start, log.stop) == (1683425559.155, 1683425679.155)
    assert log.minutes == 2.0
    assert (log.global_batch, log.at_target, log.throughput) == (3072, 2625256.0, 61234.5)
    assert progress_unit("bert", log) == "samples"


def test_it_calls_a_run_without_stop_aborted():
    log = parse_log(b"\n".join(line for line in MLLOG.splitlines() if b"run_stop" not in line))
    assert (log.status, log.note, log.minutes) == ("aborted", "no run_stop line", None)


def test_it_calls_an_aborted_status_aborted():
    log = parse_log(MLLOG.replace(b'"status": "success"', b'"status": "aborted"'))
    assert log.status == "aborted"


def test_it_says_why_a_log_in_no_known_format_is_unparsed():
    log = parse_log(b"MLPerf: resnet [06/13/19 00:30:56], run_start\n")
    assert log == RunLog(status="unparsed", note="no run_start line in a known MLPerf log format")


def test_it_counts_epochs_tokens_or_samples_by_benchmark():
    log = RunLog(at_target=3.0, counted_by="epoch_num")
    assert [progress_unit(b, log) for b in ("resnet", "gpt3", "llama31_405b")] == [
        "epochs",
        "tokens",
        "samples",
    ]
    assert progress_unit("resnet", RunLog()) == ""


def test_it_reads_mllog_times_in_seconds():
    text = (
        b':::MLLOG {"namespace": "main", "time_s": 10.0, "key": "run_start", "value": null}\n'
        b':::MLLOG {"namespace": "main", "time_s": 70.0, "key": "run_stop", "value": null, '
        b'"metadata": {"status": "success"}}\n'
    )
    assert parse_log(text).minutes == 1.0


def test_it_counts_steps_where_a_log_gives_only_steps():
    text = MLLOG.replace(b'"epoch_num": 2625256', b'"step_num": 1750, "metric": "FID"')
    log = parse_log(text)
    assert (log.at_target, progress_unit("stable_diffusion", log)) == (1750.0, "steps")
