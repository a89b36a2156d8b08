"""The catalogue's claims counted by status, for the data-quality page."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.db import models

from catalogue.models.citations import Citation
from catalogue.models.costs import CostModel, FormulaStatus
from catalogue.models.people import Author
from catalogue.models.results import Result
from catalogue.models.taxonomy import Assignment, Category, CategoryStatus
from catalogue.models.works import Work
from catalogue.source_kinds import FIRST_HAND, KINDS, evidence_row

# A URL inside a free-text note ("read in https://... (section 3)").
NOTE_URL = re.compile(r"https?://[^\s,;\"')]+")


def _counted(values: Iterable[str], choices: type[models.TextChoices]) -> list[dict]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return [
        {"status": value, "label": label, "count": counts.get(value, 0)}
        for value, label in choices.choices
    ]


def fidelity_report() -> dict:
    """What the data-quality page says of the catalogue's own claims: cost models and categories
    by status (every status, zero counts included), the author identity table, and the works'
    identifiers, and every recorded source by kind of evidence. Eight queries."""
    identifiers = Work.objects.identifier_report()
    return {
        "cost_model_statuses": _counted(
            CostModel.objects.values_list("status", flat=True), FormulaStatus
        ),
        "category_statuses": _counted(
            Category.objects.values_list("status", flat=True), CategoryStatus
        ),
        "identities": Author.objects.identity_report(),
        "identifiers": identifiers,
        "evidence": evidence_report(identifiers),
    }


def evidence_report(identifiers: dict) -> dict:
    """The recorded sources of every kind of fact by kind of evidence (first-hand, index,
    secondary), with the total of identifiers, bibliographic fields and results (placements
    apart: most rest on reading notes) and the total of every value. `identifiers` is
    Work.objects.identifier_report(), whose query counted the works' fields. Three queries."""
    figure_urls, setting_urls = [], []
    for figures, source_url, config_sources in Result.objects.values_list(
        "figures", "source_url", "config_sources"
    ):
        figure_urls += [figure.get("url") for figure in figures if figure.get("status") == "read"]
        setting_urls += [source_url, *(config_sources or {}).values()]
    edge_sources = list(Citation.objects.values_list("evidence_source", flat=True))
    placement_urls = [
        url
        for text in [*Assignment.objects.values_list("source_note", flat=True), *edge_sources]
        for url in NOTE_URL.findall(text or "")
    ]
    # An edge whose evidence names no page (the survey's reference list, a conversion of the
    # citing paper whose address was not recorded) is a placement with no recorded page.
    unsourced_edges = sum(1 for text in edge_sources if not NOTE_URL.search(text or ""))
    rows = [
        *identifiers["evidence"],
        evidence_row("result_figures", figure_urls),
        evidence_row("result_settings", setting_urls),
        evidence_row("placements", placement_urls, unsourced_edges),
    ]
    core = [row for row in rows if row["fact"] != "placements"]
    return {
        "kinds": list(KINDS),
        "facts": rows,
        "all_but_placements": summed(core),
        "all": summed(rows),
    }


def summed(rows: list[dict]) -> dict:
    """Several kinds of fact's evidence rows as one total."""
    counts = {kind: sum(row["counts"][kind] for row in rows) for kind in KINDS}
    values = sum(row["values"] for row in rows)
    return {
        "counts": counts,
        "unsourced": sum(row["unsourced"] for row in rows),
        "values": values,
        "first_hand_percent": round(100 * counts[FIRST_HAND] / values) if values else None,
    }
