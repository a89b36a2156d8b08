"""Works and the people who wrote them: authors (as each source spells them), the persons behind
several spellings, works with their QuerySet, and the ordered authorships."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import connections, models
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, Subquery
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.urls import get_script_prefix, reverse
from django.utils.functional import cached_property

from catalogue import search as fulltext
from catalogue.constants import KEY_REGEX, SURVEY_KEY, WORK_FIELDS
from catalogue.models.curation import Curated
from catalogue.search_sql import FullTextRank, NotIndexed, highlights_sql
from catalogue.source_kinds import SECONDARY, classify, evidence_row

KEY_VALIDATOR = RegexValidator(
    rf"^{KEY_REGEX}$",
    "A BibTeX key starts with a letter or digit and holds only letters, digits, _ . : -",
)


# A page of works' authors and categories (WorkQuerySet.author_names_of, assignments_of), in the
# order the works list shows them; `{ids}`: one placeholder per work. Standard SQL (SQLite and
# PostgreSQL); the tables are the models' (tests/works/test_api.py compares whole documents).
AUTHOR_NAMES_SQL = """
    SELECT s.work_id, a.name FROM catalogue_authorship s
    JOIN catalogue_author a ON a.id = s.author_id
    WHERE s.work_id IN ({ids}) ORDER BY s.work_id, s.position"""
ASSIGNMENTS_SQL = """
    SELECT s.work_id, c.code, c.name, c.section, c.extends, s.evidence, s.source_note,
           s.alternatives
    FROM catalogue_assignment s JOIN catalogue_category c ON c.id = s.category_id
    WHERE s.work_id IN ({ids}) ORDER BY s.work_id, c."order", c.code"""


class Era(models.TextChoices):
    """Whether a work belongs to the survey (the survey and its bibliography), came after it
    (with the source of its metadata), or was added by a curator (an import, the admin).

    The survey is closed: its era holds the survey and its 269 references, as the fixtures say,
    and no door moves a work into it or out of it (Work.clean and a database constraint)."""

    SURVEY = "survey", "in the survey"
    AFTER = "after", "after the survey"
    CURATED = "curated", "added by curators"


ERA_FILTER_VALUES = [*Era.values, "all"]
SURVEY_REFERENCES = 269  # the entries of the survey's bibliography (arXiv v2 numbering)
# A work's identifiers: field -> how the pages name it.
IDENTIFIER_KINDS = {
    "doi": "DOI",
    "arxiv_id": "arXiv id",
    "openalex_id": "OpenAlex id",
    "url": "URL",
}
# The field_sources entry that says where each identifier was read.
IDENTIFIER_SOURCES = {
    "doi": "doi",
    "arxiv_id": "arxiv",
    "openalex_id": "openalex",
    "url": "landing_url",
}
IDENTIFIER_FIELD_NAMES = frozenset(IDENTIFIER_SOURCES.values())


class Person(models.Model):
    """One person behind several spellings of a name (the curated identity table,
    fixtures/identities.json, says which and by what rule). Named by the fullest spelling the
    source prints: no given names are invented."""

    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class AuthorQuerySet(models.QuerySet):
    def with_work_counts(self) -> AuthorQuerySet:
        """`work_count`: the distinct works of the author's person (all its spellings), or of
        the spelling alone when no person links it."""
        of_person = (
            Authorship.objects.filter(author__person=OuterRef("person"))
            .order_by()
            .values("author__person")
            .annotate(n=Count("work", distinct=True))
            .values("n")
        )
        return self.annotate(
            own_count=Count("authorships"),
            work_count=Coalesce(Subquery(of_person), "own_count"),
        )

    def identity_report(self) -> dict:
        """The identity table as the data-quality page shows it: people with their spellings,
        and the spellings left apart with the reason. Two queries."""
        people: dict[str, list[str]] = {}
        for name, person in self.filter(person__isnull=False).values_list("name", "person__name"):
            people.setdefault(person, []).append(name)
        apart: dict[str, list[str]] = {}
        for name, note in self.exclude(identity_note="").values_list("name", "identity_note"):
            apart.setdefault(note, []).append(name)
        return {
            "people": [{"name": k, "spellings": v} for k, v in sorted(people.items())],
            "spellings_linked": sum(len(v) for v in people.values()),
            "left_apart": [{"spellings": v, "reason": k} for k, v in sorted(apart.items())],
            "spellings_left_apart": sum(len(v) for v in apart.values()),
        }


class Author(models.Model):
    # Names as the source prints them ("D. Alistarh"): no given names are invented.
    name = models.CharField(max_length=200, unique=True)
    person = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="spellings"
    )
    identity_note = models.CharField(
        max_length=300,
        blank=True,
        help_text="Why this spelling is left apart from similar ones (the identity table).",
    )

    objects = AuthorQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("works:author-detail", args=[self.pk])


@dataclass(frozen=True)
class EdgeShown:
    """A citation as a work's page and document show it: the other work's key, title and era,
    and the edge's evidence. Plain rows rather than a Citation and a Work instance per edge: a
    work lists up to CITATIONS_SHOWN edges each way."""

    key: str
    title: str
    era: str
    provenance: str
    evidence_source: str
    evidence_excerpt: str

    @classmethod
    def of(cls, citations: models.QuerySet, other: str) -> list[EdgeShown]:
        """The first CITATIONS_SHOWN `citations` in their order; `other`: "cited" or "citing"."""
        own = ("provenance", "evidence_source", "evidence_excerpt")
        columns = [f"{other}__key", f"{other}__title", f"{other}__era", *own]
        rows = citations.values_list(*columns)[: settings.CITATIONS_SHOWN]
        return [cls(*row) for row in rows]

    @property
    def is_after_survey(self) -> bool:
        return self.era == Era.AFTER

    @property
    def path(self) -> str:
        return Work.path_for(self.key)

    def get_provenance_display(self) -> str:
        return Provenance(self.provenance).label


@functools.cache
def _work_path(script_prefix: str) -> tuple[str, str]:
    """A work page's path around its key (reverse() of the URL name, once per script prefix)."""
    placeholder = "0key0"
    before, _, after = reverse("works:work-detail", args=[placeholder]).partition(placeholder)
    return before, after


