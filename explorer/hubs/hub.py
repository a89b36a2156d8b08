"""Everything the catalogue holds on one taxonomy node, read in a constant number of queries;
the hub page and its JSON twin both start here."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Min, Prefetch, Q
from django.http import Http404

from catalogue import tree
from catalogue.models import (
    Category,
    Citation,
    CostModel,
    Era,
    MlperfBenchmark,
    Result,
    Technique,
    Work,
)
from explorer.demos import DEMOS, Demo
from explorer.hubs.curves import CostPlot, cost_plots
from explorer.hubs.neighbourhood import Neighbourhood, neighbourhood
from explorer.hubs.wd_plot import WDPoint, evaluate_at_defaults

WORKS_SHOWN = 60  # per era; the works page lists the rest
SNOWBALL_SEEDS = 20  # a replay seeded with more is slow to read; the confirmed works come first
TRUSTED = {"confirmed"}


@dataclass
class Hub:
    node: Category
    ancestors: list[Category]
    siblings: list[Category]
    children: list[Category]
    codes: list[str]  # the node and its descendants
    techniques: list[Technique]
    demos: list[Demo]
    works: dict[str, list[Work]]  # era -> the first WORKS_SHOWN
    counts: dict[str, int]  # era -> all works in the subtree
    points: list[WDPoint]
    citations: Neighbourhood
    neighbour_works: dict[int, Work] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)  # its techniques' measured results
    plots: list[CostPlot] = field(default_factory=list)  # cost curves (after the survey)
    # MLPerf Training benchmarks of its techniques, each with its scores' count and best time
    mlperf: list[MlperfBenchmark] = field(default_factory=list)

    @property
    def seeds(self) -> list[str]:
        """Snowball seeds: the section's works in the survey, those with the strongest
        evidence first (a replay from a section starts from what the survey put there)."""
        works = self.works[Era.SURVEY]
        ranked = sorted(works, key=lambda work: _evidence_rank(work.hub_assignments))
        return [work.key for work in ranked[:SNOWBALL_SEEDS]]


def status_label(category: Category) -> str:
    """The category's status in words, from its field's choices when it has them."""
    display = getattr(category, "get_status_display", None)
    return display() if display else category.status


def load_hub(code: str) -> Hub:
    roots = Category.objects.tree_with_counts()  # two queries: the tree and its counts
    nodes = {node.code: node for node in _walk(roots)}
    node = nodes.get(code)
    if node is None:
        raise Http404(f"No category {code!r}.")
    by_pk = {n.pk: n for n in nodes.values()}
    ancestors = _ancestors(node, by_pk)
    parent = ancestors[-1] if ancestors else None
    siblings = parent.child_nodes if parent else roots
    children_map = tree.children_of({n.pk: n.parent_id for n in nodes.values()})
    codes = [by_pk[pk].code for pk in tree.subtree(children_map, node.pk)]
    techniques = _techniques(codes)
    works, counts = _works(codes)
    hub = Hub(
        node=node,
        ancestors=ancestors,
        siblings=[s for s in siblings if s.pk != node.pk],
        children=node.child_nodes,
        codes=codes,
        techniques=techniques,
        demos=_demos(techniques),
        works=works,
        counts=counts,
        points=_points(techniques),
        plots=cost_plots(techniques),
        citations=Neighbourhood(),
        results=list(
            Result.objects.select_related("work").of_techniques([t.slug for t in techniques])
        ),
    )
    hub.mlperf = _mlperf(techniques)
    _add_citations(hub)
    return hub


def _mlperf(techniques: list[Technique]) -> list[MlperfBenchmark]:
    """The MLPerf Training benchmarks linked to the techniques, with the number of their scores
    and the best (one query)."""
    slugs = [technique.slug for technique in techniques]
    return list(
        MlperfBenchmark.objects.filter(techniques__slug__in=slugs)
        .distinct()
        .annotate(scored=Count("scores", filter=Q(scores__minutes__isnull=False), distinct=True))
        .annotate(best=Min("scores__minutes"))
        .order_by("order", "slug")
    )


def _walk(roots: list[Category]):
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.child_nodes))


def _ancestors(node: Category, by_pk: dict[int, Category]) -> list[Category]:
    ancestors, current = [], by_pk.get(node.parent_id)
    while current is not None:
        ancestors.append(current)
        current = by_pk.get(current.parent_id)
    return list(reversed(ancestors))


def _techniques(codes: list[str]) -> list[Technique]:
    """The techniques filed under the node or below, with their cost models (two queries)."""
    models = CostModel.objects.order_by("order", "pk")
    return list(
        Technique.objects.filter(category__code__in=codes)
        .select_related("category")
        .prefetch_related(Prefetch("cost_models", queryset=models))
        .order_by("category__order", "order", "slug")
    )


def _demos(techniques: list[Technique]) -> list[Demo]:
    slugs = {technique.slug for technique in techniques}
    return [demo for demo in DEMOS.values() if slugs & set(demo.techniques)]


def _works(codes: list[str]) -> tuple[dict[str, list[Work]], dict[str, int]]:
    """Per era, the first works of the subtree (each with `hub_assignments`: its assignments
    to the node or below) and how many there are in all."""
    in_subtree = Work.objects.filter(assignments__category__code__in=codes).distinct()
    works, counts = {}, {}
    subtree = set(codes)
    for era in Era.values:
        selected = in_subtree.filter(era=era).for_list()
        if era == Era.AFTER:
            selected = selected.order_by("year", "key")
        shown = list(selected[: WORKS_SHOWN + 1])  # one more tells whether to count them all
        counts[era] = len(shown) if len(shown) <= WORKS_SHOWN else selected.count()
        works[era] = shown[:WORKS_SHOWN]
        for work in works[era]:
            work.hub_assignments = [a for a in work.assignments.all() if a.category.code in subtree]
    return works, counts


EVIDENCE_ORDER = ["confirmed", "partial"]  # the strongest first; anything else after


def _evidence_rank(assignments) -> int:
    ranks = [
        EVIDENCE_ORDER.index(a.evidence) if a.evidence in EVIDENCE_ORDER else len(EVIDENCE_ORDER)
        for a in assignments
    ]
    return min(ranks, default=len(EVIDENCE_ORDER))


def _points(techniques: list[Technique]) -> list[WDPoint]:
    """One W-D point per (technique, evaluation) with both a work and a depth formula."""
    points = []
    for technique in techniques:
        pairs: dict[str, dict[str, CostModel]] = {}
        for model in technique.cost_models.all():
            if model.quantity in ("work", "depth"):
                pairs.setdefault(model.eval, {})[model.quantity] = model
        for evaluation, pair in pairs.items():
            if len(pair) < 2:
                continue
            work, depth = (pair[q] for q in ("work", "depth"))
            w = evaluate_at_defaults(work.formula, work.variables)
            d = evaluate_at_defaults(depth.formula, depth.variables)
            if w is None or d is None:
                continue
            label = technique.name + (f", {evaluation.replace('-', ' ')}" if evaluation else "")
            trusted = work.status in TRUSTED and depth.status in TRUSTED
            points.append(WDPoint(label, w, d, trusted))
    return points


def _add_citations(hub: Hub) -> None:
    """The node's neighbourhood in the citation graph (two queries)."""
    inside = Work.objects.filter(assignments__category__code__in=hub.codes).values("pk")
    edges = Citation.objects.filter(Q(citing__in=inside) | Q(cited__in=inside)).order_by()
    # One edge per pair of works: an edge recorded by two provenances is still one citation.
    pairs = set(edges.values_list("citing_id", "cited_id"))
    inside_ids = set(inside.values_list("pk", flat=True))
    hub.citations = neighbourhood(sorted(pairs), inside_ids)
    ids = [work_id for work_id, _, _ in hub.citations.neighbours]
    hub.neighbour_works = Work.objects.only("key", "title", "year", "era", "survey_ref").in_bulk(
        ids
    )
