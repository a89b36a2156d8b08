"""Full-text search, the SQL part: the match, the rank and the highlights, on SQLite (FTS5) and
PostgreSQL, over the search-text table (`WorkSearchText`, table catalogue_worksearchtext).

On SQLite that table is an FTS5 virtual table: its hidden column named after the table is what
MATCH takes, and its `rank` column is bm25 with our column weights (set by the migration). On
PostgreSQL it is a plain table with a generated, weighted `document` tsvector and a GIN index.

The expressions below join the search text to the works through the ORM (reverse one-to-one
`search_text`), so the match, the rank and a COUNT(*) OVER () are one query: a rank read per work
by a correlated subquery re-runs the match for every row (10 s for a common word at 100,000 works
on SQLite, against 0.1 s joined). They take the table's alias from the compiled join, so they
stay right inside subqueries, where Django renames tables.
"""

from __future__ import annotations

from django.db import NotSupportedError
from django.db.models import CharField, Expression, F, FloatField, Func, Lookup

from catalogue.search import COLUMNS, MARK_END, MARK_START, SQLITE_WEIGHTS, Query

TABLE = "catalogue_worksearchtext"
LANGUAGE = "english"
CONTEXT_WORDS = 12  # words of a highlighted fragment outside the title


class FullTextMatch(Lookup):
    """`search_text__title__fulltext=Query(...)`: the work's whole search text (every column;
    the title is only where the join starts) holds every word of the query, stemmed. A lookup,
    so that the join is an INNER one and the condition goes into WHERE as it is."""

    lookup_name = "fulltext"
    prepare_rhs = False

    def as_sql(self, compiler, connection):
        table = compiler.quote_name(self.lhs.alias)
        if connection.vendor == "sqlite":
            hidden = connection.ops.quote_name(TABLE)  # the FTS5 column named after the table
            return f"{table}.{hidden} MATCH %s", [self.rhs.fts5()]
        if connection.vendor == "postgresql":
            return f"{table}.document @@ to_tsquery('{LANGUAGE}', %s)", [self.rhs.tsquery()]
        raise NotSupportedError(f"Full-text search needs SQLite or PostgreSQL, not {connection}.")


class FullTextRank(Expression):
    """How well a work matches: higher is better. Only with FullTextMatch, whose join it reuses."""

    output_field = FloatField()

    def __init__(self, query: Query):
        super().__init__()
        self.query = query
        self.column = F("search_text__title")

    def get_source_expressions(self):
        return [self.column]

    def set_source_expressions(self, exprs):
        (self.column,) = exprs

    def as_sql(self, compiler, connection):
        table = compiler.quote_name(self.column.alias)
        if connection.vendor == "sqlite":
            # `rank` is bm25 with the column weights (lower is better, hence the minus). The
            # column, not a bm25() call: auxiliary functions fail under a window (COUNT(*) OVER).
            return f"-{table}.rank", []
        if connection.vendor == "postgresql":
            sql = f"ts_rank({table}.document, to_tsquery('{LANGUAGE}', %s))"
            return sql, [self.query.tsquery()]
        raise NotSupportedError(f"Full-text search needs SQLite or PostgreSQL, not {connection}.")


class NotIndexed(Func):
    """A column's value that SQLite's planner will not look up in an index (`+column`, the
    documented way): for a condition that must not lead a query. Other databases: the column."""

    template = "%(expressions)s"

    def __init__(self, column: str):
        super().__init__(F(column), output_field=CharField())

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template="+%(expressions)s", **extra_context)


def sqlite_rank_setting() -> str:
    """The FTS5 `rank` configuration: bm25 with the weights of catalogue.search.COLUMNS."""
    return "bm25({})".format(", ".join(str(w) for w in SQLITE_WEIGHTS))


def highlights_sql(vendor: str, query: Query, count: int) -> tuple[str, list]:
    """SQL for (work id, marked title, marked context...) of `count` works by id; matched words
    between MARK_START and MARK_END. The context: a fragment of each other column (the caller
    keeps the first with a match)."""
    placeholders = ", ".join(["%s"] * count)
    if vendor == "sqlite":
        # One snippet per column after the title; the caller keeps the first with a match.
        snippets = ", ".join(
            f"snippet({TABLE}, {column}, %s, %s, '…', {CONTEXT_WORDS})"
            for column in range(1, len(COLUMNS))
        )
        sql = (
            f"SELECT rowid, highlight({TABLE}, 0, %s, %s), {snippets} "
            f"FROM {TABLE} WHERE {TABLE} MATCH %s AND rowid IN ({placeholders})"
        )
        markers = [MARK_START, MARK_END] * len(COLUMNS)
        return sql, [*markers, query.fts5()]
    if vendor == "postgresql":
        options = f"StartSel={MARK_START}, StopSel={MARK_END}"
        contexts = ", ".join(
            f"ts_headline('{LANGUAGE}', {column}, q, %s)" for column in COLUMNS[1:]
        )
        sql = (
            f"SELECT rowid, ts_headline('{LANGUAGE}', title, q, %s), {contexts} "
            f"FROM {TABLE}, to_tsquery('{LANGUAGE}', %s) q "
            f"WHERE document @@ q AND rowid IN ({placeholders})"
        )
        title_options = f"{options}, HighlightAll=true"
        context_options = (
            f"{options}, MaxWords={CONTEXT_WORDS}, MinWords={CONTEXT_WORDS // 2}, "
            "MaxFragments=1, FragmentDelimiter=' … '"
        )
        return sql, [title_options, *[context_options] * (len(COLUMNS) - 1), query.tsquery()]
    raise NotSupportedError(f"Full-text search needs SQLite or PostgreSQL, not {vendor}.")
