"""One MLPerf system's documents: the system with its scores (/results/mlperf/systems/<id>/) and
one of its benchmarks with every run and a link to its log at its commit
(/results/mlperf/systems/<id>/<benchmark>/); the JSON twins answer the same documents."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from catalogue.mlperf.fixture import COLUMNS
from catalogue.models import MlperfRun, MlperfSystem
from explorer.planner.public import prediction_for
from explorer.web.links import link

from .rows import all_rows

SYSTEM_FIELDS = COLUMNS["systems"][1:]  # the fixture's columns of a system, its round apart


def _system(pk: int) -> MlperfSystem:
    # A path's digits can exceed the database's integers: no such system, not an error.
    system = None
    if 0 < pk < 2**31:
        system = MlperfSystem.objects.select_related("round").filter(pk=pk).first()
    if system is None:
        raise Http404(f"no MLPerf system {pk}")
    return system


def _system_fields(system: MlperfSystem) -> dict[str, Any]:
    rnd = system.round
    return {name: getattr(system, name) for name in SYSTEM_FIELDS} | {
        "id": system.pk,
        "round": rnd.version,
        "repository": rnd.repository,
        "commit": rnd.commit,
        "source_url": rnd.file_url(system.path),
        "url": link("mlperf:mlperf-system", system.pk),
        "api_url": link("mlperf:api-mlperf-system", system.pk),
    }


def system_document(pk: int) -> dict[str, Any]:
    system = _system(pk)
    scores = [row for row in all_rows() if row["system_pk"] == system.pk]
    return {"system": _system_fields(system), "scores": scores}


def _run(run: MlperfRun, system: MlperfSystem) -> dict[str, Any]:
    return {
        "index": run.index,
        "status": run.status,
        "minutes": run.minutes,
        "start": run.start,
        "stop": run.stop,
        "global_batch": run.global_batch,
        "at_target": run.at_target,
        "at_target_unit": run.at_target_unit,
        "throughput": run.throughput,
        "throughput_unit": run.throughput_unit,
        "note": run.note,
        "path": run.path,
        "log_url": system.round.file_url(run.path),
    }


def score_document(pk: int, benchmark: str) -> dict[str, Any]:
    system = _system(pk)
    score = next(
        (r for r in all_rows() if r["system_pk"] == system.pk and r["benchmark"] == benchmark),
        None,
    )
    runs = MlperfRun.objects.filter(system=system, benchmark__slug=benchmark).order_by("index")
    chosen = [_run(run, system) for run in runs]
    if score is None and not chosen:
        raise Http404(f"no {benchmark!r} result for this system")
    return {
        "system": _system_fields(system),
        "benchmark": benchmark,
        "score": score,
        "runs": chosen,
        "api_url": link("mlperf:api-mlperf-score", system.pk, benchmark),
        # The planner's prediction of this score (fixtures/planner_accuracy.json), if any.
        "prediction": prediction_for(system.round.version, system.system_id, benchmark),
        "accuracy_url": link("planner:accuracy"),
    }
