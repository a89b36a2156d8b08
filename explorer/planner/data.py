"""The planner's reads from the catalogue: the cost models it composes, as plain records."""

from __future__ import annotations

from django.db.models import Prefetch

from catalogue.models import CostModel, Work

from .formulas import ROLES, CatalogueFormula, by_role


def catalogue_formulas() -> dict[str, CatalogueFormula]:
    """The cost models of the planner's roles with their works and their technique's: 3 queries."""
    # Filtered on the techniques only (a few dozen rows); by_role keeps the labels it needs.
    techniques = sorted({technique for technique, _ in ROLES.values()})
    keys = Work.objects.only("key", "survey_ref").order_by("survey_ref", "key")
    models = (
        CostModel.objects.filter(technique__slug__in=techniques)
        .select_related("technique")
        .prefetch_related(
            Prefetch("works", queryset=keys), Prefetch("technique__works", queryset=keys)
        )
    )
    return by_role(
        CatalogueFormula(
            id=model.pk,
            technique=model.technique.slug,
            label=model.label,
            formula=model.formula,
            status=model.status,
            section=model.section,
            works=tuple(
                dict.fromkeys(
                    [w.key for w in model.works.all()]
                    + [w.key for w in model.technique.works.all()]
                )
            ),
            demo=model.technique.demo_slug,
        )
        for model in models
    )


def technique_links(slugs: set[str]) -> dict[str, dict]:
    """Name, works and demo of each technique a strategy stands on: 2 queries."""
    from catalogue.models import Technique

    keys = Work.objects.only("key", "survey_ref").order_by("survey_ref", "key")
    techniques = Technique.objects.filter(slug__in=slugs).prefetch_related(
        Prefetch("works", queryset=keys)
    )
    return {
        t.slug: {"name": t.name, "works": [w.key for w in t.works.all()], "demo": t.demo_slug}
        for t in techniques
    }
