"""What curators did: the fields they changed in a record the fixtures also hold, and the
fixture records they deleted (load_survey keeps both)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class Curated(models.Model):
    """A record the fixtures may also hold: which of its fields a curator changed.

    Set by the admin, the API and BibTeX imports, never by `load_survey`, which keeps these
    fields as the curator left them (and says so) until `load_survey --reset` clears the marks.
    Pseudo-fields name what is not a column: "authors" (the author list), "works" (linked works).
    """

    curated_fields = models.JSONField(
        "fields a curator changed",
        default=list,
        blank=True,
        editable=False,
        help_text="Kept as they are when load_survey reloads the fixtures.",
    )

    class Meta:
        abstract = True

    def mark_curated(self, names) -> None:
        """Add `names` to the curated fields (in memory: the caller saves)."""
        self.curated_fields = sorted(set(self.curated_fields) | set(names))


class CuratorDeletionQuerySet(models.QuerySet):
    def keys_of(self, kind: str) -> set[str]:
        return set(self.filter(kind=kind).values_list("key", flat=True))

    def about(self, keys: list[str]) -> CuratorDeletionQuerySet:
        """The deletions that name any of `keys` (a work key, category code or technique slug)."""
        match = Q(pk__in=[])
        for key in keys:
            match |= Q(key=key) | Q(key__startswith=f"{key} ") | Q(key__endswith=f" {key}")
            match |= Q(key__contains=f" {key} ")
        return self.filter(match)


class CuratorDeletion(models.Model):
    """A record the fixtures hold that a curator deleted (an assignment, a citation edge or a
    cost model), by its natural key: load_survey does not bring it back, until a reset."""

    KINDS = {"Assignment": "assignment", "Citation": "citation", "CostModel": "cost model"}

    kind = models.CharField(max_length=20)
    key = models.CharField(max_length=500)
    deleted_at = models.DateTimeField(auto_now_add=True)

    objects = CuratorDeletionQuerySet.as_manager()

    class Meta:
        ordering = ["kind", "key"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="curatordeletion_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"

    @staticmethod
    def natural_key_of(record: models.Model) -> str:
        """The key load_survey matches the record on (by model name: the models of the other
        concerns import this module, not the other way round)."""
        kind = type(record).__name__
        if kind == "Assignment":
            return f"{record.work.key} {record.category.code}"
        if kind == "Citation":
            return f"{record.citing.key} {record.cited.key} {record.provenance}"
        return f"{record.technique.slug} {record.label}"

    @classmethod
    def record(cls, record: models.Model) -> None:
        """Remember that a curator deleted `record` (other models are not remembered: a deleted
        work, category or technique comes back on the next load)."""
        kind = cls.KINDS.get(type(record).__name__)
        if kind and record.pk is not None:
            cls.objects.get_or_create(kind=kind, key=cls.natural_key_of(record))
