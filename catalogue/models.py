"""The survey's catalogue: works, authors, the taxonomy, citations, techniques and cost models.

Every fact carries where it comes from: assignments an evidence level, citations a provenance and
evidence, cost models a status. The database enforces what it can (unique keys, no self-citation,
no duplicate edge per provenance, allowed choice values).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import connections, models
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.functional import cached_property

from catalogue import search as fulltext
from catalogue import tree
from catalogue.constants import KEY_REGEX, WORK_FIELDS
from catalogue.search_sql import FullTextMatch, FullTextRank, NotIndexed, highlights_sql

KEY_VALIDATOR = RegexValidator(
    rf"^{KEY_REGEX}$",
    "A BibTeX key starts with a letter or digit and holds only letters, digits, _ . : -",
)


class Evidence(models.TextChoices):
    CONFIRMED = "confirmed", "confirmed"
    PARTIAL = "partial", "partial evidence"
    TOPIC = "topic-inferred", "topic-inferred"
    # Not the survey's: our mapping of a later work onto the survey's taxonomy, with a reason.
    CURATED_AFTER = "curated-after-survey", "curated after the survey"


class Era(models.TextChoices):
    """Whether a work belongs to the survey (the survey and its bibliography) or came after it."""

    SURVEY = "survey", "in the survey"
    AFTER = "after", "after the survey"


ERA_FILTER_VALUES = [*Era.values, "all"]


class Provenance(models.TextChoices):
    SURVEY = "survey-reference-list", "the survey's reference list"
    BIBLIOGRAPHY = "citing-paper-bibliography", "the citing paper's bibliography"
    NOTE = "reference-list-note", "a public reference-list note"
    INDEX = "secondary-index", "a citation index record"
    CURATOR = "curator", "added by a curator"


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


class CategoryStatus(models.TextChoices):
    """Whether a category's section number and title are the paper's (FACTS.md section 1)."""

    CONFIRMED = "confirmed", "confirmed"
    RECALLED = "recalled", "recalled (unconfirmed)"
    UNCONFIRMED = "unconfirmed", "unconfirmed"
    # Ours, not the paper's: a node that groups the survey's content (the "bg" node, methods
    # under a section). It never claims a section of its own.
    GROUPING = "grouping", "grouping added here"
    AFTER = "after-survey", "added after the survey"


class Quantity(models.TextChoices):
    WORK = "work", "work"
    DEPTH = "depth", "depth"
    TIME = "time", "time"
    COMMUNICATION = "communication", "communication"
    PARALLELISM = "parallelism", "average parallelism"
    BOUND = "bound", "bound"
    FRACTION = "fraction", "fraction"


class Curated(models.Model):
    """A record the fixtures may also hold: which of its fields a curator changed.

    Set by the admin, the API and BibTeX imports, never by `load_survey`, which keeps these
    fields as the curator left them (and says so) until `load_survey --reset` clears the marks.
    Pseudo-fields name what is not a column: "authors" (the author list), "works" (linked works).
    """

    curated_fields = models.JSONField(
        "fields a curator changed",
        default=list,
        blank=True,
        editable=False,
        help_text="Kept as they are when load_survey reloads the fixtures.",
    )

    class Meta:
        abstract = True

    def mark_curated(self, names) -> None:
        """Add `names` to the curated fields (in memory: the caller saves)."""
        self.curated_fields = sorted(set(self.curated_fields) | set(names))


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


class WorkQuerySet(models.QuerySet):
    def for_list(self) -> WorkQuerySet:
        """Works with what a list row shows, in a constant number of queries."""
        return self.prefetch_related(
            Prefetch("authorships", queryset=Authorship.objects.select_related("author")),
            Prefetch("assignments", queryset=Assignment.objects.select_related("category")),
        )

    def for_rows(self) -> WorkQuerySet:
        """Works with what a row of a works page shows (templates/works/_work_row.html: title,
        authors, year, venue), in two queries: for_list() without the categories. (Deferring
        the columns a row does not show measured no faster: deferred loading costs as much.)"""
        return self.prefetch_related(
            Prefetch("authorships", queryset=Authorship.objects.select_related("author"))
        )

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
        """Work id -> author names in order, for a page of works, in one query."""
        names: dict[int, list[str]] = {}
        rows = Authorship.objects.filter(work_id__in=ids).order_by("work_id", "position")
        for work_id, name in rows.values_list("work_id", "author__name"):
            names.setdefault(work_id, []).append(name)
        return names

    def assignments_of(self, ids: list[int]) -> dict[int, list[dict[str, str]]]:
        """Work id -> its categories with their evidence, for a page of works, in one query."""
        assignments: dict[int, list[dict[str, str]]] = {}
        rows = Assignment.objects.filter(work_id__in=ids).order_by(
            "work_id", "category__order", "category__code"
        )
        fields = (
            "category__code",
            "category__name",
            "category__section",
            "category__extends",
            "evidence",
            "source_note",
            "alternatives",
        )
        for work_id, *values in rows.values_list("work_id", *fields):
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

    def save_record(self, record, curated: Iterable[str] = ()) -> Work:
        """Create or update the work a `bibtex.WorkRecord` describes, authors in order;
        `curated` names the fields a curator changed (load_survey keeps them)."""
        work = self.filter(key=record.key).first() or Work(key=record.key)
        work.set_record_fields(record)
        work.mark_curated(curated)
        work.save()
        work.set_authors(record.authors)
        return work

    def facet_counts(self) -> dict[str, object]:
        """Counts for the works page's facets over this queryset, and the number of works.

        Two queries: one grouped by (year, entry type) that also counts the flags, then the
        evidence levels. Each re-runs the filter, which at 100,000 works costs ~40 ms a time:
        one query per facet (and a count for the paginator) was 5 such scans, this is 2.
        """
        ids = self.order_by().values("pk")
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
        years: dict[int | None, int] = {}
        entry_types: dict[str, int] = {}
        flags = {"has_cost_model": 0, "has_demo": 0}
        for year, entry_type, n, with_cost_model, with_demo in groups:
            years[year] = years.get(year, 0) + n
            entry_types[entry_type] = entry_types.get(entry_type, 0) + n
            flags["has_cost_model"] += with_cost_model
            flags["has_demo"] += with_demo
        evidence = Assignment.objects.filter(work__in=ids).order_by()
        evidence_counts = evidence.values_list("evidence").annotate(n=Count("work", distinct=True))
        return {
            "total": sum(years.values()),
            "years": sorted(years.items(), key=lambda item: (item[0] is None, item[0] or 0)),
            "entry_types": sorted(entry_types.items()),
            "evidence": sorted(evidence_counts),
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

    def search(self, text: str, prefix: bool = False) -> WorkQuerySet:
        """Works whose searchable text (title, authors, venue, notes, the names and descriptions
        of their categories and techniques) holds every word of `text`, stemmed, annotated with
        `relevance` (higher is better). `prefix`: the last word may be unfinished (as typed)."""
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
        if not query or not ids:
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
        help_text="Field name -> the URL that field was read from (post-survey works).",
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
                condition=Q(era=Era.SURVEY) | (~Q(source_url="") & Q(survey_ref__isnull=True)),
                name="work_after_survey_sourced",
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
        return reverse("works:work-detail", args=[self.key])

    def clean(self) -> None:
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
    def cites_shown(self) -> list[Citation]:
        return list(
            Citation.objects.filter(citing=self).select_related("cited")[: settings.CITATIONS_SHOWN]
        )

    @cached_property
    def cited_by_shown(self) -> list[Citation]:
        return list(
            Citation.objects.filter(cited=self).select_related("citing")[: settings.CITATIONS_SHOWN]
        )

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
        give (a thesis's school) reads "unknown"."""
        extra = {name: "" for name in NEEDED_FIELDS.get(self.entry_type, ())}
        extra |= {name: value for name, value in self.extra_fields.items() if value}
        shown = [("Note", self.note)] if self.note else []
        shown += [
            (FIELD_LABELS.get(name, name), extra[name] or "unknown") for name in sorted(extra)
        ]
        return shown


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


