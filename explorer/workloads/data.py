"""The planner's reads from the catalogue: the cost models it composes, as plain records, and the
techniques its strategies stand on. Plain rows (values_list), no model instances: these reads
are on every answer's path."""

from __future__ import annotations

from collections import defaultdict

from catalogue.models import CostModel, Technique
from catalogue.version import per_version

from .formulas import ALL_ROLES, CatalogueFormula, by_role


def _keys_by_owner(through, owner: str, owners: list[int]) -> dict[int, list[str]]:
    rows = (
        through.objects.filter(**{f"{owner}__in": owners})
        .order_by("work__survey_ref", "work__key")
        .values_list(f"{owner}_id", "work__key")
    )
    keys: dict[int, list[str]] = defaultdict(list)
    for owner_id, key in rows:
        keys[owner_id].append(key)
    return keys


def catalogue_formulas() -> dict[str, CatalogueFormula]:
    """The cost models of the planner's roles, read once per catalogue version (a curator's edit
    of a cost model changes the version): every answer composes them, and reading them cost
    about a third of an uncached answer. Callers must not mutate them."""
    return per_version("planner-formulas", read_catalogue_formulas, in_process=True)


def read_catalogue_formulas() -> dict[str, CatalogueFormula]:
    """The cost models of the planner's roles with their works and their technique's: 3 queries."""
    # Filtered on the techniques only (a few dozen rows); by_role keeps the labels it needs.
    techniques = sorted({technique for technique, _ in ALL_ROLES.values()})
    models = list(
        CostModel.objects.filter(technique__slug__in=techniques).values_list(
            "pk",
            "technique_id",
            "technique__slug",
            "technique__demo_slug",
            "label",
            "formula",
            "status",
            "section",
        )
    )
    model_works = _keys_by_owner(CostModel.works.through, "costmodel", [m[0] for m in models])
    technique_works = _keys_by_owner(Technique.works.through, "technique", [m[1] for m in models])
    return by_role(
        CatalogueFormula(
            id=pk,
            technique=slug,
            label=label,
            formula=formula,
            status=status,
            section=section,
            works=tuple(dict.fromkeys(model_works[pk] + technique_works[technique_id])),
            demo=demo,
        )
        for pk, technique_id, slug, demo, label, formula, status, section in models
    )


def technique_links(slugs: set[str]) -> dict[str, dict]:
    """Name, works, demo and section (category code) of each technique a strategy stands on:
    2 queries."""
    techniques = list(
        Technique.objects.filter(slug__in=slugs).values_list(
            "pk", "slug", "name", "demo_slug", "category__code"
        )
    )
    works = _keys_by_owner(Technique.works.through, "technique", [t[0] for t in techniques])
    return {
        slug: {"name": name, "works": works[pk], "demo": demo, "section": section}
        for pk, slug, name, demo, section in techniques
    }
