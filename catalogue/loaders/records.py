"""The taxonomy, citations, techniques, cost models, measured results and seminal works of the
fixtures."""

from __future__ import annotations

import json
from pathlib import Path

from catalogue.constants import RESULT_CONFIG
from catalogue.loaders.merge import (
    DELETED,
    describe,
    merge_fixture,
    merge_works,
    read_csv,
    works_for,
)
from catalogue.models import (
    Assignment,
    Category,
    Citation,
    CostModel,
    CuratorDeletion,
    Result,
    Technique,
    Work,
)


def load_categories(path: Path, kept: list[str]) -> None:
    existing = {c.code: c for c in Category.objects.all()}
    for order, node in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        values = {
            "name": node["name"],
            "section": node.get("section", ""),
            "parent": existing[node["parent"]] if node.get("parent") else None,
            "order": node.get("order", order),
            "description": node.get("description", ""),
            "status": node.get("status", "confirmed"),
            "extends": node.get("extends", ""),
        }
        category = existing.get(node["code"]) or Category(code=node["code"])
        if merge_fixture(category, values, kept) or category.pk is None:
            category.save()
        existing[category.code] = category


def load_assignments(path: Path, works: dict[str, Work], kept: list[str]) -> None:
    categories = {c.code: c for c in Category.objects.all()}
    existing = {
        (a.work_id, a.category_id): a for a in Assignment.objects.select_related("work", "category")
    }
    deleted = CuratorDeletion.objects.keys_of("assignment")
    new, changed = [], []
    for row in read_csv(path):
        work, category = works[row["key"]], categories[row["category"]]
        values = {
            "evidence": row["evidence"],
            "source_note": row["source_note"],
            "alternatives": row.get("alternatives", ""),
        }
        assignment = existing.get((work.pk, category.pk))
        if assignment is None and f"{work.key} {category.code}" in deleted:
            kept.append(f"left out the assignment of {work.key} to {category.code}: {DELETED}")
        elif assignment is None:
            new.append(Assignment(work=work, category=category, **values))
        elif merge_fixture(assignment, values, kept):
            changed.append(assignment)
    Assignment.objects.bulk_create(new)
    Assignment.objects.bulk_update(changed, ["evidence", "source_note", "alternatives"])


def load_citations(path: Path, works: dict[str, Work], kept: list[str]) -> None:
    existing = {
        (c.citing_id, c.cited_id, c.provenance): c
        for c in Citation.objects.select_related("citing", "cited")
    }
    deleted = CuratorDeletion.objects.keys_of("citation")
    new, changed = [], []
    for row in read_csv(path):
        citing, cited = works[row["citing"]], works[row["cited"]]
        evidence = {
            "evidence_source": row["evidence_source"],
            "evidence_excerpt": row["evidence_excerpt"],
        }
        citation = existing.get((citing.pk, cited.pk, row["provenance"]))
        natural_key = f"{citing.key} {cited.key} {row['provenance']}"
        if citation is None and natural_key in deleted:
            kept.append(
                f"left out the edge {citing.key} -> {cited.key} ({row['provenance']}): {DELETED}"
            )
        elif citation is None:
            new.append(
                Citation(citing=citing, cited=cited, provenance=row["provenance"], **evidence)
            )
        elif merge_fixture(citation, evidence, kept):
            changed.append(citation)
    Citation.objects.bulk_create(new)
    Citation.objects.bulk_update(changed, ["evidence_source", "evidence_excerpt"])


def load_techniques(path: Path, works: dict[str, Work], kept: list[str], first: int = 0) -> None:
    categories = {c.code: c for c in Category.objects.all()}
    existing = {t.slug: t for t in Technique.objects.prefetch_related("works")}
    for order, item in enumerate(json.loads(path.read_text(encoding="utf-8")), start=first):
        values = {
            "name": item["name"],
            "category": categories[item["category"]],
            "summary": item.get("summary", ""),
            "demo_slug": item.get("demo") or "",
            "order": order,
        }
        technique = existing.get(item["slug"]) or Technique(slug=item["slug"])
        if merge_fixture(technique, values, kept) or technique.pk is None:
            technique.save()
        merge_works(technique, works_for(item.get("works", []), works), kept)


def load_results(path: Path, works: dict[str, Work], kept: list[str]) -> None:
    """The measured results (fixtures/results.json), each linked to its work and techniques;
    the fields a curator changed are kept, as for every other record."""
    techniques = {t.slug: t for t in Technique.objects.all()}
    existing = {r.slug: r for r in Result.objects.prefetch_related("techniques")}
    for order, item in enumerate(json.loads(path.read_text(encoding="utf-8"))["results"]):
        config = item["config"]
        values = {
            "work": works.get(item["work"]) if item["work"] else None,
            "outside": item["outside"],
            "year": item["year"],
            **{name: config.get(name) or default_of(name) for name in RESULT_CONFIG},
            "figures": item["figures"],
            "status": item["status"],
            "source_url": item["source_url"],
            "config_sources": item["config_sources"],
            "location": item["location"],
            "claim": item["claim"],
            "note": item["note"],
            "order": order,
        }
        result = existing.get(item["id"]) or Result(slug=item["id"])
        if merge_fixture(result, values, kept) or result.pk is None:
            result.save()
        wanted = sorted(techniques[slug].pk for slug in item["techniques"])
        if sorted(t.pk for t in result.techniques.all()) != wanted:
            if "techniques" in result.curated_fields:
                kept.append(f"kept the curator's techniques of {describe(result)}")
            else:
                result.techniques.set(wanted)


def default_of(name: str) -> object:
    """The empty value of a result's configuration field (null for numbers, {} for the layout)."""
    if name in ("global_batch", "devices", "parameters"):
        return None
    return {} if name == "layout" else ""


def load_cost_models(path: Path, works: dict[str, Work], kept: list[str], first: int = 0) -> None:
    techniques = {t.slug: t for t in Technique.objects.all()}
    models_with_works = CostModel.objects.select_related("technique").prefetch_related("works")
    existing = {(m.technique_id, m.label): m for m in models_with_works}
    deleted = CuratorDeletion.objects.keys_of("cost model")
    for order, item in enumerate(json.loads(path.read_text(encoding="utf-8")), start=first):
        technique = techniques[item["technique"]]
        if (technique.pk, item["label"]) not in existing and (
            f"{technique.slug} {item['label']}" in deleted
        ):
            kept.append(f"left out cost model {item['label']!r} of {technique.slug}: {DELETED}")
            continue
        values = {
            "quantity": item["quantity"],
            "eval": item.get("eval", ""),
            "formula": item["formula"],
            "variables": item["variables"],
            "unit": item.get("unit", ""),
            "asymptotic": item.get("asymptotic", False),
            "section": item.get("section", ""),
            "status": item["status"],
            "status_note": item.get("status_note", ""),
            "order": order,
        }
        model = existing.get((technique.pk, item["label"]))
        model = model or CostModel(technique=technique, label=item["label"])
        if merge_fixture(model, values, kept) or model.pk is None:
            model.full_clean(validate_unique=False, validate_constraints=False)
            model.save()
        merge_works(model, works_for(item.get("works", []), works), kept)


def load_seminal(path: Path, works: dict[str, Work], kept: list[str]) -> None:
    for item in json.loads(path.read_text(encoding="utf-8")):
        work = works[item["key"]]
        if merge_fixture(work, {"seminal": True, "seminal_reason": item["reason"]}, kept):
            work.save(update_fields=["seminal", "seminal_reason"])