class CategoryQuerySet(models.QuerySet):
    def top_level(self) -> CategoryQuerySet:
        return self.filter(parent__isnull=True)

    def tree_with_counts(self, works: models.QuerySet | None = None) -> list[Category]:
        """The category tree: root nodes, each node with `child_nodes` and `work_count`, the
        number of distinct works (of `works`, default all) in the node's whole subtree.

        Two queries whatever the size of the tree: the categories, then one grouped
        COUNT(DISTINCT), so that a work in two sub-categories counts once in the parent.
        """
        nodes, roots = self._tree()
        by_era = _subtree_work_counts(nodes, works).values()
        for node in nodes:
            # A work has one era, so the per-era counts add up to the distinct works.
            node.work_count = sum(counts.works.get(node.pk, 0) for counts in by_era)
            # Of those, the works placed here only as one of several possible sections: the
            # count includes them and says so (they may count under another node too).
            node.alternative_count = sum(c.alternatives.get(node.pk, 0) for c in by_era)
        return roots

    def _tree(self) -> tuple[list[Category], list[Category]]:
        """(all nodes, root nodes), each node with its `child_nodes`, from one query."""
        nodes = list(self.order_by("order", "code"))
        by_pk = {node.pk: node for node in nodes}
        for node in nodes:
            node.child_nodes = []
        for node in nodes:
            if node.parent_id in by_pk:
                by_pk[node.parent_id].child_nodes.append(node)
        return nodes, [node for node in nodes if node.parent_id not in by_pk]

    def in_tree_order(self) -> list[tuple[Category, int]]:
        """(category, depth) in reading order: each parent followed by its children, siblings in
        the paper's order, as a table of contents lists them. One query."""
        nodes = list(self.order_by("order", "code"))
        children: dict[int | None, list[Category]] = {}
        for node in nodes:
            children.setdefault(node.parent_id, []).append(node)
        known = {node.pk for node in nodes}
        ordered: list[tuple[Category, int]] = []
        stack = [(node, 0) for node in reversed(nodes) if node.parent_id not in known]
        while stack:
            node, depth = stack.pop()
            ordered.append((node, depth))
            stack.extend((child, depth + 1) for child in reversed(children.get(node.pk, [])))
        return ordered

    def root_codes(self) -> dict[int, str]:
        """Category pk -> code of its top-level ancestor, from one query."""
        rows = list(self.values_list("pk", "parent_id", "code"))
        parent_of = {pk: parent_id for pk, parent_id, _ in rows}
        code_of = {pk: code for pk, _, code in rows}
        return {pk: code_of[tree.root_of(parent_of, pk)] for pk in parent_of}

    def level_counts(self, works: models.QuerySet | None = None) -> list[Category]:
        """Top-level categories with `work_count` (see tree_with_counts)."""
        return self.tree_with_counts(works)

    def level_counts_by_era(self) -> list[Category]:
        """Top-level categories with `work_count` (works in the survey: the survey's figure) and
        `after_count` (works after it), in two queries like tree_with_counts."""
        nodes, roots = self._tree()
        counts = _subtree_work_counts(nodes, None)
        for root in roots:
            root.work_count = counts[Era.SURVEY].works.get(root.pk, 0)
            root.alternative_count = counts[Era.SURVEY].alternatives.get(root.pk, 0)
            root.after_count = counts[Era.AFTER].works.get(root.pk, 0)
        return roots


