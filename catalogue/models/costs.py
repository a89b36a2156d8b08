"""Techniques and their Work-Depth cost models, each formula with its status."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Exists, OuterRef, Q

from catalogue.models.curation import Curated


class FormulaStatus(models.TextChoices):
    CONFIRMED = "confirmed", "confirmed"
    PARTIAL = "partial", "partial"
    RECALLED = "recalled", "recalled (unconfirmed)"
    STANDARD = "standard", "standard result"
    # Ours, not the survey's or a textbook's: the status note shows the derivation.
    DERIVED = "derived", "derived here"
    # A source prints it, but it is probably wrong: the status note gives the reason.
    DOUBTFUL = "doubtful", "doubtful"


# Statuses whose status note must say why (the derivation, or the reason for the doubt).
EXPLAINED_STATUSES = (FormulaStatus.DERIVED, FormulaStatus.DOUBTFUL)


class Quantity(models.TextChoices):
    WORK = "work", "work"
    DEPTH = "depth", "depth"
    TIME = "time", "time"
    COMMUNICATION = "communication", "communication"
    PARALLELISM = "parallelism", "average parallelism"
    BOUND = "bound", "bound"
    FRACTION = "fraction", "fraction"


class Technique(Curated):
    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    category = models.ForeignKey(
        "catalogue.Category", on_delete=models.PROTECT, related_name="techniques"
    )
    summary = models.TextField(blank=True)
    works = models.ManyToManyField("catalogue.Work", blank=True, related_name="techniques")
    demo_slug = models.SlugField(max_length=80, blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.name


def validate_variables(value: object) -> None:
    """Variables: a list of {name, meaning, default, min, max, unit}, min <= default <= max."""
    if not isinstance(value, list):
        raise ValidationError("Variables must be a list.")
    names = set()
    for index, var in enumerate(value):
        if not isinstance(var, dict) or not isinstance(var.get("name"), str):
            raise ValidationError(f"Variable {index + 1} needs a name.")
        name = var["name"]
        if not name.isidentifier():
            raise ValidationError(f"Variable name {name!r} is not a valid identifier.")
        if name in names:
            raise ValidationError(f"Variable {name!r} is declared twice.")
        names.add(name)
        bounds = [var.get(k) for k in ("min", "default", "max")]
        if not all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds):
            raise ValidationError(f"Variable {name!r} needs numeric min, default and max.")
        if not bounds[0] <= bounds[1] <= bounds[2]:
            raise ValidationError(f"Variable {name!r}: min <= default <= max does not hold.")


class CostModel(Curated):
    technique = models.ForeignKey(Technique, on_delete=models.CASCADE, related_name="cost_models")
    quantity = models.CharField(max_length=20, choices=Quantity.choices)
    eval = models.CharField(
        "evaluation", max_length=30, blank=True, help_text="forward, weight-gradient, ..."
    )
    label = models.CharField(max_length=200)
    formula = models.CharField(max_length=500)
    variables = models.JSONField(default=list, blank=True, validators=[validate_variables])
    unit = models.CharField(max_length=40, blank=True)
    asymptotic = models.BooleanField(
        default=False, help_text="The source gives O(...) only: the formula is the leading term."
    )
    section = models.CharField("source section", max_length=60, blank=True)
    status = models.CharField(max_length=20, choices=FormulaStatus.choices)
    status_note = models.TextField(blank=True)
    works = models.ManyToManyField("catalogue.Work", blank=True, related_name="cost_models")
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["technique__order", "order", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=FormulaStatus.values), name="costmodel_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(quantity__in=Quantity.values), name="costmodel_quantity_valid"
            ),
            models.CheckConstraint(
                condition=~Q(status__in=EXPLAINED_STATUSES) | ~Q(status_note=""),
                name="costmodel_derived_or_doubtful_explained",
            ),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def variable_names(self) -> list[str]:
        return [v["name"] for v in self.variables if isinstance(v, dict) and "name" in v]

    def clean(self) -> None:
        from catalogue import costs  # pure module; imported late to keep model loading light

        try:
            costs.validate(self.formula, self.variable_names)
        except costs.FormulaError as error:
            raise ValidationError({"formula": str(error)}) from error
        if self.status in EXPLAINED_STATUSES and not self.status_note.strip():
            raise ValidationError(
                {"status_note": "A derived formula shows its derivation, a doubtful one why."}
            )


def has_cost_model() -> Q:
    """A work has a cost model when a model cites it or its technique does (the works facet and
    the filter's one definition)."""
    return Q(Exists(CostModel.objects.filter(works=OuterRef("pk")))) | Q(
        Exists(CostModel.objects.filter(technique__works=OuterRef("pk")))
    )


def has_demo() -> Q:
    """A work has a demo when a technique that cites it has one."""
    return Q(Exists(Technique.objects.filter(works=OuterRef("pk")).exclude(demo_slug="")))
