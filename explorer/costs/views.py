"""The cost-model pages: /costs/ (the W-D plots) and /techniques/ (every technique with its cost
models, works and demo). Thin: the maths and figures are in plots.py, the layer presets in
presets.py; each plot's JSON twin is /api/costs/plots/<name>/ (explorer/costs/api.py)."""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import QueryDict
from django.shortcuts import render
from django.template.loader import render_to_string

from catalogue.costs import FormulaError
from catalogue.models import Category, CostModel, Technique
from catalogue.version import per_version
from explorer.costs import kept, params
from explorer.costs import plots as cost_plots
from explorer.costs.numbers import format_number
from explorer.costs.presets import DEFAULT_PRESET, FC, FC_SIZES, PRESETS, SIZE_BOUNDS, SIZE_HELP
from explorer.costs.records import CostFormula, ParameterError, operators
from explorer.web.links import link
from explorer.web.middleware import cached_for_anonymous
from explorer.web.script_json import script_json

PLOT_TITLES = {
    "wd-plane": "(a) The W-D plane",
    "parallelism": "(b) Average parallelism against a layer size",
    "brent": "(c) Brent's time bounds",
    "allreduce-p": "(d) Allreduce against the number of machines P",
    "allreduce-m": "(d) Allreduce against the vector size m",
}


def build_plots(query) -> tuple[dict[str, dict], list[str]]:
    """All the plots of /costs/ that the query allows, and the messages of those it does not."""
    plots, errors = {}, []
    for name in cost_plots.PLOT_NAMES:
        try:
            plots[name] = kept.plot(name, query)
        except (ParameterError, FormulaError) as error:
            if str(error) not in errors:
                errors.append(str(error))
    return plots, errors


@cached_for_anonymous
def costs_page(request):
    query = dict(request.GET.lists())
    query_string = request.GET.urlencode()
    if query:
        context = page_context(query, query_string)
    else:  # the page as first opened: the same plots and form until the cost models change
        context = per_version("costs-page", lambda: page_context(query, query_string))
    context = {**context, "query_string": query_string}
    return render(request, "costs/costs.html", context, status=400 if context["errors"] else 200)


def page_context(query: dict, query_string: str) -> dict:
    """The plots the query allows (or why not) and the form; plain data, kept per version."""
    formulas = kept.formulas()
    try:
        params.check_known(QueryDict(query_string))
    except ParameterError as error:
        plots, errors = {}, [str(error)]
    else:
        plots, errors = build_plots(query)
    return {
        "plots": [_plot_context(name, plots[name], query_string) for name in plots],
        "errors": errors,
        "form": _form_context(query, formulas),
    }


def _plot_context(name: str, result: dict, query: str) -> dict:
    context = {
        "name": name,
        "title": PLOT_TITLES[name],
        # The figure encoded here (its JSON is a third of the page), the text kept in its place.
        "result": {key: value for key, value in result.items() if key != "figure"},
        "figure_json": script_json(result["figure"]),
        "script_id": f"figure-{name}",
        "api_url": link("costs:api-cost-plot", name, query=query),
        "rows": [_point_row(point) for point in result["data"].get("points", [])],
        "crossovers": None,
    }
    if "crossovers" in result["data"]:
        axis = result["data"]["axis"]
        context["crossovers"] = [
            f"{c['a']} = {c['b']} at {axis} ≈ {c['x']:.3g} ({c['y']:.3g} s)"
            for c in result["data"]["crossovers"]
        ]
    return context


def _point_row(point: dict) -> dict:
    number = format_number
    work, depth = point["work_formula"], point["depth_formula"]
    return {
        "label": point["label"],
        "table": point["table"],
        "work": number(point["work"]),
        "depth": number(point["depth"]),
        "parallelism": number(round(point["parallelism"])),
        "confirmed": point["confirmed"],
        "doubtful": point["doubtful"],
        "work_status": work["status"],
        "work_status_label": work["status_label"],
        "depth_status": depth["status"],
        "depth_status_label": depth["status_label"],
        "works": point["works"],
    }


