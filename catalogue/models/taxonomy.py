"""The taxonomy: categories (the paper's sections, and the nodes added here) and each work's
assignment to them with its evidence level."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Count, Q

from catalogue import tree
from catalogue.models.choices import Era
from catalogue.models.curation import Curated
from catalogue.version import per_version


class Evidence(models.TextChoices):
    CONFIRMED = "confirmed", "confirmed"
    PARTIAL = "partial", "partial evidence"
    TOPIC = "topic-inferred", "topic-inferred"
    # Not the survey's: our mapping of a later work onto the survey's taxonomy, with a reason.
    CURATED_AFTER = "curated-after-survey", "curated after the survey"


class CategoryStatus(models.TextChoices):
    """Whether a category's section number and title are the paper's (FACTS.md section 1)."""

    CONFIRMED = "confirmed", "confirmed"
    RECALLED = "recalled", "recalled (unconfirmed)"
    UNCONFIRMED = "unconfirmed", "unconfirmed"
    # Ours, not the paper's: a node that groups the survey's content (the "bg" node, methods
    # under a section). It never claims a section of its own.
    GROUPING = "grouping", "grouping added here"
    AFTER = "after-survey", "added after the survey"


class CategoryQuerySet(models.QuerySet):
    def top_level(self) -> CategoryQuerySet:
        return self.filter(parent__isnull=True)

    def tree_with_counts(
        self, works: models.QuerySet | None = None, nodes: list[Category] | None = None
    ) -> list[Category]:
        """The category tree: root nodes, each node with `child_nodes` and `work_count`, the
        number of distinct works (of `works`, default all) in the node's whole subtree.

        Two queries whatever the size of the tree: the categories, then one grouped
        COUNT(DISTINCT), so that a work in two sub-categories counts once in the parent.
        `nodes`: the categories already read (in tree order; they get the counts), one query.
        """
        nodes, roots = self._tree() if nodes is None else _linked(nodes)
        by_era = _subtree_work_counts(nodes, works).values()
        for node in nodes:
            # A work has one era, so the per-era counts add up to the distinct works.
            node.work_count = sum(counts.works.get(node.pk, 0) for counts in by_era)
            # Of those, the works placed here only as one of several possible sections: the
            # count includes them and says so (they may count under another node too).
            node.alternative_count = sum(c.alternatives.get(node.pk, 0) for c in by_era)
        return roots

    def _tree(self) -> tuple[list[Category], list[Category]]:
        """(all nodes, root nodes), each node with its `child_nodes`, from one query."""
        return _linked(list(self.order_by("order", "code")))

    def in_tree_order(self) -> list[tuple[Category, int]]:
        """(category, depth) in reading order: each parent followed by its children, siblings in
        the paper's order, as a table of contents lists them. One query."""
        nodes = list(self.order_by("order", "code"))
        children: dict[int | None, list[Category]] = {}
        for node in nodes:
            children.setdefault(node.parent_id, []).append(node)
        known = {node.pk for node in nodes}
        ordered: list[tuple[Category, int]] = []
        stack = [(node, 0) for node in reversed(nodes) if node.parent_id not in known]
        while stack:
            node, depth = stack.pop()
            ordered.append((node, depth))
            stack.extend((child, depth + 1) for child in reversed(children.get(node.pk, [])))
        return ordered

    def root_codes(self) -> dict[int, str]:
        """Category pk -> code of its top-level ancestor, from one query."""
        rows = list(self.values_list("pk", "parent_id", "code"))
        parent_of = {pk: parent_id for pk, parent_id, _ in rows}
        code_of = {pk: code for pk, _, code in rows}
        return {pk: code_of[tree.root_of(parent_of, pk)] for pk in parent_of}

    def level_counts(self, works: models.QuerySet | None = None) -> list[Category]:
        """Top-level categories with `work_count` (see tree_with_counts)."""
        return self.tree_with_counts(works)

    def level_counts_by_era(self) -> list[Category]:
        """Top-level categories with `work_count` (works in the survey: the survey's figure) and
        `after_count` (works after it), in two queries like tree_with_counts."""
        nodes, roots = self._tree()
        counts = _subtree_work_counts(nodes, None)
        for root in roots:
            root.work_count = counts[Era.SURVEY].works.get(root.pk, 0)
            root.alternative_count = counts[Era.SURVEY].alternatives.get(root.pk, 0)
            root.after_count = counts[Era.AFTER].works.get(root.pk, 0)
        return roots


def _linked(nodes: list[Category]) -> tuple[list[Category], list[Category]]:
    """(nodes, root nodes), each node given its `child_nodes` (in the order of `nodes`)."""
    by_pk = {node.pk: node for node in nodes}
    for node in nodes:
        node.child_nodes = []
    for node in nodes:
        if node.parent_id in by_pk:
            by_pk[node.parent_id].child_nodes.append(node)
    return nodes, [node for node in nodes if node.parent_id not in by_pk]


@dataclass
class SubtreeCounts:
    """Category pk -> distinct works in the node's subtree (`works`), and of those the works
    placed there only as one of several possible sections (`alternatives`)."""

    works: dict[int, int]
    alternatives: dict[int, int]


