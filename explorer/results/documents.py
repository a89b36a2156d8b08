"""The /results/ document (the page and its JSON twin /api/results/ show the same): the results
that pass the filters, sorted, each with its work, sources and the planner's prediction, the
summary per strategy family, and the record charts' points.

Filters: ?technique= ?network= ?family= ?status= ?year_min= ?year_max= ?devices_min=
?devices_max=; ?ordering= any figure (or year, devices, ratio), "-" first for descending.
"""

from __future__ import annotations

from typing import Any

from django import forms

from catalogue.bibtex import display_text
from catalogue.models import Result, StrategyFamily
from catalogue.source_kinds import source_kind
from catalogue.version import per_version
from explorer.web.choices import technique_choices
from explorer.web.forms import FastSelect, QueryForm, WordChoiceField
from explorer.web.links import link
from explorer.workloads.data import catalogue_formulas
from explorer.workloads.networks import networks

from .predictions import predict, summary

FIGURE_NAMES = (
    "time_to_train_s",
    "epochs",
    "accuracy",
    "samples_per_s",
    "step_time_s",
    "tokens_per_s",
    "flops_per_device",
    "aggregate_flops",
    "utilisation",
    "scaling_efficiency",
    "speedup",
    "device_hours",
    "total_flops",
    "machines",
    "machines_ratio",
)
SORT_KEYS = ("year", "devices", "ratio", *FIGURE_NAMES)
ORDERING_CHOICES = [(k, k) for k in SORT_KEYS] + [(f"-{k}", f"-{k}") for k in SORT_KEYS]
CSV_COLUMNS = [
    "id",
    "work",
    "year",
    "network",
    "dataset",
    "global_batch",
    "devices",
    "device_kind",
    "interconnect",
    "precision",
    "family",
    "strategy",
    *FIGURE_NAMES,
    "status",
    "source_url",
    "location",
    "predicted_time_to_train_s",
    "prediction_quantity",
    "ratio",
    "ratio_at_peak",
    "prediction_note",
]


class ResultsForm(QueryForm):
    # Labels in words: the page's form shows them (the parameter names stay in the URL).
    technique = WordChoiceField(
        widget=FastSelect,
        required=False,
        choices=technique_choices,
        label="Technique",
        help_text="a technique's slug",
    )
    network = forms.CharField(
        required=False, max_length=200, label="Network", help_text="e.g. resnet-50"
    )
    family = forms.ChoiceField(
        widget=FastSelect,
        required=False,
        choices=[("", "any family")] + StrategyFamily.choices,
        label="Strategy family",
    )
    status = forms.ChoiceField(
        widget=FastSelect,
        required=False,
        choices=[("", "read or recalled"), ("read", "read"), ("recalled", "recalled")],
        label="Source status",
    )
    year_min = forms.IntegerField(required=False, min_value=1900, max_value=2100, label="From year")
    year_max = forms.IntegerField(
        required=False, min_value=1900, max_value=2100, label="Up to year"
    )
    devices_min = forms.IntegerField(
        required=False, min_value=1, max_value=10**7, label="Devices, at least"
    )
    devices_max = forms.IntegerField(
        required=False, min_value=1, max_value=10**7, label="Devices, at most"
    )
    ordering = WordChoiceField(
        widget=FastSelect,
        required=False,
        choices=[("", "default order")] + ORDERING_CHOICES,
        label="Order by",
        help_text="a figure (or year, devices, ratio); '-' first for descending",
    )

    @classmethod
    def parameter_names(cls) -> list[str]:
        return list(cls.base_fields)


def result_row(result: Result) -> dict[str, Any]:
    work = result.work
    return {
        "id": result.slug,
        "work": (
            # The title as /api/works/ shows it: without BibTeX's protective braces.
            {
                "key": work.key,
                "title": display_text(work.title),
                "url": link("works:work-detail", work.key),
            }
            if work
            else None
        ),
        "outside_catalogue": result.outside,
        "year": result.year,
        "config": {
            "network": result.network,
            "dataset": result.dataset,
            "global_batch": result.global_batch,
            "batch_unit": result.batch_unit,
            "devices": result.devices,
            "device_kind": result.device_kind,
            "interconnect": result.interconnect,
            "precision": result.precision,
            "family": result.family,
            "strategy": result.strategy,
            "layout": result.layout,
            "parameters": result.parameters,
        },
        "techniques": [{"slug": t.slug, "name": t.name} for t in result.techniques.all()],
        "figures": [
            figure | {"source_kind": source_kind(figure["url"]) if figure.get("url") else None}
            for figure in result.figures
        ],
        "status": result.status,
        "source_url": result.source_url,
        "source_kind": source_kind(result.source_url) if result.source_url else None,
        "config_sources": result.config_sources,
        "location": result.location,
        "claim": result.claim,
        "note": result.note,
    }


def all_rows() -> list[dict[str, Any]]:
    """Every result with its prediction, computed once per catalogue version."""

    def compute() -> list[dict[str, Any]]:
        formulas, known = catalogue_formulas(), set(networks())
        rows = [result_row(r) for r in Result.objects.for_list()]
        for row in rows:
            row["prediction"] = predict(row, formulas, known)
        return rows

    return per_version("results-rows", compute)


def value_of(row: dict, key: str) -> float | None:
    if key == "year":
        return row["year"]
    if key == "devices":
        return row["config"]["devices"]
    if key == "ratio":
        return row["prediction"].get("ratio")
    return next((f["value"] for f in row["figures"] if f["name"] == key), None)


