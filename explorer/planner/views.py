"""The planner's page, /planner/: a form over the query string, the ranked strategies with their
breakdown and derivations, the network beside its paper, and a plot of a sweep over P. Its JSON
twin is /api/planner/ (api.py); both show the document of documents.py."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict
from django.shortcuts import redirect, render

from explorer.web.errors import ApiError
from explorer.web.links import link
from explorer.web.middleware import cached_for_anonymous
from explorer.workloads.devices import catalogue_devices
from explorer.workloads.networks import networks
from explorer.workloads.transformers.shapes import CUSTOM
from explorer.workloads.transformers.shapes import PRESETS as TRANSFORMERS

from .accuracy import report as accuracy
from .accuracy.calibration.fit import STACKS
from .documents import answer
from .machine import (
    ALLREDUCE_ALGORITHMS,
    ATTENTION,
    BOUNDS,
    OPTIMIZERS,
    PRECISIONS,
    PRESETS,
    RECOMPUTE,
    Inputs,
)
from .plots import sweep_figure
from .presets import preset_sources
from .shown import number, strategy_shown, transformer_context

# The first screen's short form (issue 44): the network, the machine and these; every other input
# sits in a folded group that says how many of its values the address changes.
QUICK_FIELDS = ("P", "batch", "tokens")
CHOICE_FIELDS = (
    "allreduce",
    "precision",
    "optimizer",
    "recompute",
    "overlap",
    "attention",
    "sequence_parallel",
    "stack",
    "overlap_tensor",
    "overlap_pipeline",
    "overlap_expert",
    "overlap_context",
    "overlap_zero3",
    "parallel_block",
)
OVERLAP_SWITCHES = (
    ("overlap_tensor", "Overlap the tensor-parallel exchanges"),
    ("overlap_pipeline", "Overlap the pipeline's sends"),
    ("overlap_expert", "Overlap the experts' all-to-alls"),
    ("overlap_context", "Overlap the context-parallel ring"),
    ("overlap_zero3", "Prefetch ZeRO-3's gathers"),
)
FIELD_GROUPS = (
    ("Machine", ("P", "flops", "efficiency", "memory_gb")),
    (
        "Network: between nodes and inside a node",
        (
            "latency_us",
            "bandwidth_gbs",
            "devices_per_node",
            "intra_latency_us",
            "intra_bandwidth_gbs",
        ),
    ),
    ("Training step", ("batch", "micro_batches", "chunks", "optimizer_values", "bucket_mb")),
    (
        "Bytes per value (default: the precision and optimizer's)",
        ("gamma", "weight_bytes", "gradient_bytes", "optimizer_bytes", "message_bytes"),
    ),
    ("Gradient exchange", ("servers", "bits", "density")),
    ("Sweep over P (the plot)", ("sweep_max", "sweep_points")),
    (
        "Transformer (after the survey; empty: the preset's)",
        ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "seq_len", "vocab")
        + ("experts", "top_k", "expert_interval", "shared_experts", "dense_layers")
        + ("expert_ffn_hidden", "lora_rank"),
    ),
    (
        "Layout and time to train (empty: searched)",
        ("tp", "pp", "dp", "cp", "ep", "micro_batch_size", "zero", "tokens"),
    ),
)


@cached_for_anonymous
def planner_page(request):
    context: dict[str, Any] = {
        "presets": _presets(),
        "devices": [{"slug": slug, "name": d.name} for slug, d in catalogue_devices().items()],
        "networks": list(networks().values())
        + [{"slug": p.slug, "name": p.name} for p in TRANSFORMERS.values()]
        + [{"slug": CUSTOM, "name": "Transformer of your configuration"}],
        "transformer_presets": [
            {
                "slug": p.slug,
                "name": p.name,
                "url": link(
                    "planner:planner",
                    query=urlencode({"network": p.slug, "machine": "a100-cluster"}),
                ),
            }
            for p in TRANSFORMERS.values()
        ],
        "recomputes": RECOMPUTE,
        "allreduce_algorithms": ALLREDUCE_ALGORITHMS,
        "precisions": PRECISIONS,
        "optimizers": tuple(OPTIMIZERS),
        "recompute_choices": RECOMPUTE,
        "attention_choices": ATTENTION,
        "stack_choices": STACKS,
        "accuracy": accuracy.short(),
    }
    status = 200
    try:
        document = answer(request.GET)
    except ApiError as error:
        context["errors"], status = error.messages(), error.status
        shown = {name: request.GET.get(name, "") for name in BOUNDS}
        context["inputs"] = {
            "network": request.GET.get("network", ""),
            "machine": request.GET.get("machine", ""),
            "precision": request.GET.get("precision", ""),
            "optimizer": request.GET.get("optimizer", ""),
            "recompute": request.GET.get("recompute", ""),
            "recompute_free": not request.GET.get("recompute"),
            "parallel_block": _switch(request.GET.get("parallel_block"), None),
            "overlap": request.GET.get("overlap", "") != "false",
            "attention": request.GET.get("attention", ""),
            "stack": request.GET.get("stack", ""),
            "sequence_parallel": request.GET.get("sequence_parallel", "") != "false",
        }
    else:
        context |= _page_context(document)
        context["derivations_url"] = _with_query("planner:derivations", request.GET)
        _shown_change((document.get("layouts") or {}).get("to_fit"), request.GET)
        shown = {name: _field_value(document["inputs"][name]) for name in BOUNDS}
        if document["efficiency"]["fit"] != "given":  # calibrated: follows the machine
            shown["efficiency"] = ""
        if document["inputs"]["zero_free"]:  # left to the search: empty keeps it so
            shown["zero"] = ""
    context["quick_fields"] = [_field(name, shown[name]) for name in QUICK_FIELDS]
    context["field_groups"] = [
        {
            "title": title,
            "fields": [_field(name, shown[name]) for name in names if name not in QUICK_FIELDS],
            "changed": _changed(request.GET, [n for n in names if n not in QUICK_FIELDS]),
        }
        for title, names in FIELD_GROUPS
    ]
    context["choices_changed"] = _changed(request.GET, CHOICE_FIELDS)
    context["overlap_switches"] = [
        {
            "name": name,
            "label": label,
            "on": _switch(request.GET.get(name), getattr(Inputs, name)),
        }
        for name, label in OVERLAP_SWITCHES
    ]
    return render(request, "planner/planner.html", context, status=status)


@cached_for_anonymous
def planner_derivations(request):
    """Every number of a plan with its derivation, for the strategies named by `strategy` (all
    when none): a page of its own, so that the planner's page sends a strategy's derivation only
    when the reader opens it (it was most of the page's size and rendering time; for a
    transformer, a sixth of its time)."""
    plan_query = _without(request.GET, "strategy")
    try:
        document = answer(request.GET)
    except ApiError:  # the planner's page says what is wrong, above its form
        return redirect(_with_query("planner:planner", request.GET))
    if document.get("layouts"):  # a transformer's inapplicable layouts have no derivation
        document["strategies"] = [s for s in document["strategies"] if s["applicable"]]
    for strategy in document["strategies"]:  # only this page shows the cost models' links
        _add_derivation_links(strategy)
    context = _page_context(document)
    context |= {
        "plan_url": _with_query("planner:planner", plan_query),
        "all_url": _with_query("planner:derivations", plan_query),
        "one_strategy": bool(request.GET.getlist("strategy")),
    }
    return render(request, "planner/derivations.html", context)


def _without(query: QueryDict, name: str) -> QueryDict:
    rest = query.copy()
    rest.pop(name, None)
    return rest


def _with_query(name: str, query: QueryDict) -> str:
    return link(name, query=query.urlencode())


def _switch(given: str | None, default: bool | None) -> bool | None:
    """A switch as the address sets it ("true" or "false"), else its default."""
    return default if given in (None, "") else given == "true"


def _changed(query, names) -> int:
    """How many of `names` the address gives a value (the rest are the preset's)."""
    return sum(1 for name in names if query.get(name) not in (None, ""))


def _shown_change(change: dict[str, Any] | None, query) -> None:
    """The smallest change that makes a layout fit, as the page links it: the query with it."""
    if not change:
        return
    changed = query.copy()
    for name, value in change["query"].items():
        changed[name] = value
    if "P" in change["query"]:
        changed.pop("dp", None)  # the change drops a pinned dp (planner.transformers.plan.to_fit)
    change["shown_memory"] = number(change["memory_per_device"] / 1e9, "GB")
    change["url"] = link("planner:planner", query=changed.urlencode())


def _field(name: str, value: str) -> dict[str, str]:
    bound = BOUNDS[name]
    calibrated = " (empty: calibrated on MLPerf's measured runs)" if name == "efficiency" else ""
    return {
        "name": name,
        "label": bound.help + (f" ({bound.unit})" if bound.unit else "") + calibrated,
        "value": value,
        "range": f"{bound.low:g} to {bound.high:g}",
    }


def _field_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e6:
        return str(int(value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _presets() -> list[dict[str, Any]]:
    return [
        {
            "slug": preset.slug,
            "name": preset.name,
            "url": link("planner:planner", query=urlencode({"machine": preset.slug})),
            "sources": preset_sources(preset),
        }
        for preset in PRESETS.values()
    ]


def _page_context(document: dict[str, Any]) -> dict[str, Any]:
    if document.get("layouts"):
        for strategy in document["strategies"]:
            strategy["bar"] = _bar(strategy, _longest(document))
            strategy["shown"] = strategy_shown(strategy)
        return transformer_context(document)
    applicable = [s for s in document["strategies"] if s["applicable"]]
    longest = max((s["step_time"] for s in applicable), default=0.0) or 1.0
    for strategy in document["strategies"]:
        strategy["bar"] = _bar(strategy, longest)
        strategy["shown"] = strategy_shown(strategy)
    for row in document["network"]["comparison"]:
        row["shown_paper"] = "—" if row["paper"] is None else number(row["paper"])
        difference = row["relative_difference"]
        row["shown_difference"] = "—" if difference is None else f"{100 * difference:+.1f} %"
        row["shown_computed"] = number(row["computed"])
    return {
        "plan": document,
        "network": document["network"],
        "inputs": document["inputs"],
        "figure": sweep_figure(document["sweep"], document["network"]["name"]),
        "machine_sources": [
            {"name": name, "source": source}
            for name, source in document["machine"]["sources"].items()
        ],
    }


def _add_derivation_links(strategy: dict[str, Any]) -> None:
    for derivation in strategy["derivations"]:
        for model in derivation["cost_models"]:
            _add_links(model)


def _add_links(model: dict[str, Any]) -> None:
    """A cost model's and its works' addresses (link() keeps each for the process: the
    derivations cite the same ones many times)."""
    model["url"] = link("costs:api-cost-model-evaluate", model["id"]) if model["id"] else ""
    model["work_links"] = [
        {"key": key, "url": link("works:work-detail", key)} for key in model["works"]
    ]


def _longest(document: dict[str, Any]) -> float:
    steps = [s["step_time"] for s in document["strategies"] if s["applicable"]]
    return max(steps, default=0.0) or 1.0


def _bar(strategy: dict[str, Any], longest: float) -> list[dict[str, Any]]:
    if not strategy["applicable"]:
        return []
    parts = (
        ("compute", strategy["compute_time"]),
        ("communication", strategy["communication_time"]),
        ("idle", strategy["idle_time"]),
    )
    return [
        {"part": part, "seconds": value, "percent": round(100 * value / longest, 2)}
        for part, value in parts
    ]