def _subtree_work_counts(
    nodes: list[Category], works: models.QuerySet | None
) -> dict[str, SubtreeCounts]:
    """Era -> the subtree counts of the works of that era, from one query.

    The (category, work) pairs are read once and rolled up the tree here: measured on 100,000
    works, this beats both one COUNT(DISTINCT) per node and a grouped join over a closure table,
    which SQLite plans as a nested loop (bench/browse_bench.py).
    """
    children = tree.children_of({node.pk: node.parent_id for node in nodes})
    ancestors_of: dict[int, list[int]] = {}
    for node in nodes:
        for descendant in tree.subtree(children, node.pk):
            ancestors_of.setdefault(descendant, []).append(node.pk)
    pairs = Assignment.objects.order_by()
    if works is not None:
        ids = works.ids_sql() if hasattr(works, "ids_sql") else works.order_by().values("pk")
        pairs = pairs.filter(work__in=ids)
    # era -> node -> works under it; "firmly": through an assignment without alternatives.
    under = {era: {node.pk: set() for node in nodes} for era in Era.values}
    firmly = {era: {node.pk: set() for node in nodes} for era in Era.values}
    fields = ("category_id", "work_id", "work__era", "alternatives")
    for category_id, work_id, era, alternatives in pairs.values_list(*fields).iterator(2000):
        for ancestor in ancestors_of.get(category_id, ()):
            under[era][ancestor].add(work_id)
            if not alternatives:
                firmly[era][ancestor].add(work_id)
    return {
        era: SubtreeCounts(
            works={pk: len(ids) for pk, ids in under[era].items()},
            alternatives={pk: len(ids - firmly[era][pk]) for pk, ids in under[era].items()},
        )
        for era in Era.values
    }


class Category(Curated):
    code = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=200)
    section = models.CharField("paper section", max_length=30, blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    order = models.PositiveSmallIntegerField(default=0)
    description = models.TextField(blank=True)
    status = models.CharField(
        max_length=20,
        choices=CategoryStatus.choices,
        default=CategoryStatus.CONFIRMED,
        help_text="Whether the section number and title are confirmed by a source, or the node "
        "is a grouping added here.",
    )
    extends = models.CharField(
        "extends survey section",
        max_length=30,
        blank=True,
        help_text="Set only for a category added after the survey: the survey section it "
        "extends. Such a category is ours, never the paper's.",
    )

    objects = CategoryQuerySet.as_manager()

    class Meta:
        ordering = ["order", "code"]
        verbose_name_plural = "categories"
        constraints = [
            models.CheckConstraint(
                condition=~Q(parent=models.F("pk")), name="category_not_own_parent"
            ),
        ]

    def __str__(self) -> str:
        if self.extends:
            return f"{self.name} (after the survey, extends §{self.extends})"
        return f"§{self.section} {self.name}" if self.section else self.name

    @property
    def is_extension(self) -> bool:
        return bool(self.extends)

    def clean(self) -> None:
        node, seen = self.parent, {self.pk}
        while node is not None:
            if node.pk in seen:
                raise ValidationError({"parent": "A category cannot be its own ancestor."})
            seen.add(node.pk)
            node = node.parent

    def subtree_codes(self) -> list[str]:
        """Codes of this category and all its descendants. The tree's (pk, code, parent) rows
        are read once per catalogue version: a filter by level or category asks on every
        request, and the works page with a search asks twice (its other era's count)."""
        rows = per_version("category-tree-rows", _tree_rows, in_process=True)
        code_of = {pk: code for pk, code, _ in rows}
        children = tree.children_of({pk: parent_id for pk, _, parent_id in rows})
        return [code_of[pk] for pk in tree.subtree(children, self.pk)]


def _tree_rows() -> list[tuple[int, str, int | None]]:
    return list(Category.objects.values_list("pk", "code", "parent_id"))


class AssignmentQuerySet(models.QuerySet):
    def works_per_evidence(self) -> list[tuple[str, int]]:
        """(evidence level, distinct works placed with it), by level."""
        counts = self.values_list("evidence").annotate(n=Count("work", distinct=True))
        return list(counts.order_by("evidence"))


class Assignment(Curated):
    work = models.ForeignKey("catalogue.Work", on_delete=models.CASCADE, related_name="assignments")
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="assignments")
    evidence = models.CharField(max_length=20, choices=Evidence.choices)
    source_note = models.TextField(blank=True)
    objects = AssignmentQuerySet.as_manager()
    alternatives = models.CharField(
        max_length=100,
        blank=True,
        help_text='Set when the source gives several possible sections ("7.1/7.2 gossip"): the '
        "work's assignments with the same text are one placement with alternatives.",
    )

    class Meta:
        ordering = ["work", "category__order", "category__code"]
        constraints = [
            models.UniqueConstraint(fields=["work", "category"], name="assignment_unique"),
            models.CheckConstraint(
                condition=Q(evidence__in=Evidence.values), name="assignment_evidence_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.work.key} in {self.category.code} ({self.evidence})"

    def clean(self) -> None:
        # The survey's own evidence levels belong to its works; ours to the works after it.
        # In an admin inline the work may be new (no id yet) but is already attached.
        attached = self.work_id is not None or Assignment.work.is_cached(self)
        work = self.work if attached else None
        after = work is not None and work.era == Era.AFTER
        curated = self.evidence == Evidence.CURATED_AFTER
        if after and not curated:
            raise ValidationError(
                {"evidence": "A work after the survey is mapped with 'curated after the survey'."}
            )
        if curated and not after:
            raise ValidationError(
                {"evidence": "'Curated after the survey' is only for works after the survey."}
            )
        if curated and not self.source_note.strip():
            raise ValidationError({"source_note": "Give the reason: what the work extends."})
