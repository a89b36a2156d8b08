"""Measured results from the literature: what a work reports it achieved (a training time, a
throughput, a utilisation), in which configuration, where in the paper, and how we know each
figure: read on a stored page (with its URL), derived by us from read figures, or recalled and
unconfirmed. Loaded from fixtures/results.json; curators edit them under the same rules as works
(load_survey keeps the fields they changed)."""

from __future__ import annotations

from django.db import models

from catalogue.models.costs import Technique
from catalogue.models.curation import Curated
from catalogue.models.works import Work


class ResultStatus(models.TextChoices):
    READ = "read", "read on a stored page"
    RECALLED = "recalled", "recalled, unconfirmed"


class StrategyFamily(models.TextChoices):
    SINGLE = "single", "one device"
    DATA = "data", "data parallelism"
    MODEL = "model", "model parallelism"
    PIPELINE = "pipeline", "pipelining"
    HYBRID = "hybrid", "hybrid (data x model x pipeline)"
    SHARDED = "sharded", "sharded data parallelism (ZeRO)"
    EXPERT = "expert", "expert parallelism (mixture of experts)"


FIGURE_STATUSES = ("read", "derived", "recalled")


def shown(name: str, value: float) -> str:
    """A figure as a reader reads it: durations in s/min/h/days, FLOP/s with their prefix,
    fractions as percentages."""
    if name.endswith("_s") and name != "samples_per_s" and name != "tokens_per_s":
        for unit, seconds in (("days", 86400), ("h", 3600), ("min", 60)):
            if value >= 2 * seconds:
                return f"{value / seconds:.3g} {unit}"
        return f"{value:.3g} s"
    if name in ("utilisation", "accuracy", "scaling_efficiency"):
        return f"{100 * value:.3g}%"
    if name in ("flops_per_device", "aggregate_flops", "total_flops"):
        for prefix, scale in (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9)):
            if value >= scale:
                suffix = "FLOP" if name == "total_flops" else "FLOP/s"
                return f"{value / scale:.3g} {prefix}{suffix}"
    if name in ("speedup", "machines_ratio"):
        return f"{value:g}x"
    if name in ("samples_per_s", "tokens_per_s"):
        return f"{value:,.0f}/s"
    return f"{value:,.6g}"


class ResultQuerySet(models.QuerySet):
    def for_list(self) -> ResultQuerySet:
        """What a list of results shows: the work and the techniques, in two queries."""
        return self.select_related("work").prefetch_related(
            models.Prefetch("techniques", queryset=Technique.objects.only("slug", "name"))
        )

    def of_work(self, work: Work) -> ResultQuerySet:
        return self.filter(work=work)

    def of_techniques(self, slugs: list[str]) -> ResultQuerySet:
        return self.filter(techniques__slug__in=slugs).distinct()


class Result(Curated):
    slug = models.SlugField(max_length=120, unique=True)
    work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="results"
    )
    outside = models.JSONField(
        "work outside the catalogue",
        null=True,
        blank=True,
        help_text="For a work the catalogue lacks: key, title, authors, year, arxiv, url.",
    )
    year = models.PositiveSmallIntegerField()
    network = models.CharField(max_length=200)
    dataset = models.CharField(max_length=200, blank=True)
    global_batch = models.FloatField(null=True, blank=True)
    batch_unit = models.CharField(max_length=20, blank=True)
    devices = models.PositiveIntegerField(null=True, blank=True)
    device_kind = models.CharField(max_length=200, blank=True)
    interconnect = models.CharField(max_length=300, blank=True)
    precision = models.CharField(max_length=100, blank=True)
    family = models.CharField(max_length=20, choices=StrategyFamily.choices)
    strategy = models.CharField(max_length=300, blank=True)
    layout = models.JSONField(default=dict, blank=True, help_text="dp, tp, pp when known.")
    parameters = models.FloatField(null=True, blank=True)
    techniques = models.ManyToManyField(Technique, blank=True, related_name="results")
    figures = models.JSONField(
        default=list,
        help_text="[{name, value, unit, status (read|derived|recalled), url, derivation}]",
    )
    status = models.CharField(max_length=20, choices=ResultStatus.choices)
    source_url = models.URLField(max_length=500, blank=True)
    config_sources = models.JSONField(default=dict, blank=True)
    location = models.CharField("where in the paper", max_length=300)
    claim = models.TextField(blank=True)
    note = models.TextField(blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    objects = ResultQuerySet.as_manager()

    class Meta:
        ordering = ["order", "slug"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=ResultStatus.values), name="result_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(family__in=StrategyFamily.values), name="result_family_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(work__isnull=False) | models.Q(outside__isnull=False),
                name="result_has_a_work",
            ),
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def shown_figures(self) -> list[dict]:
        """The figures with their value in words for a reader (read ones first)."""
        order = {status: index for index, status in enumerate(FIGURE_STATUSES)}
        figures = sorted(self.figures, key=lambda f: order.get(f["status"], 3))
        return [f | {"shown": shown(f["name"], f["value"])} for f in figures]

    def figure(self, name: str) -> float | None:
        return next((f["value"] for f in self.figures if f["name"] == name), None)

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        problems = []
        for figure in self.figures or []:
            if figure.get("status") not in FIGURE_STATUSES:
                problems.append(f"{figure.get('name')}: status must be read, derived or recalled")
            if figure.get("status") == "read" and not str(figure.get("url", "")).startswith(
                ("https://", "http://")
            ):
                problems.append(f"{figure.get('name')}: a read figure needs the page's URL")
        read = any(f.get("status") == "read" for f in self.figures or [])
        if self.status == ResultStatus.READ and not read:
            problems.append("status 'read' needs at least one figure read on a page")
        if self.status == ResultStatus.READ and not self.source_url:
            problems.append("status 'read' needs the URL of a page where the number can be read")
        if problems:
            raise ValidationError({"figures": problems})
