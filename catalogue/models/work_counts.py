"""What the pages count over a set of works: the works page's facets, the works per year and
level, the identifiers held per era. A base of WorkQuerySet (catalogue/models/works.py)."""

from __future__ import annotations

import functools
from collections import Counter

from django.db import connections, models
from django.db.models import Count
from django.db.models.expressions import RawSQL

from catalogue.models.choices import Era
from catalogue.models.costs import has_cost_model, has_demo
from catalogue.models.taxonomy import Assignment, Category
from catalogue.source_kinds import evidence_row

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

# Stands for a request's filtered ids in SQL compiled once (see WorkQuerySet.facet_counts).
IDS_STAND_IN = "SELECT -7129 WHERE 1 = 0"


@functools.cache
def _facet_sql(
    model: type[models.Model], vendor: str
) -> tuple[tuple[str, tuple], tuple[str, tuple]]:
    """The facet counts' two queries as (SQL, parameters), over IDS_STAND_IN (`vendor`: the SQL
    differs by database)."""
    ids = RawSQL(IDS_STAND_IN, ())
    groups = (
        model.objects.filter(pk__in=ids)
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


class WorkCounts(models.QuerySet):
    def per_year(self) -> list[tuple[int | None, int]]:
        """(year, works), by year."""
        return list(self.values_list("year").annotate(n=Count("pk")).order_by("year"))

    def facet_counts(self) -> dict[str, object]:
        """Counts for the works page's facets over this queryset, and the number of works.

        Two queries: one grouped by (year, entry type) that also counts the flags, then the
        evidence levels. Each re-runs the filter, which at 100,000 works costs ~40 ms a time:
        one query per facet (and a count for the paginator) was 5 such scans, this is 2. Their
        SQL is compiled once per process around a stand-in for the filtered ids, which each
        request's ids replace: building the flags' subqueries was 4/5 of their time.
        """
        groups_sql, evidence_sql = _facet_sql(self.model, connections[self.db].vendor)
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
