"""Each work's searchable text: derived data the database indexes for full-text search."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models

from catalogue import search as fulltext
from catalogue.models.costs import Technique
from catalogue.models.taxonomy import Assignment
from catalogue.models.works import Work
from catalogue.search_sql import FullTextMatch


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
