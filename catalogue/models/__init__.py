"""The survey's catalogue: works, authors, the taxonomy, citations, techniques and cost models.

One module per concern: `works` (works; `work_counts` what the pages count over them), `people`
(authors, persons, authorships), `taxonomy` (categories and assignments), `citations`, `costs`
(techniques and cost models), `curation` (what curators changed or deleted), `search_text` (the
full-text index's rows), `quality` (counts by status), `choices` (an era, a provenance: shared),
`mlperf` (MLPerf Training rounds, systems, runs and scores read from MLCommons' logs).
No module imports one that imports it: a model of another concern is named by a string
("catalogue.Work") or reached through its reverse relation. Every public
name is imported here, so `from catalogue.models import Work` means what it always meant.

Every fact carries where it comes from: assignments an evidence level, citations a provenance and
evidence, cost models a status. The database enforces what it can (unique keys, no self-citation,
no duplicate edge per provenance, allowed choice values).
"""

from catalogue.models.choices import ERA_FILTER_VALUES, Era, Provenance
from catalogue.models.curation import Curated, CuratorDeletion, CuratorDeletionQuerySet
from catalogue.models.people import Author, AuthorQuerySet, Authorship, Person
from catalogue.models.works import (  # isort: split
    FIELD_LABELS,
    KEY_VALIDATOR,
    NEEDED_FIELDS,
    SUGGESTIONS,
    Work,
    WorkQuerySet,
)

from catalogue.models.taxonomy import (  # isort: split
    Assignment,
    Category,
    CategoryQuerySet,
    CategoryStatus,
    Evidence,
    SubtreeCounts,
)

from catalogue.models.citations import Citation, CitationQuerySet  # isort: split

from catalogue.models.costs import (  # isort: split
    EXPLAINED_STATUSES,
    CostModel,
    FormulaStatus,
    Quantity,
    Technique,
    has_cost_model,
    has_demo,
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

from catalogue.models.mlperf import (  # isort: split
    MlperfBenchmark,
    MlperfLoad,
    MlperfRound,
    MlperfRun,
    MlperfScore,
    MlperfSystem,
    RcpStatus,
    RunStatus,
)

__all__ = [
    "MlperfBenchmark",
    "MlperfLoad",
    "MlperfRound",
    "MlperfRun",
    "MlperfScore",
    "MlperfSystem",
    "RcpStatus",
    "RunStatus",
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
