"""The planner's document for a query string: what the page shows and its JSON twin returns."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from catalogue.costs import FormulaError
from catalogue.version import per_version
from explorer.web.errors import NON_FIELD, ApiError
from explorer.web.links import link
from explorer.workloads.data import catalogue_formulas, technique_links
from explorer.workloads.formulas import CatalogueIncomplete
from explorer.workloads.transformers.shapes import is_transformer

from . import plan as planning
from . import roofline
from .accuracy import report as accuracy
from .accuracy.calibration import default_efficiency
from .accuracy.calibration.families import model_family
from .forms import PlannerForm
from .machine import Inputs, PlannerInputError
from .transformers.plan import config_of


def answer(query, form: PlannerForm | None = None) -> dict[str, Any]:
    """The planner's document for a query string (a QueryDict) and its form (built here when
    the caller has none: the API view brings the one it checked); ApiError when it is bad,
    keyed by the parameter at fault. Without a query (the page as first opened), once per
    catalogue version."""
    if not query:
        return per_version("planner-default", lambda: _answer(query, form))
    return _answer(query, form)


def _answer(query, form: PlannerForm | None) -> dict[str, Any]:
    form = form or PlannerForm(query)
    cleaned = form.checked()  # each value, then the inputs with presets merged, all checked
    inputs, efficiency = with_efficiency(cleaned["inputs"], form.query())
    try:
        calibrated = None if efficiency["fit"] == "given" else calibrated_efficiency
        document = planning.plan(inputs, catalogue_formulas(), efficiency_at=calibrated)
    except PlannerInputError as error:
        raise ApiError({error.parameter or NON_FIELD: [str(error)]}) from None
    except (CatalogueIncomplete, FormulaError) as error:
        message = f"the catalogue's cost models cannot be composed: {error}"
        raise ApiError(message, 503) from None
    document["efficiency"] = efficiency
    chosen = cleaned["strategy"]
    if chosen:
        document["strategies"] = [s for s in document["strategies"] if s["slug"] in chosen]
    _add_links(document)
    document["accuracy"] = accuracy.for_query(inputs.device or None, inputs.network, inputs.P)
    document["page_url"] = link("planner:planner", query=query.urlencode())
    document["api_url"] = link("planner:api-planner", query=query.urlencode())
    return document


def with_efficiency(inputs: Inputs, query: dict[str, Any]) -> tuple[Inputs, dict[str, Any]]:
    """The inputs at the efficiency the user gave, else at the calibrated default for the
    machine's device and the network's model family (explorer/planner/accuracy/calibration), and the
    document's `efficiency`: its value, its basis and the measured runs it rests on."""
    if query.get("efficiency") not in (None, ""):
        given = {"value": inputs.efficiency, "basis": "given (the efficiency input)", "runs": 0}
        return inputs, given | {"fit": "given"}
    document = _calibrated(inputs)
    return replace(inputs, efficiency=document["value"]), document


def calibrated_efficiency(inputs: Inputs) -> float:
    """The efficiency the planner takes for `inputs` when the query gives none (a sweep's P)."""
    return _calibrated(inputs)["value"]


def _calibrated(inputs: Inputs) -> dict[str, Any]:
    per_device = inputs.batch / inputs.P
    found = default_efficiency(
        inputs.device or None,
        model_family(inputs.network),
        per_device,
        inputs.precision,
        inputs.stack,
    )
    config = config_of(inputs) if is_transformer(inputs.network) else None
    ceiling = roofline.for_inputs(inputs, config)
    value = round(max(0.01, found["value"] * ceiling["value"]), 6)
    return dict(found) | {
        "value": value,
        "of_roofline": found["value"],
        "roofline": ceiling,
        "stack": inputs.stack,
        "basis": f"{found['value']:.3g} of the roofline ({ceiling['value']:.3g} of the peak) for "
        f"a {inputs.stack} software stack; " + found["basis"],
    }


def _add_links(document: dict[str, Any]) -> None:
    slugs = {slug for s in document["strategies"] for slug in s["techniques"]}
    techniques = technique_links(slugs)
    for strategy in document["strategies"]:
        works = {key for model in strategy["cost_models"] for key in model["works"]}
        known = [
            techniques[slug] | {"slug": slug}
            for slug in strategy["techniques"]
            if slug in techniques
        ]
        for technique in known:
            works.update(technique["works"])
        strategy["links"] = {
            "techniques": [
                {
                    "slug": t["slug"],
                    "name": t["name"],
                    "url": link("costs:techniques") + f"#technique-{t['slug']}",
                    "section_url": link("hubs:hub", t["section"]),  # the section's hub
                }
                for t in known
            ],
            "works": [{"key": key, "url": link("works:work-detail", key)} for key in sorted(works)],
            "demos": [
                {"slug": slug, "url": link("demos:demo-detail", slug)} for slug in strategy["demos"]
            ],
        }
