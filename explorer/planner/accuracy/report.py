"""The planner's accuracy as the pages and the API show it: the calibration's measured document
(calibration.accuracy(), built by fixtures/build/planner_accuracy.py) with each held-out
prediction linked to its MLPerf score's page (one query for all of them), its errors as
percentages, the chart of predicted against measured throughput, and a short summary for
/planner/, /results/ and /results/mlperf/.

The document is kept once per catalogue version: the score pages' ids are the database's."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

from catalogue.devices import devices
from catalogue.models import MlperfSystem
from catalogue.version import per_version
from explorer.web.links import link
from explorer.web.plotly_text import marker_traces
from explorer.web.script_json import script_json

from . import calibration
from .calibration.families import model_family

# The issue's targets for held-out throughput errors (issue 46, "Figures to reach"; issue 38's
# were 20 % and 50 %).
TARGET_MEDIAN = 0.10
TARGET_P90 = 0.30
ANY = "*"  # the calibration's "every benchmark", "every family", "every device"
ScoreKey = tuple[str, str, str, str]  # (round, submitter, system_id, benchmark)


def score_urls(predictions: list[dict[str, Any]]) -> dict[ScoreKey, str]:
    """Each prediction's score page, /results/mlperf/systems/<pk>/<benchmark>/, in one query."""
    wanted = {(p["round"], p["submitter"], p["system_id"]) for p in predictions}
    if not wanted:
        return {}
    rows = MlperfSystem.objects.filter(system_id__in={key[2] for key in wanted}).values_list(
        "pk", "round__version", "submitter", "system_id"
    )
    systems = {(version, submitter, system): pk for pk, version, submitter, system in rows}
    urls = {}
    for p in predictions:
        pk = systems.get((p["round"], p["submitter"], p["system_id"]))
        if pk is not None:
            key = (p["round"], p["submitter"], p["system_id"], p["benchmark"])
            urls[key] = link("mlperf:mlperf-score", pk, p["benchmark"])
    return urls


def percentile(values: list[float], fraction: float) -> float | None:
    """Linear between the closest ranks (numpy's default); None without values."""
    if not values:
        return None
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(source: dict[str, Any]) -> dict[str, Any]:
    """All held-out predictions at once: how many, their median and 90th-percentile error
    (|predicted / measured - 1|; the calibration's own row for every benchmark and family where
    it has one), and the scores predicted of all scores."""
    errors = [abs(p["ratio"] - 1) for p in source["predictions"] if p["held_out"]]
    every = next((r for r in source["errors"] if r["benchmark"] == r["family"] == ANY), None)
    median = every["median"] if every else statistics.median(errors) if errors else None
    p90 = every["p90"] if every else percentile(errors, 0.9)
    return {
        "status": source["status"],
        "held_out": every["n"] if every else len(errors),
        "median": median,
        "p90": p90,
        "shown_median": _percent(median),
        "shown_p90": _percent(p90),
        "predicted": sum(row["predicted"] for row in source["coverage"]),
        "scores": sum(row["scores"] for row in source["coverage"]),
        "fitted_on": source["split"]["fitted_on"],
        "held_out_rounds": source["split"]["held_out"],
        "systematic": len(source["systematic"]),
    }


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f} %"


def _any(value: str, every: str) -> str:
    return every if value == ANY else value


def error_rows(source: dict[str, Any]) -> list[dict[str, Any]]:
    """Per benchmark and strategy family, "*" (every one) shown in words and first."""
    return [
        row
        | {
            "shown_benchmark": _any(row["benchmark"], "every benchmark"),
            "shown_family": _any(row["family"], "every family"),
            "shown_median": _percent(row["median"]),
            "shown_p90": _percent(row["p90"]),
            "over_target": row["median"] > TARGET_MEDIAN or row["p90"] > TARGET_P90,
        }
        for row in sorted(
            source["errors"],
            key=lambda r: (r["benchmark"] != ANY, r["benchmark"], r["family"] != ANY, r["family"]),
        )
    ]


