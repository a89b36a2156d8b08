"""Works with their QuerySet (what the pages count over works: catalogue/models/work_counts.py;
the people who wrote them: catalogue/models/people.py)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import connections, models, router
from django.db.models import Count, Prefetch, Q
from django.db.models.expressions import RawSQL
from django.utils.functional import cached_property

from catalogue import search as fulltext
from catalogue.constants import KEY_REGEX, SURVEY_KEY, WORK_FIELDS
from catalogue.latex import display_text, shortened
from catalogue.models.choices import ERA_FILTER_VALUES, Era, Provenance
from catalogue.models.citations import Citation
from catalogue.models.curation import Curated
from catalogue.models.people import Author, Authorship
from catalogue.models.taxonomy import Assignment, Category
from catalogue.models.work_counts import IDENTIFIER_KINDS, IDENTIFIER_SOURCES, WorkCounts
from catalogue.paths import path_with
from catalogue.search_sql import FullTextRank, NotIndexed, highlights_sql
from catalogue.source_kinds import SECONDARY, classify

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


SURVEY_REFERENCES = 269  # the entries of the survey's bibliography (arXiv v2 numbering)


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
    def of(cls, work: Work, other: str) -> list[EdgeShown]:
        """The work's first CITATIONS_SHOWN edges in their order; `other`: "cited" (the works it
        cites) or "citing" (the works citing it). One query, its SQL compiled once per process
        (compiling the two joins and the ordering was a quarter of a work's page)."""
        using = router.db_for_read(Citation, instance=work)
        vendor = connections[using].vendor
        sql = _edges_sql(other, vendor, settings.CITATIONS_SHOWN)
        with connections[using].cursor() as cursor:
            cursor.execute(sql, [work.pk])
            return [cls(*row) for row in cursor.fetchall()]

    @property
    def is_after_survey(self) -> bool:
        return self.era == Era.AFTER

    @property
    def path(self) -> str:
        return Work.path_for(self.key)

    def get_provenance_display(self) -> str:
        return Provenance(self.provenance).label


EDGE_STAND_IN = -1  # the work's id while the SQL of its edges is compiled (no work has it)
EDGE_OWN_FIELDS = ("provenance", "evidence_source", "evidence_excerpt")


@functools.cache
def _edges_sql(other: str, vendor: str, limit: int) -> str:
    """The SQL of EdgeShown.of for one direction, database kind and limit: the ORM's (same
    columns, joins and Meta ordering), with one parameter, the work's id."""
    own = "citing" if other == "cited" else "cited"
    columns = [f"{other}__key", f"{other}__title", f"{other}__era", *EDGE_OWN_FIELDS]
    rows = Citation.objects.filter(**{f"{own}_id": EDGE_STAND_IN}).values_list(*columns)
    sql, params = rows[:limit].query.sql_with_params()
    if tuple(params) != (EDGE_STAND_IN,):
        raise ValueError(f"the edges' SQL has parameters {params!r}, not the work's id alone")
    return sql


SUGGESTIONS = 8  # works suggested while a search is typed


class WithAuthorNames(models.query.ModelIterable):
    """Works, each with its author names in order (`Work.author_names`), read in one query for
    all of them (WorkQuerySet.for_rows)."""

    def __iter__(self):
        works = list(super().__iter__())
        names = Work.objects.author_names_of([work.pk for work in works])
        for work in works:
            work.known_author_names = names.get(work.pk, [])
        yield from works


class WorkQuerySet(WorkCounts):
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

    def era_counts(self) -> dict[str, int]:
        """The works in the survey, the entries of its bibliography among them, and the works
        after it, in one query (the home page's figures)."""
        survey = Q(era=Era.SURVEY)
        return self.aggregate(
            survey=Count("pk", filter=survey),
            references=Count("pk", filter=survey & Q(survey_ref__isnull=False)),
            after=Count("pk", filter=Q(era=Era.AFTER)),
        )

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
        # As the admin's lists and messages show it: braces and accents as a reader sees them.
        return f"{self.key}: {shortened(display_text(self.title), 80)}"

    def get_absolute_url(self) -> str:
        return self.path_for(self.key)

    @staticmethod
    def path_for(key: str) -> str:
        """The page of the work with this key. A list links to every work it shows: the path is
        reversed once per process (a key needs no quoting: letters, digits, _ . : -)."""
        return path_with("works:work-detail", key)

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
        # bulk_create sends no signals; the index's model by its relation (it imports this one)
        type(self).search_text.related.related_model.objects.refresh([self.pk])

    # A work page shows at most CITATIONS_SHOWN edges each way: a work of a large catalogue can be
    # cited by thousands (16,188 at 100,000 works). Two LIMIT queries along the foreign-key
    # indexes (a sliced prefetch would number every edge with a window function first).
    @cached_property
    def cites_shown(self) -> list[EdgeShown]:
        return EdgeShown.of(self, "cited")

    @cached_property
    def cited_by_shown(self) -> list[EdgeShown]:
        return EdgeShown.of(self, "citing")

    @cached_property
    def citation_totals(self) -> tuple[int, int]:
        """(cites, cited by) inside the catalogue; a list cut at CITATIONS_SHOWN is counted in
        the database (one query)."""
        cites, cited_by = len(self.cites_shown), len(self.cited_by_shown)
        if cites >= settings.CITATIONS_SHOWN:
            cites = self.citations_out.count()
        if cited_by >= settings.CITATIONS_SHOWN:
            cited_by = self.citations_in.count()
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