def filtered(rows: list[dict], data: dict) -> list[dict]:
    def keep(row: dict) -> bool:
        config, devices = row["config"], row["config"]["devices"]
        checks = [
            not data["technique"] or data["technique"] in {t["slug"] for t in row["techniques"]},
            not data["network"] or config["network"] == data["network"],
            not data["family"] or config["family"] == data["family"],
            not data["status"] or row["status"] == data["status"],
            data["year_min"] is None or row["year"] >= data["year_min"],
            data["year_max"] is None or row["year"] <= data["year_max"],
            data["devices_min"] is None or (devices or 0) >= data["devices_min"],
            data["devices_max"] is None or (devices is not None and devices <= data["devices_max"]),
        ]
        return all(checks)

    return [row for row in rows if keep(row)]


def ordered(rows: list[dict], ordering: str) -> list[dict]:
    """Sorted by a figure; results without it last, whatever the direction."""
    if not ordering:
        return rows
    key, descending = ordering.lstrip("-"), ordering.startswith("-")
    having = [r for r in rows if value_of(r, key) is not None]
    lacking = [r for r in rows if value_of(r, key) is None]
    return sorted(having, key=lambda r: value_of(r, key), reverse=descending) + lacking


def chart_points(rows: list[dict]) -> dict[str, list[dict]]:
    """The record charts: ResNet-50 on ImageNet-1k, time to train by year (and device count);
    utilisation of large-model training by year. Each point links to its work."""

    def point(row: dict, y: float) -> dict:
        work, outside = row["work"], row["outside_catalogue"] or {}
        url = work["url"] if work else outside.get("url", "")
        # A work outside the catalogue is named by its title, never by a key that reads as one
        # of the catalogue's works; a link goes only to a work the catalogue holds.
        title = outside.get("title") or "a work the record does not name"
        name = work["key"] if work else f"{title} (not in the catalogue)"
        return {
            "id": row["id"],
            "year": row["year"],
            "y": y,
            "devices": row["config"]["devices"],
            "device_kind": row["config"]["device_kind"],
            "work": name,
            "url": url or row["source_url"],
        }

    resnet, utilisation = [], []
    for row in rows:
        figures = {f["name"]: f for f in row["figures"]}
        config = row["config"]
        if (
            config["network"] == "resnet-50"
            and config["dataset"] == "ImageNet-1k"
            and "time_to_train_s" in figures
        ):
            resnet.append(
                point(row, figures["time_to_train_s"]["value"])
                | {"figure_status": figures["time_to_train_s"]["status"]}
            )
        if "utilisation" in figures and (config["parameters"] or 0) >= 1e9:
            utilisation.append(
                point(row, figures["utilisation"]["value"])
                | {"figure_status": figures["utilisation"]["status"]}
            )
    return {"resnet50_time_to_train": resnet, "large_model_utilisation": utilisation}


def worst_predicted(rows: list[dict], count: int = 3) -> list[dict]:
    predicted = [r for r in rows if r["prediction"].get("ratio")]
    predicted.sort(key=lambda r: -max(r["prediction"]["ratio"], 1 / r["prediction"]["ratio"]))
    return [
        {
            "id": r["id"],
            "ratio": r["prediction"]["ratio"],
            "ratio_at_peak": r["prediction"]["ratio_at_peak"],
            "quantity": r["prediction"]["quantity"],
            "why": f"{r['prediction']['compared']}; assumed: {r['prediction']['assumptions']}",
        }
        for r in predicted[:count]
    ]


def answer(query) -> dict[str, Any]:
    """The document for a query string (a QueryDict); ApiError when it is bad."""
    form = ResultsForm(query)
    form.checked()
    rows = all_rows()
    chosen = ordered(filtered(rows, form.cleaned_data), form.cleaned_data["ordering"])
    encoded = query.urlencode()
    return {
        "count": len(chosen),
        "total": len(rows),
        "results": chosen,
        "summary": summary(chosen),
        "worst_predicted": worst_predicted(chosen),
        "charts": chart_points(chosen),
        "about": (
            "Figures the papers report. Each figure's status: read on the page at its URL, "
            "derived by us from read figures (the derivation says how), or recalled "
            "(unconfirmed). A result's status is 'read' when one of its figures was read. The "
            "planner's prediction runs the paper's devices (the device catalogue's peaks), links "
            "and, for transformers, the paper's model and layout; its ratio is predicted / "
            "measured time (step times formed with the FLOP count each figure uses, times to "
            "train, device-hours; a FLOP count as a count; a speedup over fewer devices as "
            "measured / predicted speedup), at the calibrated default efficiency "
            "(`ratio`, basis in `efficiency`) and at the peak (`ratio_at_peak`): below 1 the "
            "planner is optimistic."
        ),
        "page_url": link("results:results", query=encoded),
        "api_url": link("results:api-results", query=encoded),
        "csv_url": link("results:api-results-csv", query=encoded),
    }


def csv_rows(document: dict) -> list[dict[str, Any]]:
    rows = []
    for row in document["results"]:
        figures = {f["name"]: f["value"] for f in row["figures"]}
        prediction = row["prediction"]
        rows.append(
            {
                "id": row["id"],
                "work": row["work"]["key"] if row["work"] else row["outside_catalogue"]["key"],
                "year": row["year"],
                **{k: row["config"][k] for k in CSV_COLUMNS[3:12]},
                **{name: figures.get(name, "") for name in FIGURE_NAMES},
                "status": row["status"],
                "source_url": row["source_url"],
                "location": row["location"],
                "predicted_time_to_train_s": prediction.get("predicted_time_to_train_s", ""),
                "prediction_quantity": prediction.get("quantity", ""),
                "ratio": prediction.get("ratio", ""),
                "ratio_at_peak": prediction.get("ratio_at_peak", ""),
                "prediction_note": prediction.get("reason") or prediction.get("assumptions", ""),
            }
        )
    return rows