def coverage_rows(source: dict[str, Any]) -> list[dict[str, Any]]:
    reasons: dict[str, list[dict]] = defaultdict(list)
    for row in source["not_predicted"]:
        reasons[row["benchmark"]].append(row)
    return [
        row
        | {
            "shown_share": _percent(row["predicted"] / row["scores"] if row["scores"] else None),
            "reasons": sorted(reasons[row["benchmark"]], key=lambda r: (-r["count"], r["reason"])),
        }
        for row in sorted(source["coverage"], key=lambda r: r["benchmark"])
    ]


def device_names() -> dict[str, str]:
    return {slug: device.name for slug, device in devices().items()}


def efficiency_rows(source: dict[str, Any], fitted_on: str) -> list[dict[str, Any]]:
    """The fitted values on `fitted_on` ("fit split": what the held-out predictions used; "all":
    the planner's default), every device and family first."""
    names = device_names()
    rows = [row for row in source["efficiency"] if row["fitted_on"] == fitted_on]
    return [
        row
        | {
            "device_name": "every device" if row["device"] == ANY else names.get(row["device"]),
            "shown_family": _any(row["family"], "every family"),
            # B, the machine balance: the device's, or the median of the row's scores
            "shown_balance": f"{row['balance'] * 1000:.2f}" if row.get("balance") else "–",
        }
        for row in sorted(
            rows, key=lambda r: (r["device"] != ANY, r["family"] != ANY, r["family"], r["device"])
        )
    ]


def published_rows(source: dict[str, Any]) -> list[dict[str, Any]]:
    """The published runs beside the planner, predicted ones first (by paper, then error)."""
    runs = source.get("published", {}).get("runs", [])
    shown = [
        run
        | {
            "shown_layout": " × ".join(
                f"{name} {run['layout'][name]}"
                for name in ("tp", "pp", "dp", "cp")
                if run["layout"].get(name)
            ),
            "shown_error": _percent(abs(run["ratio"] - 1)) if run.get("ratio") else "—",
            "within": bool(run.get("ratio")) and abs(run["ratio"] - 1) <= 0.15,
        }
        for run in runs
    ]
    return sorted(shown, key=lambda r: (not r.get("ratio"), r["paper"], r["id"]))


def published_summary(source: dict[str, Any]) -> dict[str, Any]:
    """The published runs' error figures as the pages show them (all runs, per paper)."""
    found = source.get("published", {}).get("summary", {})
    every = found.get("all") or {}
    papers = [
        figures | {"paper": paper, "shown_median": _percent(figures.get("median"))}
        for paper, figures in sorted((found.get("papers") or {}).items())
    ]
    return every | {
        "shown_median": _percent(every.get("median")),
        "shown_p90": _percent(every.get("p90")),
        "papers": papers,
        "not_predicted": found.get("not_predicted", 0),
    }


def _label(p: dict[str, Any]) -> str:
    return (
        f"{p['submitter']} {p['system_id']} ({p['round']}), {p['benchmark']}: "
        f"{p['accelerators']} × {p['device']}, {p['family']}"
    )


def _traces(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_benchmark = sorted(points, key=lambda p: p["benchmark"])
    return marker_traces(
        by_benchmark,
        "benchmark",
        "measured_throughput",
        "predicted_throughput",
        _label,
        "%{text}<br>measured %{x:.4g}, predicted %{y:.4g} samples/s<extra></extra>",
    )


def _line(name: str, factor: float, low: float, high: float, dash: str) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": [low, high],
        "y": [factor * low, factor * high],
        "line": {"color": "#666", "dash": dash, "width": 1},
        "hoverinfo": "skip",
    }


def figure(points: list[dict[str, Any]]) -> dict[str, Any]:
    """Predicted against measured throughput, log-log, each point a held-out run (its score's
    page in `customdata`), the diagonal y = x and the issue's ±50 % beside it."""
    values = [p[k] for p in points for k in ("measured_throughput", "predicted_throughput")]
    low, high = (min(values) / 2, max(values) * 2) if values else (1, 10)
    traces = _traces(points)
    return {
        "data": [
            *traces,
            _line("predicted = measured", 1, low, high, "solid"),
            _line("±50 %", 1.5, low, high, "dot"),
            _line("±50 %", 0.5, low, high, "dot") | {"showlegend": False},
        ],
        "layout": {
            "xaxis": {"title": {"text": "measured throughput (samples/s, log)"}, "type": "log"},
            "yaxis": {"title": {"text": "predicted throughput (samples/s, log)"}, "type": "log"},
            "legend": {"orientation": "h", "x": 0, "y": -0.2, "yanchor": "top"},
            "height": 480 + 12 * len(traces),
            "margin": {"l": 60, "r": 10, "t": 10, "b": 40},
        },
    }


