"""Small builders for tests: each makes one record with sensible defaults."""

from statistics import mean

from django.apps import apps
from django.core.cache import caches

from catalogue.models import (
    Assignment,
    Author,
    Authorship,
    Category,
    Citation,
    CostModel,
    MlperfBenchmark,
    MlperfRound,
    MlperfRun,
    MlperfScore,
    MlperfSystem,
    Technique,
    Work,
)


def make_work(key: str = "smith2017deep", authors=("J. Smith",), **fields) -> Work:
    defaults = {"title": "Deep Things", "year": 2017, "entry_type": "article"}
    work = Work.objects.create(key=key, **{**defaults, **fields})
    for position, name in enumerate(authors, start=1):
        author, _ = Author.objects.get_or_create(name=name)
        Authorship.objects.create(work=work, author=author, position=position)
    return work


def make_category(code: str = "ops", parent: Category | None = None, **fields) -> Category:
    defaults = {"name": code.title(), "section": "5"}
    return Category.objects.create(code=code, parent=parent, **{**defaults, **fields})


def make_assignment(work: Work, category: Category, evidence: str = "confirmed") -> Assignment:
    return Assignment.objects.create(
        work=work, category=category, evidence=evidence, source_note="test note"
    )


def make_citation(citing: Work, cited: Work, provenance: str = "citing-paper-bibliography"):
    return Citation.objects.create(
        citing=citing,
        cited=cited,
        provenance=provenance,
        evidence_source="https://example.org/refs",
        evidence_excerpt=f"{cited.title}",
    )


def make_technique(slug: str, category: Category, **fields) -> Technique:
    defaults = {"name": slug.replace("-", " ").title(), "summary": "A technique."}
    return Technique.objects.create(slug=slug, category=category, **{**defaults, **fields})


def make_cost_model(technique: Technique, **fields) -> CostModel:
    defaults = {
        "quantity": "work",
        "label": "Work",
        "formula": "N*C",
        "variables": [
            {"name": "N", "meaning": "minibatch", "default": 32, "min": 1, "max": 1024, "unit": ""},
            {"name": "C", "meaning": "channels", "default": 3, "min": 1, "max": 4096, "unit": ""},
        ],
        "unit": "operations",
        "section": "4.2, Table 4",
        "status": "confirmed",
    }
    return CostModel.objects.create(technique=technique, **{**defaults, **fields})


def clear_caches() -> None:
    """Every cache alias: the graph, the responses and the throttle counters."""
    for cache in caches.all():
        cache.clear()


def database_url() -> str:
    """The URL of the database the tests use (the test database), for a worker process."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def make_mlperf_score(
    version: str = "v1.0",
    benchmark: str = "resnet",
    system_id: str = "dgxa100_n8",
    minutes: tuple[float, ...] = (30.0, 31.0, 29.0, 32.0, 28.0),
    **system_fields,
):
    """One MLPerf (round, system, benchmark) with a successful run per entry of `minutes` and
    its olympic-mean score; returns the MlperfScore."""
    repository = f"mlcommons/training_results_{version}"
    rnd, _ = MlperfRound.objects.get_or_create(
        version=version, defaults={"repository": repository, "commit": "0" * 40}
    )
    bench, _ = MlperfBenchmark.objects.get_or_create(slug=benchmark, defaults={"name": benchmark})
    fields = {
        "submitter": "NVIDIA",
        "division": "closed",
        "availability": "available",
        "name": system_id,
        "nodes": 8,
        "accelerators_per_node": 8,
        "accelerators": 64,
        "accelerator": "NVIDIA A100-SXM4-80GB",
        "framework": "PyTorch",
        "path": f"NVIDIA/systems/{system_id}.json",
    } | system_fields
    system, _ = MlperfSystem.objects.get_or_create(round=rnd, system_id=system_id, defaults=fields)
    for index, value in enumerate(minutes):
        MlperfRun.objects.create(
            system=system,
            benchmark=bench,
            index=index,
            status="success",
            start=1.6e9,
            stop=1.6e9 + value * 60,
            minutes=value,
            global_batch=3264,
            at_target=40.0,
            at_target_unit="epoch",
            throughput=25000.0,
            throughput_unit="samples/s",
            path=f"NVIDIA/results/{system_id}/{benchmark}/result_{index}.txt",
        )
    kept = sorted(minutes)[1:-1] if len(minutes) > 2 else list(minutes)
    return MlperfScore.objects.create(
        system=system,
        benchmark=bench,
        minutes=mean(kept),
        olympic_minutes=mean(kept),
        runs_successful=len(minutes),
        runs_required=5,
        rule="olympic_5",
        rule_text="mean of 5 runs without the fastest and the slowest",
        rule_url="https://github.com/mlcommons/training_policies/blob/master/training_rules.adoc",
        rcp="not_applied",
        rcp_note="test",
    )


def catalogue_models() -> list:
    """The catalogue's tables, the many-to-many ones included, parents before children."""
    return list(apps.get_app_config("catalogue").get_models(include_auto_created=True))


def catalogue_rows() -> dict[str, list[tuple]]:
    """Every column of every row of the catalogue's tables, in primary-key order: what
    `dumpdata catalogue` writes, compared about ten times faster (dumpdata hands its JSON to the
    output a few characters per write: 8.7 s for the survey with MLPerf's rows)."""
    return {
        model._meta.db_table: list(
            model.objects.order_by("pk").values_list(
                *(field.attname for field in model._meta.concrete_fields)
            )
        )
        for model in catalogue_models()
    }
