"""The search text of every work and its full-text index: an FTS5 table (porter stemming) on
SQLite, a table with a weighted, generated tsvector and a GIN index (english) on PostgreSQL.
Django sees one model, WorkSearchText, whose primary key column is the FTS5 rowid."""

import django.db.models.deletion
from django.db import migrations, models

from catalogue.search import COLUMNS, POSTGRES_WEIGHTS, SQLITE_WEIGHTS, document

TABLE = "catalogue_worksearchtext"


class VendorSQL(migrations.RunSQL):
    """RunSQL on one database vendor only (the other vendor's operation does its part)."""

    def __init__(self, vendor, sql, reverse_sql):
        super().__init__(sql, reverse_sql)
        self.vendor = vendor

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == self.vendor:
            super().database_backwards(app_label, schema_editor, from_state, to_state)


SQLITE = [
    f"CREATE VIRTUAL TABLE {TABLE} USING fts5({', '.join(COLUMNS)}, "
    "tokenize = 'porter unicode61 remove_diacritics 2')",
    # `rank` = bm25 with our column weights (read by catalogue/search_sql.py).
    f"INSERT INTO {TABLE}({TABLE}, rank) VALUES "
    f"('rank', 'bm25({', '.join(str(w) for w in SQLITE_WEIGHTS)})')",
]
POSTGRES_DOCUMENT = " || ".join(
    f"setweight(to_tsvector('english', {column}), '{weight}')"
    for column, weight in zip(COLUMNS, POSTGRES_WEIGHTS, strict=True)
)
POSTGRES = [
    f"""CREATE TABLE {TABLE} (
        rowid bigint PRIMARY KEY
            REFERENCES catalogue_work (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        {", ".join(f"{column} text NOT NULL" for column in COLUMNS)},
        document tsvector GENERATED ALWAYS AS ({POSTGRES_DOCUMENT}) STORED
    )""",
    f"CREATE INDEX {TABLE}_document ON {TABLE} USING gin (document)",
]


def fill(apps, schema_editor):
    """The search text of the works already there (the same text as
    WorkSearchTextQuerySet.refresh, from the historical models)."""
    Work = apps.get_model("catalogue", "Work")
    Authorship = apps.get_model("catalogue", "Authorship")
    Assignment = apps.get_model("catalogue", "Assignment")
    Technique = apps.get_model("catalogue", "Technique")
    WorkSearchText = apps.get_model("catalogue", "WorkSearchText")
    authors, topics = {}, {}
    for work_id, name in Authorship.objects.order_by("work_id", "position").values_list(
        "work_id", "author__name"
    ):
        authors.setdefault(work_id, []).append(name)
    for work_id, section, name, description in Assignment.objects.order_by(
        "work_id", "category__order", "category__code"
    ).values_list("work_id", "category__section", "category__name", "category__description"):
        topics.setdefault(work_id, []).extend([f"§{section} {name}" if section else name, description])
    for work_id, name, summary in Technique.works.through.objects.order_by("pk").values_list(
        "work_id", "technique__name", "technique__summary"
    ):
        topics.setdefault(work_id, []).extend([name, summary])
    rows = [
        WorkSearchText(
            work_id=pk,
            **document(title, authors.get(pk, []), venue, [note, abstract, key], topics.get(pk, [])),
        )
        for pk, key, title, venue, note, abstract in Work.objects.values_list(
            "pk", "key", "title", "venue", "note", "abstract"
        ).iterator(2000)
    ]
    WorkSearchText.objects.bulk_create(rows, batch_size=2000)


class Migration(migrations.Migration):

    dependencies = [
        ("catalogue", "0006_curation_deletions"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="WorkSearchText",
                    fields=[
                        (
                            "work",
                            models.OneToOneField(
                                db_column="rowid",
                                db_constraint=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="search_text",
                                serialize=False,
                                to="catalogue.work",
                            ),
                        ),
                        ("title", models.TextField(blank=True)),
                        ("authors", models.TextField(blank=True)),
                        ("topics", models.TextField(blank=True)),
                        ("venue", models.TextField(blank=True)),
                        ("notes", models.TextField(blank=True)),
                    ],
                    options={
                        "verbose_name": "search text",
                        "db_table": "catalogue_worksearchtext",
                    },
                ),
            ],
            database_operations=[
                VendorSQL("sqlite", SQLITE, [f"DROP TABLE {TABLE}"]),
                VendorSQL("postgresql", POSTGRES, [f"DROP TABLE {TABLE}"]),
            ],
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