def _document() -> dict[str, Any]:
    source = calibration.accuracy()
    urls = score_urls(source["predictions"])
    predictions = [
        p | {"url": urls.get((p["round"], p["submitter"], p["system_id"], p["benchmark"]), "")}
        for p in source["predictions"]
    ]
    held_out = [p for p in predictions if p["held_out"]]
    return {
        **source,
        "predictions": predictions,
        "summary": summary(source),
        "published_summary": published_summary(source),
        "page_url": link("planner:accuracy"),
        "api_url": link("planner:api-accuracy"),
        "figure_text": script_json(figure(held_out)),
    }


def document() -> dict[str, Any]:
    """The accuracy document with its links and chart, once per catalogue version."""
    return per_version("planner-accuracy", _document, in_process=True)


def with_score_urls(predictions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The predictions, each with `url`, its score's page ("" where the database has none)."""
    urls = _urls_by_score()
    return [p | {"url": urls.get(_key(p), "")} for p in predictions]


def _short() -> dict[str, Any]:
    source = calibration.accuracy()
    return summary(source) | {
        "errors": error_rows(source),
        "systematic_list": source["systematic"],
        "url": link("planner:accuracy"),
        "api_url": link("planner:api-accuracy"),
    }


def short() -> dict[str, Any]:
    """The summary and the rows the other pages' short statement shows, with its links: no
    query (the calibration's document alone), kept with the catalogue's version."""
    return per_version("planner-accuracy-short", _short, in_process=True)


RUNS_LISTED = 10  # the comparable runs a plan lists (the nearest); n counts them all


def _key(p: dict[str, Any]) -> ScoreKey:
    return (p["round"], p["submitter"], p["system_id"], p["benchmark"])


def _urls_by_score() -> dict[ScoreKey, str]:
    return per_version(
        "planner-accuracy-urls",
        lambda: {_key(p): p["url"] for p in document()["predictions"]},
        in_process=True,
    )


def for_query(device: str | None, network: str, devices: int) -> dict[str, Any]:
    """For a plan: the measured runs like it (same device and model family, a similar number
    of devices) and the range of the peak they reached; the RUNS_LISTED nearest in scale, each
    linked to its score's page (all of them are on the accuracy page)."""
    family = model_family(network)
    found = calibration.comparable_runs(device, family, devices)
    urls = _urls_by_score()
    # The runs nearest the plan's scale first, the newest first among them.
    newest = sorted(found["runs"], key=lambda p: p["round"], reverse=True)
    nearest = sorted(
        newest, key=lambda p: abs(math.log(max(p["accelerators"], 1) / max(devices, 1)))
    )
    runs = [
        p | {"url": urls.get(_key(p), ""), "shown_fraction": _percent(p.get("mfu"))}
        for p in nearest[:RUNS_LISTED]
    ]
    low, high = found["low"], found["high"]
    return {
        "device": device,
        "family": family,
        "devices": devices,
        "low": low,
        "high": high,
        "shown_range": "—" if low is None else f"{100 * low:.0f}–{100 * high:.0f} %",
        "n": found["n"],
        "widened": found.get("widened", ""),
        "runs": runs,
        "page_url": link("planner:accuracy"),
        "mlperf": {
            key: value
            for key, value in short().items()
            if key in ("held_out", "median", "p90", "shown_median", "shown_p90")
        },
        "published": {
            key: value
            for key, value in published_summary(calibration.accuracy()).items()
            if key in ("n", "median", "p90", "shown_median", "shown_p90", "within_15", "bias")
        },
    }
