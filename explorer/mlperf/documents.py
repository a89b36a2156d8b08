"""The MLPerf Training document of the results room (/results/mlperf/ and its twins
/api/results/mlperf/ and /api/results/mlperf/csv/): the scores that pass the filters, sorted and
paged, each with its derived figures, and the charts of the chosen benchmark.

Filters: the papers' results' where they apply (?technique= ?network= ?devices_min=
?devices_max=) and ?round= ?benchmark= ?accelerator= (a device's slug) ?submitter= ?division=;
?ordering= a column or a derived figure, "-" first for descending; ?page= ?page_size=.
"""

from __future__ import annotations

import math
from typing import Any

from django import forms

from explorer.web.choices import benchmark_choices, round_choices, technique_choices
from explorer.web.errors import ApiError
from explorer.web.forms import FastSelect, QueryForm, WordChoiceField
from explorer.web.links import link

from .charts import chart_data
from .rows import all_rows

DERIVED = ("samples_per_s_per_accelerator", "flops_per_accelerator", "fraction_of_peak")
SORT_KEYS = ("round", "minutes", "accelerators", "nodes", *DERIVED, "scaling_efficiency")
ORDERING = [(k, k) for k in SORT_KEYS] + [(f"-{k}", f"-{k}") for k in SORT_KEYS]
SLUG = r"^[-a-zA-Z0-9_.]+\Z"
PAGE_SIZE, MAX_PAGE_SIZE = 100, 500
CSV_COLUMNS = [
    "round",
    "submitter",
    "division",
    "system",
    "nodes",
    "accelerators",
    "accelerator",
    "device",
    "benchmark",
    "minutes",
    "rule",
    "rcp",
    "runs",
    *DERIVED,
    "scaling_efficiency",
    "source_url",
]


class MlperfForm(QueryForm):
    # Labels in words for the page's form; technique, round and benchmark are lists read from
    # the data (the schema's enums: explorer/web/schema.py).
    technique = WordChoiceField(
        widget=FastSelect, required=False, choices=technique_choices, label="Technique"
    )
    network = forms.CharField(required=False, max_length=200, label="Network")
    round = WordChoiceField(
        widget=FastSelect,
        required=False,
        choices=round_choices,
        label="Round",
        help_text="e.g. v4.0",
    )
    benchmark = WordChoiceField(
        widget=FastSelect,
        required=False,
        choices=benchmark_choices,
        label="Benchmark",
        help_text="e.g. resnet (the charts show resnet when none is chosen)",
    )
    accelerator = forms.SlugField(
        required=False, max_length=80, label="Accelerator", help_text="a device's slug"
    )
    submitter = forms.CharField(required=False, max_length=100, label="Submitter")
    division = forms.ChoiceField(
        widget=FastSelect,
        required=False,
        choices=[("", "either division"), ("closed", "closed"), ("open", "open")],
        label="Division",
    )
    devices_min = forms.IntegerField(
        required=False, min_value=1, max_value=10**7, label="Accelerators, at least"
    )
    devices_max = forms.IntegerField(
        required=False, min_value=1, max_value=10**7, label="Accelerators, at most"
    )
    ordering = WordChoiceField(
        widget=FastSelect,
        required=False,
        choices=[("", "newest round, then fastest")] + ORDERING,
        label="Order by",
    )
    page = forms.IntegerField(required=False, min_value=1, max_value=10**6, label="Page")
    page_size = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_PAGE_SIZE, label="Scores per page"
    )


def figure(row: dict, name: str) -> float | None:
    return next((f["value"] for f in row["figures"] if f["name"] == name), None)


def value_of(row: dict, key: str) -> Any:
    if key == "round":
        return row["round_order"]
    return row[key] if key in row else figure(row, key)


def filtered(rows: list[dict], data: dict) -> list[dict]:
    """The rows that pass the given filters (a test per filter given: the list is 5,000 rows
    long, and is filtered on each request)."""
    tests = [
        (lambda r, k=k: r[k] == data[k])
        for k in ("network", "round", "benchmark", "division")
        if data[k]
    ]
    if data["accelerator"]:
        tests.append(lambda r: r["device"] == data["accelerator"])
    if submitter := (data["submitter"] or "").casefold():
        tests.append(lambda r: r["submitter"].casefold() == submitter)
    if data["technique"]:
        tests.append(lambda r: data["technique"] in r["techniques"])
    if (low := data["devices_min"]) is not None:
        tests.append(lambda r: (r["accelerators"] or 0) >= low)
    if (high := data["devices_max"]) is not None:
        tests.append(lambda r: r["accelerators"] is not None and r["accelerators"] <= high)
    for test in tests:
        rows = [row for row in rows if test(row)]
    return rows


def ordered(rows: list[dict], ordering: str) -> list[dict]:
    """Sorted by a column or figure, rows without it last; by default newest round first, then
    the fastest score."""
    if not ordering:
        return sorted(rows, key=lambda r: (-r["round_order"], r["minutes"] or math.inf))
    key, descending = ordering.lstrip("-"), ordering.startswith("-")
    valued = [(value_of(r, key), r) for r in rows]
    having = [pair for pair in valued if pair[0] is not None]
    having.sort(key=lambda pair: pair[0], reverse=descending)
    return [r for _, r in having] + [r for value, r in valued if value is None]


def answer(query) -> dict[str, Any]:
    """The document for a query string (a QueryDict); ApiError when it is bad."""
    data = MlperfForm(query).checked()
    rows = all_rows()
    chosen = ordered(filtered(rows, data), data["ordering"])
    size = data["page_size"] or PAGE_SIZE
    pages = max(1, math.ceil(len(chosen) / size))
    page = data["page"] or 1
    if page > pages:
        raise ApiError({"page": [f"page {page} is beyond the last one ({pages})"]})
    encoded = query.urlencode()
    return {
        "count": len(chosen),
        "total": len(rows),
        "page": page,
        "pages": pages,
        "results": chosen[(page - 1) * size : page * size],
        "charts": chart_data(data["benchmark"] or "resnet"),
        "about": (
            "MLPerf Training scores read from the submitters' logs in MLCommons' repositories "
            "(each row links its system description at its commit; each run's log is on the "
            "score's page). A figure marked derived was computed here; its formula is beside it."
        ),
        "page_url": link("mlperf:mlperf", query=encoded),
        "api_url": link("mlperf:api-mlperf", query=encoded),
        "csv_url": link("mlperf:api-mlperf-csv", query=encoded),
    }


def csv_rows(document: dict) -> list[dict[str, Any]]:
    return [
        {name: value_of(row, name) if name in SORT_KEYS[4:] else row[name] for name in CSV_COLUMNS}
        for row in document["results"]
    ]
