"""The catalogue's choices that several of its models share: a work's era, an edge's provenance.
Their own module, so that the models that use them import no other model for them."""

from __future__ import annotations

from django.db import models


class Era(models.TextChoices):
    """Whether a work belongs to the survey (the survey and its bibliography), came after it
    (with the source of its metadata), or was added by a curator (an import, the admin).

    The survey is closed: its era holds the survey and its 269 references, as the fixtures say,
    and no door moves a work into it or out of it (Work.clean and a database constraint)."""

    SURVEY = "survey", "in the survey"
    AFTER = "after", "after the survey"
    CURATED = "curated", "added by curators"


ERA_FILTER_VALUES = [*Era.values, "all"]


class Provenance(models.TextChoices):
    SURVEY = "survey-reference-list", "the survey's reference list"
    BIBLIOGRAPHY = "citing-paper-bibliography", "the citing paper's bibliography"
    NOTE = "reference-list-note", "a public reference-list note"
    INDEX = "secondary-index", "a citation index record"
    CURATOR = "curator", "added by a curator"