def _form_context(query, formulas: list[CostFormula]) -> dict:
    """What the form shows: the values given (empty otherwise) and the effective ones."""
    try:
        preset, layer = params.layer_from_query(query)
    except ParameterError:
        preset = PRESETS.get(_given(query, "preset"), PRESETS[DEFAULT_PRESET])
        layer = preset.layer
    sizes = [
        {
            "name": name,
            "help": SIZE_HELP[name],
            "min": low,
            "max": high,
            "value": _given(query, name),
            "placeholder": getattr(layer, name),
            "disabled": layer.kind == FC and name not in FC_SIZES,
        }
        for name, (low, high) in SIZE_BOUNDS.items()
    ]
    available = [op for op in operators(formulas) if op.applies_to(layer.kind)]
    chosen_ops = set(query.get("ops", []))
    allreduce = cost_plots.allreduce_formulas(formulas)
    return {
        "presets": list(PRESETS.values()),
        "preset": preset,
        "layer": layer,
        "sizes": sizes,
        "derived": {"H_out": layer.H_out, "W_out": layer.W_out} if layer.kind != FC else {},
        "sweeps": [
            {"name": name, "help": help_text}
            for name, (_, _, help_text) in params.SWEEPS.items()
            if layer.kind != FC or name in FC_SIZES
        ],
        "sweep": _given(query, "sweep") or "N",
        "from": _given(query, "from"),
        "to": _given(query, "to"),
        "operators": [
            {"key": op.key, "label": op.label, "table": op.table, "selected": op.key in chosen_ops}
            for op in available
        ],
        "op": _given(query, "op"),
        "p_max": _given(query, "p_max"),
        "allreduce": [
            _allreduce_field(name, allreduce, query)
            for name in params.ALLREDUCE_PARAMETERS
            if allreduce
        ],
    }


def _allreduce_field(name: str, formulas: list[CostFormula], query) -> dict:
    variable = name.split("_")[0] if name.endswith(("_min", "_max")) else name
    low, high, default = params.common_bounds(formulas, variable)
    if name.endswith(("_min", "_max")):
        start, stop = params.ALLREDUCE_RANGES[variable]
        default = max(start, low) if name.endswith("_min") else min(stop, high)
    meaning = next(
        (v.get("meaning", "") for f in formulas for v in f.variables if v["name"] == variable), ""
    )
    if name.endswith("_min"):
        meaning = f"smallest {variable} on the {variable} axis"
    elif name.endswith("_max"):
        meaning = f"largest {variable} on the {variable} axis"
    return {
        "name": name,
        "help": meaning,
        "range": f"{low:g} to {high:g}",
        "value": _given(query, name),
        "placeholder": f"{default:g}",
    }


def _given(query, name: str) -> str:
    values = [v for v in query.get(name, []) if v.strip()]
    return values[0] if values else ""


# /techniques/ ---------------------------------------------------------------------------------


# What the techniques page shows of a cost model (its variables and curation record are JSON,
# decoded for each of ~90 models if read).
SHOWN = ("technique", "label", "formula", "unit", "asymptotic", "section", "status", "status_note")


@cached_for_anonymous
def technique_list(request):
    """The page takes no parameter: its content is HTML kept per catalogue version (its ~90
    formulas and ~500 work links cost 15-25 ms to write on every request)."""
    body = per_version("techniques-page", techniques_body)
    return render(request, "costs/techniques.html", {"body": body})


def techniques_body() -> str:
    """Techniques grouped by top-level category; five queries whatever the catalogue's size."""
    roots = list(Category.objects.top_level())
    root_code = Category.objects.root_codes()
    techniques = list(
        Technique.objects.select_related("category").prefetch_related(
            Prefetch("cost_models", queryset=CostModel.objects.order_by("order", "pk").only(*SHOWN))
        )
    )
    works = _works_by_technique() if techniques else {}
    groups = {root.code: [] for root in roots}
    for technique in techniques:
        technique.work_rows = works.get(technique.pk, [])
        groups.setdefault(root_code[technique.category_id], []).append(technique)
    sections = [
        {"category": root, "techniques": groups[root.code]} for root in roots if groups[root.code]
    ]
    return render_to_string("costs/_techniques_body.html", {"sections": sections})


def _works_by_technique() -> dict[int, list[dict]]:
    """Technique id -> the works that describe it (key, title, year, survey_ref), in reference
    order, in one query of plain rows (~500 Work instances were a quarter of the page)."""
    links = Technique.works.through.objects.order_by("work__survey_ref", "work__key")
    works: dict[int, list[dict]] = {}
    rows = links.values_list(
        "technique_id", "work__key", "work__title", "work__year", "work__survey_ref"
    )
    for technique_id, key, title, year, survey_ref in rows:
        works.setdefault(technique_id, []).append(
            {"key": key, "title": title, "year": year, "survey_ref": survey_ref}
        )
    return works
