"""The catalogue's claims counted by status, for the data-quality page."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models

from catalogue.models.costs import CostModel, FormulaStatus
from catalogue.models.people import Author
from catalogue.models.taxonomy import Category, CategoryStatus
from catalogue.models.works import Work


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
    identifiers with the kinds of page they were read on. Five queries."""
    return {
        "cost_model_statuses": _counted(
            CostModel.objects.values_list("status", flat=True), FormulaStatus
        ),
        "category_statuses": _counted(
            Category.objects.values_list("status", flat=True), CategoryStatus
        ),
        "identities": Author.objects.identity_report(),
        "identifiers": Work.objects.identifier_report(),
    }