SUGGESTIONS = 8  # works suggested while a search is typed


def has_cost_model() -> Q:
    """A work has a cost model when a model cites it or its technique does (the works facet and
    the filter's one definition)."""
    return Q(Exists(CostModel.objects.filter(works=OuterRef("pk")))) | Q(
        Exists(CostModel.objects.filter(technique__works=OuterRef("pk")))
    )


def has_demo() -> Q:
    """A work has a demo when a technique that cites it has one."""
    return Q(Exists(Technique.objects.filter(works=OuterRef("pk")).exclude(demo_slug="")))


# Stands for a request's filtered ids in SQL compiled once (see WorkQuerySet.facet_counts).
IDS_STAND_IN = "SELECT -7129 WHERE 1 = 0"


@functools.cache
def _facet_sql(vendor: str) -> tuple[tuple[str, tuple], tuple[str, tuple]]:
    """The facet counts' two queries as (SQL, parameters), over IDS_STAND_IN (`vendor`: the SQL
    differs by database)."""
    ids = RawSQL(IDS_STAND_IN, ())
    groups = (
        Work.objects.filter(pk__in=ids)
        .order_by()
        .values_list("year", "entry_type")
        .annotate(
            n=Count("pk"),
            has_cost_model=Count("pk", filter=has_cost_model()),
            has_demo=Count("pk", filter=has_demo()),
        )
    )
    evidence = Assignment.objects.filter(work__in=ids).order_by().values_list("evidence")
    evidence = evidence.annotate(n=Count("work", distinct=True))
    return groups.query.sql_with_params(), evidence.query.sql_with_params()