@dataclass
class SubtreeCounts:
    """Category pk -> distinct works in the node's subtree (`works`), and of those the works
    placed there only as one of several possible sections (`alternatives`)."""

    works: dict[int, int]
    alternatives: dict[int, int]


def _subtree_work_counts(
    nodes: list[Category], works: models.QuerySet | None
) -> dict[str, SubtreeCounts]:
    """Era -> the subtree counts of the works of that era, from one query.

    The (category, work) pairs are read once and rolled up the tree here: measured on 100,000
    works, this beats both one COUNT(DISTINCT) per node and a grouped join over a closure table,
    which SQLite plans as a nested loop (bench/browse_bench.py).
    """
    children = tree.children_of({node.pk: node.parent_id for node in nodes})
    ancestors_of: dict[int, list[int]] = {}
    for node in nodes:
        for descendant in tree.subtree(children, node.pk):
            ancestors_of.setdefault(descendant, []).append(node.pk)
    pairs = Assignment.objects.order_by()
    if works is not None:
        pairs = pairs.filter(work__in=works.order_by().values("pk"))
    # era -> node -> works under it; "firmly": through an assignment without alternatives.
    under = {era: {node.pk: set() for node in nodes} for era in Era.values}
    firmly = {era: {node.pk: set() for node in nodes} for era in Era.values}
    fields = ("category_id", "work_id", "work__era", "alternatives")
    for category_id, work_id, era, alternatives in pairs.values_list(*fields).iterator(2000):
        for ancestor in ancestors_of.get(category_id, ()):
            under[era][ancestor].add(work_id)
            if not alternatives:
                firmly[era][ancestor].add(work_id)
    return {
        era: SubtreeCounts(
            works={pk: len(ids) for pk, ids in under[era].items()},
            alternatives={pk: len(ids - firmly[era][pk]) for pk, ids in under[era].items()},
        )
        for era in Era.values
    }


