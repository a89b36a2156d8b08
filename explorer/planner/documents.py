"""The planner's document for a query string: what the page shows and its JSON twin returns."""

from __future__ import annotations

from typing import Any

from catalogue.costs import FormulaError
from explorer.web.links import link
from explorer.web.memo import per_version
from explorer.web.parameters import parameter_errors

from . import plan as planning
from .data import catalogue_formulas, technique_links
from .forms import PlannerForm
from .formulas import CatalogueIncomplete
from .machine import PlannerInputError, parse
from .networks import networks


class PlannerError(ValueError):
    """What is wrong with a query: messages per parameter (`errors`), and all of them in order
    for the page (`messages`)."""

    def __init__(self, errors: dict[str, list[str]], status: int = 400) -> None:
        self.errors, self.status = errors, status
        self.messages = [message for messages in errors.values() for message in messages]
        super().__init__("; ".join(self.messages))


def answer(query) -> dict[str, Any]:
    """The planner's document for a query string (a QueryDict); PlannerError when it is bad.
    Without a query (the page as first opened), once per catalogue version."""
    if not query:
        return per_version("planner-default", lambda: _answer(query))
    return _answer(query)


def _answer(query) -> dict[str, Any]:
    if errors := parameter_errors(query, PlannerForm.parameter_names()):
        raise PlannerError(errors)
    form = PlannerForm(query)
    if not form.is_valid():
        raise PlannerError(form.messages_by_parameter())
    try:
        inputs = parse(form.query(), set(networks()))
        document = planning.plan(inputs, catalogue_formulas())
    except PlannerInputError as error:
        raise PlannerError({error.parameter: [str(error)]}) from None
    except (CatalogueIncomplete, FormulaError) as error:
        message = f"the catalogue's cost models cannot be composed: {error}"
        raise PlannerError({"non_field_errors": [message]}, 503) from None
    chosen = form.cleaned_data["strategy"]
    if chosen:
        document["strategies"] = [s for s in document["strategies"] if s["slug"] in chosen]
    _add_links(document)
    document["page_url"] = link("planner:planner", query=query.urlencode())
    document["api_url"] = link("planner:api-planner", query=query.urlencode())
    return document


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