def _with_ids(compiled: tuple[str, tuple], ids: RawSQL) -> tuple[str, tuple]:
    """`compiled` with IDS_STAND_IN replaced by `ids`, its parameters put in their place."""
    sql, params = compiled
    before, found, after = sql.partition(IDS_STAND_IN)
    if not found or IDS_STAND_IN in after:
        raise ValueError("the compiled facet query lost its stand-in for the ids")
    placed = before.count("%s")
    return f"{before}{ids.sql}{after}", (*params[:placed], *ids.params, *params[placed:])


class WithAuthorNames(models.query.ModelIterable):
    """Works, each with its author names in order (`Work.author_names`), read in one query for
    all of them (WorkQuerySet.for_rows)."""

    def __iter__(self):
        works = list(super().__iter__())
        names = Work.objects.author_names_of([work.pk for work in works])
        for work in works:
            work.known_author_names = names.get(work.pk, [])
        yield from works


class WorkQuerySet(models.QuerySet):
    def for_list(self) -> WorkQuerySet:
        """Works with what a list row shows, in a constant number of queries."""
        return self.prefetch_related(
            Prefetch("authorships", queryset=Authorship.objects.select_related("author")),
            Prefetch("assignments", queryset=Assignment.objects.select_related("category")),
        )

    def for_rows(self) -> WorkQuerySet:
        """Works with what a row of a works page shows (templates/works/_work_row.html: title,
        authors, year, venue), in two queries: the works, then their authors' names (plain
        rows: a prefetch built an authorship and an author instance per name, a third of the
        works page's time). (Deferring the columns a row does not show measured no faster.)"""
        works = self._chain()
        works._iterable_class = WithAuthorNames
        return works

    def references(self) -> WorkQuerySet:
        """The survey's bibliography, without the survey itself."""
        return self.filter(survey_ref__isnull=False)

    def in_survey(self) -> WorkQuerySet:
        """The survey and its bibliography: what every figure of the survey is counted over."""
        return self.filter(era=Era.SURVEY)

    def after_survey(self) -> WorkQuerySet:
        return self.filter(era=Era.AFTER)

    def in_era(self, era: str, indexed: bool = True) -> WorkQuerySet:
        """`survey`, `after` or `all` (no filter); anything else is the caller's 400.

        `indexed=False` when another condition should lead the query (a full-text match): the
        era has two values, but SQLite's planner (without statistics) takes an equality on an
        indexed column for selective, visits every work of the era and runs the match for each
        (9 s for ?q=gradient at 100,000 works, against 0.1 s led by the search index).
        """
        if era == "all":
            return self
        if era not in Era.values:
            raise ValueError(f"era must be one of {', '.join(ERA_FILTER_VALUES)}")
        if not indexed:
            return self.alias(era_unindexed=NotIndexed("era")).filter(era_unindexed=era)
        return self.filter(era=era)

    def author_names_of(self, ids: list[int]) -> dict[int, list[str]]:
        """Work id -> author names in order, for a page of works, in one query (none without
        ids). Plain SQL: building the ORM query cost more than running it (a list's every page)."""
        names: dict[int, list[str]] = {}
        for work_id, name in self._page_rows(AUTHOR_NAMES_SQL, ids):
            names.setdefault(work_id, []).append(name)
        return names

    def assignments_of(self, ids: list[int]) -> dict[int, list[dict[str, str]]]:
        """Work id -> its categories with their evidence, for a page of works, in one query."""
        assignments: dict[int, list[dict[str, str]]] = {}
        for work_id, *values in self._page_rows(ASSIGNMENTS_SQL, ids):
            code, name, section, extends, evidence, note, alternatives = values
            assignments.setdefault(work_id, []).append(
                {
                    "code": code,
                    "name": name,
                    "section": section,
                    "extends": extends,
                    "evidence": evidence,
                    "source_note": note,
                    "alternatives": alternatives,
                }
            )
        return assignments

    def _page_rows(self, sql: str, ids: list[int]) -> list[tuple]:
        if not ids:
            return []
        with connections[self.db].cursor() as cursor:
            cursor.execute(sql.format(ids=", ".join(["%s"] * len(ids))), ids)
            return cursor.fetchall()

    def save_record(self, record, curated: Iterable[str] = ()) -> Work:
        """Create or update the work a `bibtex.WorkRecord` describes, authors in order;
        `curated` names the fields a curator changed (load_survey keeps them)."""
        work = self.filter(key=record.key).first() or Work(key=record.key)
        work.set_record_fields(record)
        work.mark_curated(curated)
        work.save()
        work.set_authors(record.authors)
        return work

    def ids_sql(self) -> RawSQL:
        """The ids of this queryset's works as SQL, compiled once and kept on the queryset: the
        works page counts its facets and its category tree over the same filtered works in
        three queries, and compiling the filter (its subqueries) into each was most of their
        time (bench/README.md, issue 29)."""
        if "_ids_sql" not in self.__dict__:
            self._ids_sql = RawSQL(*self.order_by().values("pk").query.sql_with_params())
        return self._ids_sql

    def facet_counts(self) -> dict[str, object]:
        """Counts for the works page's facets over this queryset, and the number of works.

        Two queries: one grouped by (year, entry type) that also counts the flags, then the
        evidence levels. Each re-runs the filter, which at 100,000 works costs ~40 ms a time:
        one query per facet (and a count for the paginator) was 5 such scans, this is 2. Their
        SQL is compiled once per process around a stand-in for the filtered ids, which each
        request's ids replace: building the flags' subqueries was 4/5 of their time.
        """
        groups_sql, evidence_sql = _facet_sql(connections[self.db].vendor)
        ids = self.ids_sql()
        with connections[self.db].cursor() as cursor:
            cursor.execute(*_with_ids(groups_sql, ids))
            groups = cursor.fetchall()
            cursor.execute(*_with_ids(evidence_sql, ids))
            evidence_counts = cursor.fetchall()
        years: dict[int | None, int] = {}
        entry_types: dict[str, int] = {}
        flags = {"has_cost_model": 0, "has_demo": 0}
        for year, entry_type, n, with_cost_model, with_demo in groups:
            years[year] = years.get(year, 0) + n
            entry_types[entry_type] = entry_types.get(entry_type, 0) + n
            flags["has_cost_model"] += with_cost_model
            flags["has_demo"] += with_demo
        return {
            "total": sum(years.values()),
            "years": sorted(years.items(), key=lambda item: (item[0] is None, item[0] or 0)),
            "entry_types": sorted(entry_types.items()),
            "evidence": sorted(tuple(row) for row in evidence_counts),
            "flags": flags,
        }

    def per_year_and_level(self) -> list[tuple[int | None, str, int]]:
        """(year, level code, distinct works): a work in several levels counts in each."""
        root_of = Category.objects.root_codes()
        counts: dict[tuple[int | None, str], set] = {}
        pairs = Assignment.objects.filter(work__in=self.order_by().values("pk")).values_list(
            "work__year", "category_id", "work_id"
        )
        for year, category_id, work_id in pairs:
            counts.setdefault((year, root_of[category_id]), set()).add(work_id)
        return sorted(
            ((year, level, len(works)) for (year, level), works in counts.items()),
            key=lambda row: (row[0] or 0, row[1]),
        )

    def identifier_report(self) -> dict:
        """What the data-quality and sources pages say of identifiers, in one query: per era,
        how many works hold each identifier (DOI, arXiv id, OpenAlex id, URL) and at least one;
        and the evidence of the works' recorded fields (identifiers, bibliographic fields) by
        kind (catalogue/source_kinds.py), an identifier with no recorded page counted apart."""
        eras = {era: Counter() for era in Era.values}
        identifier_urls, field_urls, unsourced = [], [], 0
        rows = self.values_list("era", "doi", "arxiv_id", "openalex_id", "url", "field_sources")
        for era, doi, arxiv_id, openalex_id, url, sources in rows:
            held = dict(zip(IDENTIFIER_KINDS, (doi, arxiv_id, openalex_id, url), strict=True))
            eras[era].update([name for name, value in held.items() if value])
            eras[era]["works"] += 1
            eras[era]["any"] += any(held.values())
            sources = sources or {}
            for name, url in sources.items():
                (identifier_urls if name in IDENTIFIER_FIELD_NAMES else field_urls).append(url)
            unsourced += sum(
                bool(value) and IDENTIFIER_SOURCES[name] not in sources
                for name, value in held.items()
            )
        return {
            "eras": [
                {
                    "era": era,
                    "label": Era(era).label,
                    "works": counts["works"],
                    "with_any": counts["any"],
                    "identifiers": [
                        {"identifier": name, "label": label, "count": counts[name]}
                        for name, label in IDENTIFIER_KINDS.items()
                    ],
                }
                for era, counts in eras.items()
            ],
            "evidence": [
                evidence_row("identifiers", identifier_urls, unsourced),
                evidence_row("bibliographic", field_urls),
            ],
        }

    def search(self, text: str, prefix: bool = False) -> WorkQuerySet:
        """Works whose searchable text (title, authors, venue, notes, the names and descriptions
        of their categories and techniques) holds every word of `text`, stemmed, annotated with
        `relevance` (higher is better). `prefix`: the last word may be unfinished (as typed)."""
        found = fulltext.identifier(text)
        if found:
            field, value = found
            return self.filter(**{f"{field}__iexact": value}).annotate(
                relevance=models.Value(1.0, output_field=models.FloatField())
            )
        query = fulltext.parse(text, prefix=prefix)
        if not query:
            return self.none().annotate(relevance=models.Value(0.0))
        return self.filter(search_text__title__fulltext=query).annotate(
            relevance=FullTextRank(query)
        )

    def highlights(
        self, ids: list[int], text: str, prefix: bool = False
    ) -> dict[int, dict[str, str]]:
        """Work id -> {"title", "context"} as safe HTML with the matched words in <mark>, for a
        page of search results, in one query. "context" is a fragment of the authors, topics,
        venue and notes when it holds a match, else empty."""
        query = fulltext.parse(text, prefix=prefix)
        if not query or not ids or fulltext.identifier(text):
            return {}
        connection = connections[self.db]
        sql, params = highlights_sql(connection.vendor, query, len(ids))
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, *ids])
            rows = cursor.fetchall()
        marks = {}
        for work_id, title, *contexts in rows:
            context = next((c for c in contexts if fulltext.has_mark(c)), "")
            marks[work_id] = {
                "title": fulltext.marked_html(title),
                "context": fulltext.marked_html(context) if context else "",
            }
        return marks

    def suggestions(self, text: str, limit: int = SUGGESTIONS) -> list[Work]:
        """The best matches of a search being typed (the last word may be unfinished), each
        with `match`: its highlights (see `highlights`). Two queries (and authors: one more)."""
        works = list(
            self.search(text, prefix=True)
            .order_by("-relevance", "survey_ref", "key")
            .prefetch_related(
                Prefetch("authorships", queryset=Authorship.objects.select_related("author"))
            )[:limit]
        )
        marks = self.highlights([work.pk for work in works], text, prefix=True)
        for work in works:
            work.match = marks.get(work.pk, {})
        return works

    def in_category(self, category: Category) -> WorkQuerySet:
        codes = category.subtree_codes()
        return self.filter(assignments__category__code__in=codes).distinct()


