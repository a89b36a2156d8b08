"""The people who wrote the works: authors (as each source spells them), the persons behind several
spellings, and the ordered authorships of each work."""

from __future__ import annotations

from django.db import models
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse


class Person(models.Model):
    """One person behind several spellings of a name (the curated identity table,
    fixtures/identities.json, says which and by what rule). Named by the fullest spelling the
    source prints: no given names are invented."""

    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class AuthorQuerySet(models.QuerySet):
    def with_work_counts(self) -> AuthorQuerySet:
        """`work_count`: the distinct works of the author's person (all its spellings), or of
        the spelling alone when no person links it."""
        of_person = (
            Authorship.objects.filter(author__person=OuterRef("person"))
            .order_by()
            .values("author__person")
            .annotate(n=Count("work", distinct=True))
            .values("n")
        )
        return self.annotate(
            own_count=Count("authorships"),
            work_count=Coalesce(Subquery(of_person), "own_count"),
        )

    def identity_report(self) -> dict:
        """The identity table as the data-quality page shows it: people with their spellings,
        and the spellings left apart with the reason. Two queries."""
        people: dict[str, list[str]] = {}
        for name, person in self.filter(person__isnull=False).values_list("name", "person__name"):
            people.setdefault(person, []).append(name)
        apart: dict[str, list[str]] = {}
        for name, note in self.exclude(identity_note="").values_list("name", "identity_note"):
            apart.setdefault(note, []).append(name)
        return {
            "people": [{"name": k, "spellings": v} for k, v in sorted(people.items())],
            "spellings_linked": sum(len(v) for v in people.values()),
            "left_apart": [{"spellings": v, "reason": k} for k, v in sorted(apart.items())],
            "spellings_left_apart": sum(len(v) for v in apart.values()),
        }


class Author(models.Model):
    # Names as the source prints them ("D. Alistarh"): no given names are invented.
    name = models.CharField(max_length=200, unique=True)
    person = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="spellings"
    )
    identity_note = models.CharField(
        max_length=300,
        blank=True,
        help_text="Why this spelling is left apart from similar ones (the identity table).",
    )

    objects = AuthorQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("works:author-detail", args=[self.pk])


class Authorship(models.Model):
    work = models.ForeignKey("catalogue.Work", on_delete=models.CASCADE, related_name="authorships")
    author = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="authorships")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["work", "position"]
        constraints = [
            models.UniqueConstraint(fields=["work", "position"], name="authorship_unique_position"),
            models.UniqueConstraint(fields=["work", "author"], name="authorship_unique_author"),
        ]

    def __str__(self) -> str:
        return f"{self.author} ({self.position}) on {self.work.key}"
