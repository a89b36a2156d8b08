"""Citation edges among works, each with its provenance and evidence."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Count, Q

from catalogue.models.choices import Era, Provenance
from catalogue.models.curation import Curated


class CitationQuerySet(models.QuerySet):
    def with_works(self) -> CitationQuerySet:
        return self.select_related("citing", "cited")

    def among_references(self) -> CitationQuerySet:
        """Edges among the survey's references (not the survey's own, not later works')."""
        return self.exclude(provenance=Provenance.SURVEY).filter(
            citing__era=Era.SURVEY, cited__era=Era.SURVEY
        )

    def among_survey_works(self) -> CitationQuerySet:
        """Edges between two works of the survey (its own reference-list edges included)."""
        return self.filter(citing__era=Era.SURVEY, cited__era=Era.SURVEY)

    def per_provenance(self) -> list[tuple[str, int]]:
        """(provenance, edges), by provenance."""
        return list(self.values_list("provenance").annotate(n=Count("pk")).order_by("provenance"))

    def touching_after_survey(self) -> CitationQuerySet:
        """Edges with a work after the survey at either end."""
        return self.filter(Q(citing__era=Era.AFTER) | Q(cited__era=Era.AFTER))


class Citation(Curated):
    citing = models.ForeignKey(
        "catalogue.Work", on_delete=models.CASCADE, related_name="citations_out"
    )
    cited = models.ForeignKey(
        "catalogue.Work", on_delete=models.CASCADE, related_name="citations_in"
    )
    provenance = models.CharField(max_length=40, choices=Provenance.choices)
    evidence_source = models.TextField(
        blank=True, help_text="Where the evidence is: a URL or a description of the source."
    )
    evidence_excerpt = models.TextField(blank=True, help_text="The line that shows the citation.")

    objects = CitationQuerySet.as_manager()

    class Meta:
        ordering = ["citing__survey_ref", "cited__survey_ref", "provenance"]
        constraints = [
            models.UniqueConstraint(
                fields=["citing", "cited", "provenance"], name="citation_unique_per_provenance"
            ),
            models.CheckConstraint(
                condition=~Q(citing=models.F("cited")), name="citation_no_self_citation"
            ),
            models.CheckConstraint(
                condition=Q(provenance__in=Provenance.values), name="citation_provenance_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.citing.key} cites {self.cited.key} ({self.provenance})"

    def clean(self) -> None:
        if self.citing_id and self.citing_id == self.cited_id:
            raise ValidationError("A work cannot cite itself.")
        if self.provenance != Provenance.SURVEY and not (
            self.evidence_source or self.evidence_excerpt
        ):
            raise ValidationError(
                "Say where the evidence for this citation is (source or excerpt)."
            )