class Work(Curated):
    key = models.CharField("BibTeX key", max_length=100, unique=True, validators=[KEY_VALIDATOR])
    entry_type = models.CharField(max_length=30, default="misc")
    title = models.TextField()
    year = models.PositiveSmallIntegerField(null=True, blank=True)
    authors = models.ManyToManyField(Author, through="Authorship", related_name="works")
    authors_truncated = models.BooleanField(
        default=False, help_text='The source lists only the first authors ("et al.").'
    )
    journal = models.CharField(max_length=300, blank=True)
    booktitle = models.CharField(max_length=400, blank=True)
    venue = models.CharField(
        max_length=400, blank=True, help_text="Where the work appeared, for display and filters."
    )
    volume = models.CharField(max_length=30, blank=True)
    number = models.CharField(max_length=30, blank=True)
    pages = models.CharField(max_length=50, blank=True)
    publisher = models.CharField(max_length=200, blank=True)
    arxiv_id = models.CharField("arXiv id", max_length=40, blank=True)
    doi = models.CharField("DOI", max_length=200, blank=True)
    url = models.URLField("URL", max_length=500, blank=True)
    openalex_id = models.CharField(
        "OpenAlex id",
        max_length=20,
        blank=True,
        validators=[RegexValidator(r"^W\d+$", "An OpenAlex work id: W and digits (W2107878631).")],
        help_text="The OpenAlex work id (W...), as a stored OpenAlex record printed it.",
    )
    note = models.TextField(blank=True)
    abstract = models.TextField(blank=True)
    survey_ref = models.PositiveSmallIntegerField(
        "survey reference [v2]",
        null=True,
        blank=True,
        unique=True,
        help_text="Number in the survey's arXiv v2 bibliography (1-269); empty for the survey.",
    )
    seminal = models.BooleanField(
        default=False, help_text="A seed for the citation-snowballing replay."
    )
    seminal_reason = models.TextField(blank=True)
    extra_fields = models.JSONField(
        default=dict, blank=True, help_text="Other BibTeX fields, kept for a faithful export."
    )
    era = models.CharField(
        max_length=10,
        choices=Era.choices,
        default=Era.SURVEY,
        help_text="In the survey (the survey and its bibliography) or after it.",
    )
    source_url = models.URLField(
        "source URL",
        max_length=500,
        blank=True,
        help_text="The page this work's metadata was read from; required after the survey.",
    )
    field_sources = models.JSONField(
        default=dict,
        blank=True,
        help_text="Field name -> the URL that field was read from (the fields of the works after "
        "the survey, and the identifiers: doi, arxiv, openalex, landing_url).",
    )

    objects = WorkQuerySet.as_manager()

    class Meta:
        ordering = ["survey_ref", "key"]
        # The default list order; without it a large catalogue is sorted on every request.
        indexes = [
            models.Index(fields=["survey_ref", "key"], name="work_list_order"),
            models.Index(fields=["era", "survey_ref", "key"], name="work_era_list_order"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(era__in=Era.values), name="work_era_valid"),
            # A work after the survey says where its metadata comes from, and is no survey ref.
            models.CheckConstraint(
                condition=~Q(era=Era.AFTER) | (~Q(source_url="") & Q(survey_ref__isnull=True)),
                name="work_after_survey_sourced",
            ),
            # Only a work of the survey has a survey reference number (the rule on moving
            # works in and out of the survey is Work.save's: a CHECK cannot see the old row).
            models.CheckConstraint(
                condition=Q(era=Era.SURVEY) | Q(survey_ref__isnull=True),
                name="work_survey_ref_only_in_survey",
            ),
            models.UniqueConstraint(fields=["doi"], condition=~Q(doi=""), name="work_unique_doi"),
            models.UniqueConstraint(
                fields=["arxiv_id"], condition=~Q(arxiv_id=""), name="work_unique_arxiv_id"
            ),
            models.CheckConstraint(
                condition=Q(year__isnull=True) | Q(year__gte=1800, year__lte=2100),
                name="work_year_plausible",
            ),
            models.CheckConstraint(
                condition=Q(survey_ref__isnull=True) | Q(survey_ref__gte=1),
                name="work_survey_ref_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key}: {self.title[:80]}"

    def get_absolute_url(self) -> str:
        return self.path_for(self.key)

    @staticmethod
    def path_for(key: str) -> str:
        """The page of the work with this key. A list links to every work it shows: the path is
        reversed once per process (a key needs no quoting: letters, digits, _ . : -)."""
        before, after = _work_path(get_script_prefix())
        return f"{before}{key}{after}"

    @classmethod
    def from_db(cls, db, field_names, values, *, fetch_mode=None):
        work = super().from_db(db, field_names, values, fetch_mode=fetch_mode)
        work.stored_era = work.__dict__.get("era")  # what the database holds, for the rule below
        return work

    def moving_errors(self) -> dict[str, str]:
        """The survey is closed: no work enters its era or leaves it (its 270 works are the
        fixtures'). Messages by field, empty when the rule holds."""
        stored = getattr(self, "stored_era", None)
        if stored is not None and stored != self.era and Era.SURVEY in (stored, self.era):
            direction = "out of" if stored == Era.SURVEY else "into"
            return {
                "era": f"The survey is closed: a work cannot be moved {direction} it (its 270 "
                f"works are the fixtures'). {self.key} stays {Era(stored).label}."
            }
        return {}

    def adding_errors(self) -> dict[str, str]:
        """A new work of the survey must be one of its references (1-269) or the survey."""
        if self.pk is None and self.era == Era.SURVEY and self.key != SURVEY_KEY:
            if self.survey_ref is None or not 1 <= self.survey_ref <= SURVEY_REFERENCES:
                return {
                    "era": "The survey is closed: its works are the survey and its 269 "
                    "references. A work a curator adds is 'added by curators' (or 'after the "
                    "survey', with its source)."
                }
        if self.era != Era.SURVEY and self.survey_ref is not None:
            return {"survey_ref": "Only a work of the survey has a survey reference number."}
        return {}

    def save(self, *args, **kwargs) -> None:
        # Every door that changes a work (admin, imports, API, shell) comes through here.
        if errors := self.moving_errors():
            raise ValidationError(errors)
        super().save(*args, **kwargs)
        self.stored_era = self.era

    def clean(self) -> None:
        # The forms that add works (the admin's) and imports check both rules.
        if errors := self.moving_errors() | self.adding_errors():
            raise ValidationError(errors)
        if self.era == Era.AFTER:
            errors = {}
            if not self.source_url:
                errors["source_url"] = "A work after the survey needs the URL of its source."
            if self.survey_ref is not None:
                errors["survey_ref"] = "A work after the survey has no survey reference number."
            if errors:
                raise ValidationError(errors)

    @property
    def is_after_survey(self) -> bool:
        return self.era == Era.AFTER

    def set_record_fields(self, record) -> None:
        for name in WORK_FIELDS:
            setattr(self, name, getattr(record, name))
        self.venue = record.venue

    def set_authors(self, names: list[str]) -> None:
        """Replace the author list, unless it is already the same (keeps reloads idempotent)."""
        names = list(dict.fromkeys(names))
        current = list(self.authorships.order_by("position").values_list("author__name", flat=True))
        if current == names:
            return
        self.authorships.all().delete()
        authors = {a.name: a for a in Author.objects.filter(name__in=names)}
        missing = [Author(name=n) for n in names if n not in authors]
        authors.update((a.name, a) for a in Author.objects.bulk_create(missing))
        Authorship.objects.bulk_create(
            Authorship(work=self, author=authors[name], position=index)
            for index, name in enumerate(names, start=1)
        )
        WorkSearchText.objects.refresh([self.pk])  # bulk_create sends no signals

    # A work page shows at most CITATIONS_SHOWN edges each way: a work of a large catalogue can be
    # cited by thousands (16,188 at 100,000 works). Two LIMIT queries along the foreign-key
    # indexes (a sliced prefetch would number every edge with a window function first).
    @cached_property
    def cites_shown(self) -> list[EdgeShown]:
        return EdgeShown.of(Citation.objects.filter(citing=self), "cited")

    @cached_property
    def cited_by_shown(self) -> list[EdgeShown]:
        return EdgeShown.of(Citation.objects.filter(cited=self), "citing")

    @cached_property
    def citation_totals(self) -> tuple[int, int]:
        """(cites, cited by) inside the catalogue; a list cut at CITATIONS_SHOWN is counted in
        the database (one query)."""
        cites, cited_by = len(self.cites_shown), len(self.cited_by_shown)
        if cites >= settings.CITATIONS_SHOWN:
            cites = Citation.objects.filter(citing=self).count()
        if cited_by >= settings.CITATIONS_SHOWN:
            cited_by = Citation.objects.filter(cited=self).count()
        return cites, cited_by

    @property
    def author_names(self) -> list[str]:
        known = self.__dict__.get("known_author_names")  # set by for_rows()
        if known is not None:
            return known
        return [a.author.name for a in self.authorships.all()]

    @property
    def author_line(self) -> str:
        names = self.author_names
        line = ", ".join(names)
        return f"{line} et al." if self.authors_truncated else line

    @property
    def placements(self) -> list[dict]:
        """The work's assignments as placements: those that are alternatives of one another (the
        same `alternatives` text, "1 or 8") form one placement (assignments prefetched)."""
        placements: list[dict] = []
        groups: dict[str, list[Assignment]] = {}
        for assignment in self.assignments.all():
            if assignment.alternatives in groups:
                groups[assignment.alternatives].append(assignment)
                continue
            group = [assignment]
            if assignment.alternatives:
                groups[assignment.alternatives] = group
            placements.append({"alternatives": assignment.alternatives, "assignments": group})
        return placements

    @property
    def more_fields(self) -> list[tuple[str, str]]:
        """(label, BibTeX text) of the fields the work page has no line of its own for: the
        note, then the other BibTeX fields; a field the entry type needs but the source does not
        give (a thesis's school) reads "unknown"; last, the identifiers read on a secondary
        source, said as such (`identifier_evidence`)."""
        extra = {name: "" for name in NEEDED_FIELDS.get(self.entry_type, ())}
        extra |= {name: value for name, value in self.extra_fields.items() if value}
        shown = [("Note", self.note)] if self.note else []
        shown += [
            (FIELD_LABELS.get(name, name), extra[name] or "unknown") for name in sorted(extra)
        ]
        return shown + self.identifier_evidence

    @property
    def identifier_evidence(self) -> list[tuple[str, str]]:
        """("Evidence", what it is) for each identifier the work shows whose recorded page is a
        secondary source (catalogue/source_kinds.py): the work's page says so below the
        identifier's "read on" address. An identifier with no recorded page says nothing here:
        it came with the survey's reference list."""
        sources = self.field_sources or {}
        found = {
            name: classify(sources[IDENTIFIER_SOURCES[name]])
            for name in IDENTIFIER_KINDS
            if getattr(self, name) and IDENTIFIER_SOURCES[name] in sources
        }
        return [
            (
                "Evidence",
                f"{IDENTIFIER_KINDS[name]} read on a secondary source ({kind.what}), "
                "not on a page of its publisher, its authors or an index",
            )
            for name, kind in found.items()
            if kind.kind == SECONDARY
        ]


# Fields BibTeX needs for an entry type and that the page names even when the source gives none.
NEEDED_FIELDS = {
    "mastersthesis": ("school",),
    "phdthesis": ("school",),
    "techreport": ("institution",),
}
FIELD_LABELS = {
    "address": "Address",
    "howpublished": "How published",
    "institution": "Institution",
    "month": "Month",
    "organization": "Organization",
    "school": "School",
}


class Authorship(models.Model):
    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="authorships")
    author = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="authorships")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["work", "position"]
        constraints = [
            models.UniqueConstraint(fields=["work", "position"], name="authorship_unique_position"),
            models.UniqueConstraint(fields=["work", "author"], name="authorship_unique_author"),
        ]

    def __str__(self) -> str:
        return f"{self.author} ({self.position}) on {self.work.key}"


# The QuerySets above reach the other concerns' models when they run, not when this module loads:
# those modules import Work, so these names are bound once Work exists.
from catalogue.models.citations import Citation, Provenance  # noqa: E402
from catalogue.models.costs import CostModel, Technique  # noqa: E402
from catalogue.models.search_text import WorkSearchText  # noqa: E402
from catalogue.models.taxonomy import Assignment, Category  # noqa: E402
