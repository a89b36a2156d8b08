"""The demos' own records: cached demo results (app label `explorer`, registered from
explorer/models.py). The survey's data lives in catalogue."""

import hashlib
import json

from django.conf import settings
from django.db import models


def params_digest(params: dict) -> str:
    """A short, stable key for canonical (sorted, typed) demo parameters."""
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class DemoResultQuerySet(models.QuerySet):
    def cached(self, slug: str, version: int, params: dict) -> "DemoResult | None":
        return self.filter(slug=slug, version=version, params_digest=params_digest(params)).first()

    def run(self, slug: str, raw_params: dict) -> tuple["DemoResult", bool]:
        """The result for these parameters: from the cache, or computed by the sandboxed runner.

        Returns (result, was_cached). Raises the runner's errors: ParamError (bad input),
        DemoBusy (all run slots taken), DemoLimitExceeded, DemoError.
        """
        from explorer.demos import DEMOS
        from explorer.demos.base import validate_params
        from explorer.demos.runner import run_demo

        demo = DEMOS[slug]
        params = validate_params(demo, raw_params)
        if cached := self.cached(slug, demo.version, params):
            return cached, True
        outcome = run_demo(
            slug,
            params,
            max_concurrent=settings.DEMO_MAX_CONCURRENT,
            cpu_seconds=settings.DEMO_CPU_SECONDS,
            memory_bytes=settings.DEMO_MEMORY_BYTES,
            wall_seconds=settings.DEMO_WALL_SECONDS,
        )
        result, _ = self.get_or_create(
            slug=slug,
            version=demo.version,
            params_digest=params_digest(params),
            defaults={
                "params": params,
                "result": outcome["result"],
                "elapsed_s": outcome["elapsed_s"],
            },
        )
        return result, False


class DemoResult(models.Model):
    """One demo run, kept so that the same (demo, version, parameters) is never computed twice."""

    slug = models.SlugField(max_length=80)
    version = models.PositiveIntegerField()
    params_digest = models.CharField(max_length=64)
    params = models.JSONField()
    result = models.JSONField()
    elapsed_s = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    objects = DemoResultQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["slug", "version", "params_digest"], name="demo_result_unique_run"
            )
        ]

    def __str__(self) -> str:
        return f"{self.slug} v{self.version} {self.params}"
