"""The survey's catalogue: works, authors, the taxonomy, citations, techniques and cost models.

One module per concern: `works` (works, authors and people), `taxonomy` (categories and
assignments), `citations`, `costs` (techniques and cost models), `curation` (what curators changed
or deleted), `search_text` (the full-text index's rows), `quality` (counts by status). Every public
name is imported here, so `from catalogue.models import Work` means what it always meant.

Every fact carries where it comes from: assignments an evidence level, citations a provenance and
evidence, cost models a status. The database enforces what it can (unique keys, no self-citation,
no duplicate edge per provenance, allowed choice values).
"""

from catalogue.models.curation import Curated, CuratorDeletion, CuratorDeletionQuerySet
from catalogue.models.works import (  # isort: split
    ERA_FILTER_VALUES,
    FIELD_LABELS,
    KEY_VALIDATOR,
    NEEDED_FIELDS,
    SUGGESTIONS,
    Author,
    AuthorQuerySet,
    Authorship,
    Era,
    Person,
    Work,
    WorkQuerySet,
    has_cost_model,
    has_demo,
)

from catalogue.models.taxonomy import (  # isort: split
    Assignment,
    Category,
    CategoryQuerySet,
    CategoryStatus,
    Evidence,
    SubtreeCounts,
)

from catalogue.models.citations import Citation, CitationQuerySet, Provenance  # isort: split

from catalogue.models.costs import (  # isort: split
    EXPLAINED_STATUSES,
    CostModel,
    FormulaStatus,
    Quantity,
    Technique,
    validate_variables,
)

from catalogue.models.search_text import (  # isort: split
    SEARCH_BATCH,
    WorkSearchText,
    WorkSearchTextQuerySet,
)

from catalogue.models.quality import evidence_report, fidelity_report  # isort: split

from catalogue.models.results import (  # isort: split
    FIGURE_STATUSES,
    Result,
    ResultQuerySet,
    ResultStatus,
    StrategyFamily,
)

__all__ = [
    "FIGURE_STATUSES",
    "Result",
    "ResultQuerySet",
    "ResultStatus",
    "StrategyFamily",
    "EXPLAINED_STATUSES",
    "ERA_FILTER_VALUES",
    "FIELD_LABELS",
    "KEY_VALIDATOR",
    "NEEDED_FIELDS",
    "SEARCH_BATCH",
    "SUGGESTIONS",
    "Assignment",
    "Author",
    "AuthorQuerySet",
    "Authorship",
    "Category",
    "CategoryQuerySet",
    "CategoryStatus",
    "Citation",
    "CitationQuerySet",
    "CostModel",
    "Curated",
    "CuratorDeletion",
    "CuratorDeletionQuerySet",
    "Era",
    "Evidence",
    "FormulaStatus",
    "Person",
    "Provenance",
    "Quantity",
    "SubtreeCounts",
    "Technique",
    "Work",
    "WorkQuerySet",
    "WorkSearchText",
    "WorkSearchTextQuerySet",
    "evidence_report",
    "fidelity_report",
    "has_cost_model",
    "has_demo",
    "validate_variables",
]
