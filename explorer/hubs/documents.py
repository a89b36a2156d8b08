"""The hub as a JSON document (/api/categories/<slug>/): the page's content, with URLs."""

from __future__ import annotations

from typing import Any

from catalogue.mathml import formula_mathml
from explorer.hubs.hub import Hub, status_label
from explorer.hubs.links import hub_links
from explorer.web.links import link

COVERAGE_NOTE = (
    "Citation coverage is partial: a missing edge does not mean that a work does not cite another."
)


def hub_document(hub: Hub, absolute) -> dict[str, Any]:
    """`absolute` turns a path into an absolute URL (request.build_absolute_uri)."""
    links = {name: absolute(url) if url else None for name, url in hub_links(hub).items()}
    return {
        **_node(hub.node, absolute),
        "status_label": status_label(hub.node),
        "breadcrumbs": [_node(n, absolute) for n in hub.ancestors],
        "siblings": [_node(n, absolute) for n in hub.siblings],
        "children": [_node(n, absolute) for n in hub.children],
        "techniques": [_technique(t, absolute) for t in hub.techniques],
        "wd_points": [
            {"label": p.label, "work": p.work, "depth": p.depth, "confirmed": p.trusted}
            for p in hub.points
        ],
        "cost_plots": [
            {
                "technique": p.technique,
                "quantity": p.quantity,
                "unit": p.value_unit,
                "variable": p.variable,
                "meaning": p.meaning,
                "variable_unit": p.unit,
                "xs": list(p.xs),
                "curves": [
                    {"label": c.label, "values": list(c.values), "confirmed": c.trusted}
                    for c in p.curves
                ],
            }
            for p in hub.plots
        ],
        "demos": [
            {
                "slug": d.slug,
                "title": d.title,
                "html_url": absolute(link("demos:demo-detail", d.slug)),
            }
            for d in hub.demos
        ],
        "works": {era: _works(hub, era, absolute) for era in hub.works},
        "citations": _citations(hub, absolute),
        "results": [_result(r, absolute) for r in hub.results],
        "mlperf": [
            {
                "benchmark": b.slug,
                "name": b.name,
                "scores": b.scored,
                "best_minutes": b.best,
                "html_url": absolute(link("mlperf:mlperf", query=f"benchmark={b.slug}")),
            }
            for b in hub.mlperf
        ],
        "links": links,
    }


def _result(result, absolute) -> dict[str, Any]:
    """A measured result of the hub's techniques: its row on /results/ holds the prediction."""
    return {
        "id": result.slug,
        "work": result.work.key if result.work else None,
        "year": result.year,
        "network": result.network,
        "devices": result.devices,
        "device_kind": result.device_kind,
        "family": result.family,
        "status": result.status,
        "figures": result.figures,
        "html_url": absolute(link("results:results") + f"#result-{result.slug}"),
    }


def _node(node, absolute) -> dict[str, Any]:
    return {
        "slug": node.code,
        "name": node.name,
        "section": node.section,
        "status": node.status,
        "extends": node.extends,
        "description": node.description,
        "work_count": node.work_count,
        "url": absolute(link("hubs:api-hub", node.code)),
        "html_url": absolute(link("hubs:hub", node.code)),
    }


def _technique(technique, absolute) -> dict[str, Any]:
    return {
        "slug": technique.slug,
        "name": technique.name,
        "category": technique.category.code,
        "summary": technique.summary,
        "cost_models": [_cost_model(m, absolute) for m in technique.cost_models.all()],
    }


def _cost_model(model, absolute) -> dict[str, Any]:
    return {
        "id": model.pk,
        "label": model.label,
        "quantity": model.quantity,
        "eval": model.eval,
        "formula": model.formula,
        "mathml": formula_mathml(model.formula),
        "asymptotic": model.asymptotic,
        "section": model.section,
        "status": model.status,
        "status_label": model.get_status_display(),
        "evaluate_url": absolute(link("costs:api-cost-model-evaluate", model.pk)),
    }


def _works(hub: Hub, era: str, absolute) -> dict[str, Any]:
    return {
        "count": hub.counts[era],
        "shown": len(hub.works[era]),
        "results": [
            {
                "key": work.key,
                "title": work.title,
                "year": work.year,
                "survey_ref": work.survey_ref,
                "assignments": [
                    {"category": a.category.code, "evidence": a.evidence}
                    for a in work.hub_assignments
                ],
                "html_url": absolute(work.get_absolute_url()),
            }
            for work in hub.works[era]
        ],
    }


def _citations(hub: Hub, absolute) -> dict[str, Any]:
    found = hub.citations
    neighbours = []
    for work_id, cites_section, cited_by_section in found.neighbours:
        work = hub.neighbour_works[work_id]
        neighbours.append(
            {
                "key": work.key,
                "title": work.title,
                "era": work.era,
                "cites_section": cites_section,
                "cited_by_section": cited_by_section,
                "html_url": absolute(work.get_absolute_url()),
            }
        )
    return {
        "internal": found.internal,
        "outgoing": found.outgoing,
        "incoming": found.incoming,
        "neighbours": neighbours,
        "coverage_note": COVERAGE_NOTE,
    }
