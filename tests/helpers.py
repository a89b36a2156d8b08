"""Small builders for tests: each makes one record with sensible defaults."""

from django.core.cache import caches

from catalogue.models import (
    Assignment,
    Author,
    Authorship,
    Category,
    Citation,
    CostModel,
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
