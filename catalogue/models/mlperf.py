"""MLPerf Training, read from the submitters' own logs in mlcommons/training_results_v*.

A round (v0.5 ... v5.1) is one repository at one commit; a system is one submitter's entry in a
round (its `systems/<id>.json`); a run is one `result_<n>.txt` log; a score is the time to train
of (system, benchmark) computed with that round's rule (fixtures/build/mlperf_scoring.py), the rule
named with the URL of its text. Benchmarks are named once across rounds (`resnet`, `bert`, ...)
with the names each round's directories use. Every row keeps where it was read: the round's
repository and commit, and the row's path in it. Loaded from fixtures/mlperf.json.gz by
catalogue/mlperf/load.py; curators do not edit these rows (the logs are the source).
"""

from __future__ import annotations

from django.db import models


class RunStatus(models.TextChoices):
    SUCCESS = "success", "reached the target"
    ABORTED = "aborted", "aborted (did not reach the target)"
    ABSENT = "absent", "log listed but absent from the snapshot"
    UNPARSED = "unparsed", "log present but could not be read"


class RcpStatus(models.TextChoices):
    APPLIED = "applied", "RCP normalisation applied"
    NOT_APPLIED = "not_applied", "RCP normalisation not applied"
    NOT_IN_RULES = "not_in_rules", "the round's rules have no RCP"


class MlperfRound(models.Model):
    version = models.CharField(max_length=10, unique=True, help_text="v0.5 ... v5.1")
    repository = models.CharField(max_length=100, help_text="owner/name on GitHub")
    commit = models.CharField(max_length=40, blank=True)
    available = models.BooleanField(default=True)
    note = models.TextField(blank=True, help_text="why a round is unavailable, for instance")
    rules_url = models.URLField(max_length=300, blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order"]

    def __str__(self) -> str:
        return self.version

    def file_url(self, path: str) -> str:
        return f"https://github.com/{self.repository}/blob/{self.commit}/{path}"


class MlperfBenchmark(models.Model):
    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=120)
    task = models.CharField(max_length=200, blank=True)
    dataset = models.CharField(max_length=200, blank=True)
    quality_target = models.CharField(max_length=200, blank=True)
    aliases = models.JSONField(
        default=dict, blank=True, help_text="{round version: [directory names used]}"
    )
    network = models.CharField(
        max_length=40, blank=True, help_text="the planner's network key, when it has one"
    )
    work = models.ForeignKey(
        "catalogue.Work",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="mlperf_benchmarks",
    )
    techniques = models.ManyToManyField(
        "catalogue.Technique", blank=True, related_name="mlperf_benchmarks"
    )
    categories = models.ManyToManyField(
        "catalogue.Category", blank=True, related_name="mlperf_benchmarks"
    )
    link_evidence = models.TextField(blank=True, help_text="why the links hold")
    sources = models.JSONField(default=list, blank=True, help_text="URLs")
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.slug


class MlperfSystem(models.Model):
    round = models.ForeignKey(
        "catalogue.MlperfRound", on_delete=models.CASCADE, related_name="systems"
    )
    submitter = models.CharField(max_length=100)
    system_id = models.CharField(max_length=300, help_text="the system's directory name")
    name = models.CharField(max_length=300, blank=True)
    division = models.CharField(max_length=20, blank=True, help_text="closed, open or blank")
    availability = models.CharField(max_length=60, blank=True, help_text="status as written")
    nodes = models.PositiveIntegerField(null=True, blank=True)
    accelerators_per_node = models.PositiveIntegerField(null=True, blank=True)
    accelerators = models.PositiveIntegerField(null=True, blank=True, help_text="in all")
    accelerator = models.CharField(max_length=200, blank=True, help_text="model as written")
    device_slug = models.CharField(
        max_length=80, blank=True, help_text="device catalogue entry; blank = unknown"
    )
    host_processor = models.CharField(max_length=200, blank=True)
    host_interconnect = models.CharField(max_length=300, blank=True)
    accelerator_interconnect = models.CharField(max_length=300, blank=True)
    framework = models.CharField(max_length=200, blank=True)
    path = models.CharField(max_length=500, blank=True, help_text="systems JSON in the round")

    class Meta:
        ordering = ["round__order", "submitter", "system_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "submitter", "system_id"], name="mlperf_system_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.round_id}:{self.submitter}/{self.system_id}"


class MlperfRun(models.Model):
    system = models.ForeignKey(
        "catalogue.MlperfSystem", on_delete=models.CASCADE, related_name="runs"
    )
    benchmark = models.ForeignKey(
        "catalogue.MlperfBenchmark", on_delete=models.CASCADE, related_name="runs"
    )
    index = models.PositiveSmallIntegerField(help_text="n of result_<n>.txt")
    status = models.CharField(max_length=10, choices=RunStatus.choices)
    start = models.FloatField(null=True, blank=True, help_text="run_start, Unix seconds")
    stop = models.FloatField(null=True, blank=True, help_text="run_stop, Unix seconds")
    minutes = models.FloatField(null=True, blank=True, help_text="(stop - start) / 60")
    global_batch = models.PositiveIntegerField(null=True, blank=True)
    at_target = models.FloatField(
        null=True, blank=True, help_text="epochs or samples at the last evaluation"
    )
    at_target_unit = models.CharField(max_length=10, blank=True, help_text="epoch or samples")
    throughput = models.FloatField(null=True, blank=True, help_text="last logged throughput")
    throughput_unit = models.CharField(max_length=30, blank=True)
    note = models.CharField(max_length=300, blank=True, help_text="why unparsed, for instance")
    path = models.CharField(max_length=500)

    class Meta:
        ordering = ["system_id", "benchmark_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["path", "system"], name="mlperf_run_unique"),
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values), name="mlperf_run_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.path


class MlperfScore(models.Model):
    system = models.ForeignKey(
        "catalogue.MlperfSystem", on_delete=models.CASCADE, related_name="scores"
    )
    benchmark = models.ForeignKey(
        "catalogue.MlperfBenchmark", on_delete=models.CASCADE, related_name="scores"
    )
    minutes = models.FloatField(
        null=True, blank=True, help_text="the score; blank: no valid result by the rule"
    )
    olympic_minutes = models.FloatField(
        null=True, blank=True, help_text="the mean by the rule, before RCP scaling"
    )
    scaling_factor = models.FloatField(
        null=True, blank=True, help_text="from the result directory's scaling.json"
    )
    note = models.CharField(max_length=300, blank=True, help_text="why blank, runs missing...")
    runs_successful = models.PositiveSmallIntegerField(default=0)
    runs_required = models.PositiveSmallIntegerField(default=0)
    rule = models.CharField(max_length=60, help_text="scoring rule slug (catalogue.mlperf)")
    rule_text = models.CharField(max_length=300, blank=True)
    rule_url = models.URLField(max_length=300, blank=True)
    rcp = models.CharField(max_length=15, choices=RcpStatus.choices)
    rcp_note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["system_id", "benchmark_id"]
        constraints = [
            models.UniqueConstraint(fields=["system", "benchmark"], name="mlperf_score_unique")
        ]

    def __str__(self) -> str:
        return f"{self.system}:{self.benchmark_id}"


class MlperfLoad(models.Model):
    """The hash of the fixture last loaded: a second load of the same file does nothing."""

    sha256 = models.CharField(max_length=64)
    loaded = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.sha256