class Category(Curated):
    code = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=200)
    section = models.CharField("paper section", max_length=30, blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    order = models.PositiveSmallIntegerField(default=0)
    description = models.TextField(blank=True)
    status = models.CharField(
        max_length=20,
        choices=CategoryStatus.choices,
        default=CategoryStatus.CONFIRMED,
        help_text="Whether the section number and title are confirmed by a source, or the node "
        "is a grouping added here.",
    )
    extends = models.CharField(
        "extends survey section",
        max_length=30,
        blank=True,
        help_text="Set only for a category added after the survey: the survey section it "
        "extends. Such a category is ours, never the paper's.",
    )

    objects = CategoryQuerySet.as_manager()

    class Meta:
        ordering = ["order", "code"]
        verbose_name_plural = "categories"
        constraints = [
            models.CheckConstraint(
                condition=~Q(parent=models.F("pk")), name="category_not_own_parent"
            ),
        ]

    def __str__(self) -> str:
        if self.extends:
            return f"{self.name} (after the survey, extends §{self.extends})"
        return f"§{self.section} {self.name}" if self.section else self.name

    @property
    def is_extension(self) -> bool:
        return bool(self.extends)

    def clean(self) -> None:
        node, seen = self.parent, {self.pk}
        while node is not None:
            if node.pk in seen:
                raise ValidationError({"parent": "A category cannot be its own ancestor."})
            seen.add(node.pk)
            node = node.parent

    def subtree_codes(self) -> list[str]:
        """Codes of this category and all its descendants (one query for the whole tree)."""
        rows = Category.objects.values_list("pk", "code", "parent_id")
        code_of = {pk: code for pk, code, _ in rows}
        children = tree.children_of({pk: parent_id for pk, _, parent_id in rows})
        return [code_of[pk] for pk in tree.subtree(children, self.pk)]


class Assignment(Curated):
    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="assignments")
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="assignments")
    evidence = models.CharField(max_length=20, choices=Evidence.choices)
    source_note = models.TextField(blank=True)
    alternatives = models.CharField(
        max_length=100,
        blank=True,
        help_text='Set when the source gives several possible sections ("7.1/7.2 gossip"): the '
        "work's assignments with the same text are one placement with alternatives.",
    )

    class Meta:
        ordering = ["work", "category__order", "category__code"]
        constraints = [
            models.UniqueConstraint(fields=["work", "category"], name="assignment_unique"),
            models.CheckConstraint(
                condition=Q(evidence__in=Evidence.values), name="assignment_evidence_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.work.key} in {self.category.code} ({self.evidence})"

    def clean(self) -> None:
        # The survey's own evidence levels belong to its works; ours to the works after it.
        # In an admin inline the work may be new (no id yet) but is already attached.
        attached = self.work_id is not None or Assignment.work.is_cached(self)
        work = self.work if attached else None
        after = work is not None and work.era == Era.AFTER
        curated = self.evidence == Evidence.CURATED_AFTER
        if after and not curated:
            raise ValidationError(
                {"evidence": "A work after the survey is mapped with 'curated after the survey'."}
            )
        if curated and not after:
            raise ValidationError(
                {"evidence": "'Curated after the survey' is only for works after the survey."}
            )
        if curated and not self.source_note.strip():
            raise ValidationError({"source_note": "Give the reason: what the work extends."})


class CitationQuerySet(models.QuerySet):
    def with_works(self) -> CitationQuerySet:
        return self.select_related("citing", "cited")

    def among_references(self) -> CitationQuerySet:
        """Edges among the survey's references (not the survey's own, not later works')."""
        return self.exclude(provenance=Provenance.SURVEY).filter(
            citing__era=Era.SURVEY, cited__era=Era.SURVEY
        )

    def touching_after_survey(self) -> CitationQuerySet:
        """Edges with a work after the survey at either end."""
        return self.filter(Q(citing__era=Era.AFTER) | Q(cited__era=Era.AFTER))


class Citation(Curated):
    citing = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="citations_out")
    cited = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="citations_in")
    provenance = models.CharField(max_length=40, choices=Provenance.choices)
    evidence_source = models.TextField(
        blank=True, help_text="Where the evidence is: a URL or a description of the source."
    )
    evidence_excerpt = models.TextField(blank=True, help_text="The line that shows the citation.")

    objects = CitationQuerySet.as_manager()

    class Meta:
        ordering = ["citing__survey_ref", "cited__survey_ref", "provenance"]
        constraints = [
            models.UniqueConstraint(
                fields=["citing", "cited", "provenance"], name="citation_unique_per_provenance"
            ),
            models.CheckConstraint(
                condition=~Q(citing=models.F("cited")), name="citation_no_self_citation"
            ),
            models.CheckConstraint(
                condition=Q(provenance__in=Provenance.values), name="citation_provenance_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.citing.key} cites {self.cited.key} ({self.provenance})"

    def clean(self) -> None:
        if self.citing_id and self.citing_id == self.cited_id:
            raise ValidationError("A work cannot cite itself.")
        if self.provenance != Provenance.SURVEY and not (
            self.evidence_source or self.evidence_excerpt
        ):
            raise ValidationError(
                "Say where the evidence for this citation is (source or excerpt)."
            )


class Technique(Curated):
    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="techniques")
    summary = models.TextField(blank=True)
    works = models.ManyToManyField(Work, blank=True, related_name="techniques")
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
    works = models.ManyToManyField(Work, blank=True, related_name="cost_models")
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


class CuratorDeletionQuerySet(models.QuerySet):
    def keys_of(self, kind: str) -> set[str]:
        return set(self.filter(kind=kind).values_list("key", flat=True))

    def about(self, keys: list[str]) -> CuratorDeletionQuerySet:
        """The deletions that name any of `keys` (a work key, category code or technique slug)."""
        match = Q(pk__in=[])
        for key in keys:
            match |= Q(key=key) | Q(key__startswith=f"{key} ") | Q(key__endswith=f" {key}")
            match |= Q(key__contains=f" {key} ")
        return self.filter(match)


class CuratorDeletion(models.Model):
    """A record the fixtures hold that a curator deleted (an assignment, a citation edge or a
    cost model), by its natural key: load_survey does not bring it back, until a reset."""

    KINDS = {"Assignment": "assignment", "Citation": "citation", "CostModel": "cost model"}

    kind = models.CharField(max_length=20)
    key = models.CharField(max_length=500)
    deleted_at = models.DateTimeField(auto_now_add=True)

    objects = CuratorDeletionQuerySet.as_manager()

    class Meta:
        ordering = ["kind", "key"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="curatordeletion_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"

    @staticmethod
    def natural_key_of(record: models.Model) -> str:
        if isinstance(record, Assignment):
            return f"{record.work.key} {record.category.code}"
        if isinstance(record, Citation):
            return f"{record.citing.key} {record.cited.key} {record.provenance}"
        return f"{record.technique.slug} {record.label}"

    @classmethod
    def record(cls, record: models.Model) -> None:
        """Remember that a curator deleted `record` (other models are not remembered: a deleted
        work, category or technique comes back on the next load)."""
        kind = cls.KINDS.get(type(record).__name__)
        if kind and record.pk is not None:
            cls.objects.get_or_create(kind=kind, key=cls.natural_key_of(record))


class WorkSearchTextQuerySet(models.QuerySet):
    """The searchable text of each work, kept in step with the catalogue (catalogue/signals.py
    after each save, `refresh` after bulk writes). The database indexes it: SQLite FTS5, or a
    PostgreSQL tsvector (catalogue/search_sql.py)."""

    def refresh(self, work_ids: Iterable[int]) -> None:
        """Rewrite the search text of these works (and drop that of works that are gone)."""
        ids = sorted(set(work_ids))
        for start in range(0, len(ids), SEARCH_BATCH):
            batch = ids[start : start + SEARCH_BATCH]
            self.filter(work_id__in=batch).delete()
            self.bulk_create(self._rows_for(batch))

    def rebuild(self) -> int:
        """Every work's search text anew; returns the number of works."""
        self.all().delete()
        ids = list(Work.objects.order_by("pk").values_list("pk", flat=True))
        self.refresh(ids)
        return len(ids)

    def _rows_for(self, ids: list[int]) -> list[WorkSearchText]:
        authors = Work.objects.author_names_of(ids)
        topics: dict[int, list[str]] = {}
        categories = Assignment.objects.filter(work_id__in=ids).order_by(
            "work_id", "category__order", "category__code"
        )
        for work_id, section, name, description in categories.values_list(
            "work_id", "category__section", "category__name", "category__description"
        ):
            topics.setdefault(work_id, []).extend(
                [f"§{section} {name}" if section else name, description]
            )
        techniques = Technique.works.through.objects.filter(work_id__in=ids).order_by("pk")
        for work_id, name, summary in techniques.values_list(
            "work_id", "technique__name", "technique__summary"
        ):
            topics.setdefault(work_id, []).extend([name, summary])
        fields = ("pk", "key", "title", "venue", "note", "abstract")
        rows = []
        for pk, key, title, venue, note, abstract in Work.objects.filter(pk__in=ids).values_list(
            *fields
        ):
            text = fulltext.document(
                title, authors.get(pk, []), venue, [note, abstract, key], topics.get(pk, [])
            )
            rows.append(WorkSearchText(work_id=pk, **text))
        return rows


SEARCH_BATCH = 2000  # works per refresh batch: bounded IN lists and memory


class WorkSearchText(models.Model):
    """Derived data: rebuilt by `manage.py rebuild_search_index`, never edited by hand.

    The primary key column is named `rowid` so that on SQLite, where this table is an FTS5
    virtual table (migration 0007), it is the table's own rowid."""

    work = models.OneToOneField(
        Work,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="search_text",
        db_column="rowid",
        db_constraint=False,  # an FTS5 table has no foreign keys; PostgreSQL's is in 0007
    )
    title = models.TextField(blank=True)
    authors = models.TextField(blank=True)
    topics = models.TextField(blank=True)
    venue = models.TextField(blank=True)
    notes = models.TextField(blank=True)

    objects = WorkSearchTextQuerySet.as_manager()

    class Meta:
        db_table = "catalogue_worksearchtext"
        verbose_name = "search text"

    def __str__(self) -> str:
        return f"search text of work {self.work_id}"


WorkSearchText._meta.get_field("title").register_lookup(FullTextMatch)


def _counted(values: Iterable[str], choices: type[models.TextChoices]) -> list[dict]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return [
        {"status": value, "label": label, "count": counts.get(value, 0)}
        for value, label in choices.choices
    ]


def fidelity_report() -> dict:
    """What the data-quality page says of the catalogue's own claims: cost models and categories
    by status (every status, zero counts included), and the author identity table. Four queries."""
    return {
        "cost_model_statuses": _counted(
            CostModel.objects.values_list("status", flat=True), FormulaStatus
        ),
        "category_statuses": _counted(
            Category.objects.values_list("status", flat=True), CategoryStatus
        ),
        "identities": Author.objects.identity_report(),
    }
