"""Read one MLPerf Training run log (`result_<n>.txt`): when it started and stopped, whether it
reached the target, its global batch, the epochs or samples at its last evaluation and the last
logged throughput. Pure: bytes in, a `RunLog` out.

Three line formats occur in mlcommons/training_results_v*, anywhere in a line (ranks and launchers
prefix them):
- v0.5: `:::MLPv0.5.0 <benchmark> <unix s> (<file>:<line>) <key>[: <value>]`, run_stop's value
  `{"success": "true"}`, eval_accuracy's value `{"epoch": n, "value": x}`, `input_batch_size`;
- v0.6: `:::MLL <unix s> <key>: {"value": ..., "metadata": {...}}`, run_stop's metadata status;
- v0.7 on: `:::MLLOG {"time_ms": ..., "key": ..., "value": ..., "metadata": {...}}` (one v0.7
  submission writes `time_s`).
The first run_start and the first run_stop count (every rank may print them). Only lines with the
keys read here are decoded, so that a 2 MB log costs one regular-expression scan.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

KEYS = (
    "run_start",
    "run_stop",
    "global_batch_size",
    "input_batch_size",
    "eval_accuracy",
    "throughput",
    "tracked_stats",
    "submission_benchmark",
    "submission_division",
    "eval_target",
)
_KEYS = "|".join(KEYS)
MLLOG = re.compile(rb':::MLLOG (\{[^\n]*?"key": "(?:' + _KEYS.encode() + rb')"[^\n]*)')
MLL = re.compile(rb":::MLL ([0-9.]+) (" + _KEYS.encode() + rb"): ?([^\n]*)")
MLP05 = re.compile(
    rb":::MLPv0\.5\.0 (\S+) ([0-9.]+) \([^)\n]*\) (" + _KEYS.encode() + rb")(?:: ?([^\n]*))?"
)
PY_STATUS = re.compile(rb"""['"]status['"]: ?['"](\w+)['"]""")
# Benchmarks whose logs count samples (or tokens) rather than epochs at each evaluation
# (training_rules.adoc, "Epoch reporting").
SAMPLE_COUNTED = {
    "bert",
    "stable_diffusion",
    "llama2_70b_lora",
    "llama31_8b",
    "llama31_405b",
    "flux1",
}
TOKEN_COUNTED = {"gpt3"}
# Where an evaluation says how far training went; v3.1's Stable Diffusion logs give steps only.
PROGRESS_KEYS = ("samples_count", "epoch_num", "step_num")


@dataclass
class RunLog:
    format: str = ""
    benchmark: str = ""
    start: float | None = None
    stop: float | None = None
    status: str = ""  # success | aborted | unparsed
    global_batch: int | None = None
    at_target: float | None = None
    throughput: float | None = None
    note: str = ""
    accuracy: float | None = None
    target: float | None = None
    counted_by: str = ""  # the metadata key at_target was read from
    division: str = ""  # submission_division, when the log writes it

    def reached_target(self) -> bool:
        known = self.accuracy is not None and self.target is not None
        return known and self.accuracy >= self.target

    @property
    def minutes(self) -> float | None:
        if self.start is None or self.stop is None:
            return None
        return round((self.stop - self.start) / 60, 4)


@dataclass
class _Event:
    time: float
    key: str
    value: object
    metadata: dict


def parse_log(data: bytes) -> RunLog:
    """The run's summary; `status` is "unparsed" with a note when no run_start is found."""
    for name, events in (("mllog", _mllog), ("mll", _mll), ("mlp05", _mlp05)):
        found = list(events(data))
        if any(event.key == "run_start" for event in found):
            log = _summarise(found)
            log.format = name
            return log
    return RunLog(status="unparsed", note="no run_start line in a known MLPerf log format")


def _mllog(data: bytes):
    for match in MLLOG.finditer(data):
        try:
            record = json.loads(match.group(1))
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        # time_ms everywhere but one v0.7 submission, which logs time_s.
        seconds = _seconds(record)
        if seconds is not None:
            metadata = record.get("metadata")
            yield _Event(
                seconds,
                record.get("key", ""),
                record.get("value"),
                metadata if isinstance(metadata, dict) else {},
            )


def _seconds(record: dict) -> float | None:
    if isinstance(record.get("time_ms"), int | float):
        return record["time_ms"] / 1000
    if isinstance(record.get("time_s"), int | float):
        return float(record["time_s"])
    return None


def _mll(data: bytes):
    for match in MLL.finditer(data):
        payload = _json(match.group(3))
        if not isinstance(payload, dict):
            # Some v0.6 logs print the metadata as a Python dict (single quotes): read the
            # status alone from it rather than evaluating anything.
            status = PY_STATUS.search(match.group(3))
            payload = {"metadata": {"status": status.group(1).decode()} if status else {}}
        metadata = payload.get("metadata")
        yield _Event(
            float(match.group(1)),
            match.group(2).decode(),
            payload.get("value"),
            metadata if isinstance(metadata, dict) else {},
        )


def _mlp05(data: bytes):
    for match in MLP05.finditer(data):
        key = match.group(3).decode()
        value = _json(match.group(4) or b"")
        metadata: dict = {"benchmark": match.group(1).decode()}
        if key == "run_stop" and isinstance(value, dict):
            success = str(value.get("success")).lower() == "true"
            metadata["status"] = "success" if success else "aborted"
        if key == "eval_accuracy" and isinstance(value, dict):
            metadata["epoch_num"] = value.get("epoch")
            value = value.get("value")
        yield _Event(float(match.group(2)), key, value, metadata)


def _json(raw: bytes):
    text = raw.decode("utf-8", "replace").strip()
    try:
        return json.loads(text)
    except ValueError:
        return text


def _summarise(events: list[_Event]) -> RunLog:
    log = RunLog()
    for event in events:
        _apply(log, event)
    if log.stop is None:
        log.status, log.note = "aborted", "no run_stop line"
    elif not log.status and log.reached_target():
        log.status = "success"
        log.note = "run_stop without status; last eval_accuracy >= eval_target"
    elif log.status not in ("success", "aborted"):
        log.note = f"run_stop status {log.status!r}"
        log.status = "aborted"
    return log


def _apply(log: RunLog, event: _Event) -> None:
    key, value, metadata = event.key, event.value, event.metadata
    if key == "run_start" and log.start is None:
        log.start = event.time
        log.benchmark = log.benchmark or str(metadata.get("benchmark", ""))
    elif key == "run_stop" and log.stop is None and log.start is not None:
        log.stop = event.time
        log.status = str(metadata.get("status", "")).lower()
    elif key == "submission_benchmark" and isinstance(value, str):
        log.benchmark = value
    elif key == "submission_division" and isinstance(value, str):
        log.division = value.strip().lower()
    elif key in ("global_batch_size", "input_batch_size") and log.global_batch is None:
        log.global_batch = _int(value)
    elif key == "eval_accuracy" and log.stop is None:
        for name in PROGRESS_KEYS:
            if isinstance(metadata.get(name), int | float):
                log.at_target, log.counted_by = float(metadata[name]), name
                break
        if isinstance(value, int | float):
            log.accuracy = float(value)
    elif key == "eval_target" and isinstance(value, int | float):
        log.target = float(value)
    elif key == "throughput" and log.stop is None and isinstance(value, int | float):
        log.throughput = float(value)
    elif key == "tracked_stats" and log.stop is None and isinstance(value, dict):
        if isinstance(value.get("throughput"), int | float):
            log.throughput = float(value["throughput"])


def _int(value) -> int | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() and number > 0 else None


def progress_unit(benchmark: str, log: RunLog) -> str:
    """What `at_target` counts for this benchmark's logs."""
    if log.at_target is None:
        return ""
    if log.counted_by != "epoch_num":
        return {"samples_count": "samples", "step_num": "steps"}[log.counted_by]
    if benchmark in TOKEN_COUNTED:
        return "tokens"
    return "samples" if benchmark in SAMPLE_COUNTED else "epochs"
