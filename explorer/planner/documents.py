"""The planner's document for a query string: what the page shows and its JSON twin returns."""

from __future__ import annotations

from typing import Any

from catalogue.costs import FormulaError
from explorer.web.errors import NON_FIELD
from explorer.web.forms import query_problems
from explorer.web.links import link
from explorer.web.memo import per_version

from . import plan as planning
from .data import catalogue_formulas, technique_links
from .forms import PlannerForm
from .formulas import CatalogueIncomplete
from .machine import BOUNDS, PlannerInputError, parse
from .networks import networks
from .transformer import NETWORKS
from .transformer_network import NETWORK_DEFAULTS

PARAMETERS = frozenset({*PlannerForm.base_fields, *BOUNDS})


class PlannerError(ValueError):
    """A query the planner refuses: `messages` for the page, `errors` keyed by parameter (the API's
    400, code "invalid"), `status`."""

    def __init__(
        self, messages: list[str], status: int = 400, errors: dict[str, list[str]] | None = None
    ) -> None:
        super().__init__("; ".join(messages))
        self.messages, self.status = messages, status
        self.errors = errors if errors is not None else {NON_FIELD: messages}


def answer(query, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """The planner's document for a query string (a QueryDict); PlannerError when it is bad
    (unknown or repeated parameters among them; `extra` names parameters the caller reads, such
    as the API's `format`). Without a query (the page as first opened), once per catalogue
    version."""
    if not query:
        return per_version("planner-default", lambda: _answer(query, extra))
    return _answer(query, extra)


def _answer(query, extra: tuple[str, ...]) -> dict[str, Any]:
    problems = query_problems(query, PARAMETERS | set(extra), repeatable={"strategy"})
    if problems:
        messages = [f"{name}: {m}" for name, texts in problems.items() for m in texts]
        raise PlannerError(messages, errors=problems)
    form = PlannerForm(query)
    if not form.is_valid():
        errors = {name: [str(m) for m in messages] for name, messages in form.errors.items()}
        raise PlannerError(form.error_messages(), errors=errors)
    try:
        inputs = parse(form.query(), set(networks()) | set(NETWORKS), NETWORK_DEFAULTS)
        document = planning.plan(inputs, catalogue_formulas())
    except PlannerInputError as error:
        name = str(error).split(" ", 1)[0]  # every message starts with the parameter it is about
        key = name if name in PARAMETERS else NON_FIELD
        raise PlannerError([str(error)], errors={key: [str(error)]}) from None
    except (CatalogueIncomplete, FormulaError) as error:
        raise PlannerError(
            [f"the catalogue's cost models cannot be composed: {error}"], 503
        ) from None
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
