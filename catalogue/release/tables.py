"""The public tables of a release, read from the catalogue in a defined order.

Each table is named here, one by one, from an allow-list of models: accounts, sessions, demo
runs, the admin's log, the curation log (CuratorDeletion), the search index (derived) and the
MLPerf load log (timestamps) are never read. `curated_fields` (which fields a curator touched)
is curation bookkeeping, not a fact of the catalogue: leaving it out also keeps a changelog to
the edit itself. Rows are sorted by primary key; JSON values are written with sorted keys.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from django.db import models

from catalogue import devices as device_catalogue
from catalogue import models as catalogue
from catalogue.source_kinds import classify

LEFT_OUT_COLUMNS = frozenset({"curated_fields"})

# Release table name -> model, parents before children (a foreign key names an earlier table,
# but a category's parent, which is its own table).
MODEL_TABLES: tuple[tuple[str, type[models.Model]], ...] = (
    ("person", catalogue.Person),
    ("author", catalogue.Author),
    ("work", catalogue.Work),
    ("authorship", catalogue.Authorship),
    ("category", catalogue.Category),
    ("assignment", catalogue.Assignment),
    ("citation", catalogue.Citation),
    ("technique", catalogue.Technique),
    ("technique_work", catalogue.Technique.works.through),
    ("cost_model", catalogue.CostModel),
    ("cost_model_work", catalogue.CostModel.works.through),
    ("result", catalogue.Result),
    ("result_technique", catalogue.Result.techniques.through),
    ("mlperf_round", catalogue.MlperfRound),
    ("mlperf_benchmark", catalogue.MlperfBenchmark),
    ("mlperf_benchmark_technique", catalogue.MlperfBenchmark.techniques.through),
    ("mlperf_benchmark_category", catalogue.MlperfBenchmark.categories.through),
    ("mlperf_system", catalogue.MlperfSystem),
    ("mlperf_run", catalogue.MlperfRun),
    ("mlperf_score", catalogue.MlperfScore),
)

# Django's field types as a table schema's types (Frictionless: integer, number, boolean,
# string); a JSON value is a string holding JSON (its shape varies by row).
FIELD_TYPES = {
    "AutoField": "integer",
    "BigAutoField": "integer",
    "ForeignKey": "integer",
    "OneToOneField": "integer",
    "IntegerField": "integer",
    "BigIntegerField": "integer",
    "PositiveIntegerField": "integer",
    "PositiveSmallIntegerField": "integer",
    "SmallIntegerField": "integer",
    "FloatField": "number",
    "BooleanField": "boolean",
}

URL_IN_TEXT = re.compile(r"https?://[^\s,;\"'<>)\]]+")


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # integer, number, boolean or string
    description: str = ""
    json: bool = False


@dataclass(frozen=True)
class ForeignKey:
    column: str
    table: str
    target: str = "id"


@dataclass(frozen=True)
class Table:
    name: str
    description: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    rows: list[tuple] = field(default_factory=list)
    foreign_keys: tuple[ForeignKey, ...] = ()

    @property
    def column_names(self) -> list[str]:
        return [column.name for column in self.columns]


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _column(model_field: models.Field) -> Column:
    kind = model_field.get_internal_type()
    description = str(model_field.help_text or model_field.verbose_name)
    if kind == "JSONField":
        return Column(model_field.attname, "string", f"{description} (JSON)", json=True)
    return Column(model_field.attname, FIELD_TYPES.get(kind, "string"), description)


def _foreign_keys(model: type[models.Model], names: dict[type, str]) -> tuple[ForeignKey, ...]:
    return tuple(
        ForeignKey(model_field.attname, names[model_field.related_model])
        for model_field in model._meta.concrete_fields
        if model_field.is_relation
    )


def model_table(name: str, model: type[models.Model], names: dict[type, str]) -> Table:
    fields = [f for f in model._meta.concrete_fields if f.name not in LEFT_OUT_COLUMNS]
    columns = tuple(_column(f) for f in fields)
    rows = []
    for row in model.objects.order_by("pk").values_list(*[f.attname for f in fields]):
        values = zip(columns, row, strict=True)
        rows.append(tuple(canonical_json(v) if c.json else v for c, v in values))
    description = str(model.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    return Table(
        name=name,
        description=description if not description.startswith(model.__name__ + "(") else "",
        columns=columns,
        primary_key=("id",),
        rows=rows,
        foreign_keys=_foreign_keys(model, names),
    )


# The catalogue's tables that are never released: curation's log (who deleted what, when), the
# full-text index (derived from the works) and the log of MLPerf loads (timestamps).
NOT_RELEASED = frozenset(
    {"catalogue_curatordeletion", "catalogue_worksearchtext", "catalogue_mlperfload"}
)


def released_models() -> list[tuple[str, type[models.Model]]]:
    """MODEL_TABLES, then every other table of the catalogue app that is not NOT_RELEASED (a
    table added later, such as published runs, is released without a change here), by name."""
    from django.apps import apps

    named = {model for _, model in MODEL_TABLES}
    others = [
        (model._meta.db_table.removeprefix("catalogue_"), model)
        for model in apps.get_app_config("catalogue").get_models(include_auto_created=True)
        if model not in named and model._meta.db_table not in NOT_RELEASED
    ]
    return [*MODEL_TABLES, *sorted(others, key=lambda pair: pair[0])]


def catalogue_tables() -> list[Table]:
    """Every public table of the database, in `released_models`' order."""
    released = released_models()
    names = {model: name for name, model in released}
    return [model_table(name, model, names) for name, model in released]


def device_tables() -> list[Table]:
    """The device catalogue (fixtures/devices.json): each device, and each value with the figure
    as its page prints it, the page and the page's kind."""
    found = device_catalogue.devices()
    devices, values = [], []
    for slug in sorted(found):
        device = found[slug]
        devices.append(
            (slug, device.name, device.vendor, device.kind, canonical_json(list(device.aliases)))
        )
        for name in sorted(device.readings):
            reading = device.readings[name]
            value = reading.value
            values.append(
                (slug, name, reading.read, value, reading.url, reading.kind, reading.divisor)
                + (reading.why,)
            )
    device_columns = (
        Column("slug", "string"),
        Column("name", "string"),
        Column("vendor", "string"),
        Column("kind", "string", "gpu, tpu or accelerator"),
        Column("aliases", "string", "names MLPerf system descriptions use (JSON)", json=True),
    )
    value_columns = (
        Column("device", "string"),
        Column("field", "string", "memory_bytes, memory_bandwidth, link_bandwidth, peak_flops.*"),
        Column("read", "string", "the figure as its page prints it"),
        Column("value", "number", "bytes, bytes/s or dense FLOP/s (see the divisor)"),
        Column("url", "string", "the page the figure was read on"),
        Column("page_kind", "string", "vendor, mlperf or secondary"),
        Column("divisor", "number", "from the figure to the value"),
        Column("why", "string", "the divisor's reason"),
    )
    return [
        Table(
            "device", "Accelerators (fixtures/devices.json).", device_columns, ("slug",), devices
        ),
        Table(
            "device_value",
            "Each device value with its figure and page.",
            value_columns,
            ("device", "field"),
            values,
            (ForeignKey("device", "device", "slug"),),
        ),
    ]


def demo_table(schemas: list[dict]) -> Table:
    """The demos' definitions (their registry's schemas), never their runs."""
    columns = (
        Column("slug", "string"),
        Column("title", "string"),
        Column("version", "integer", "bumped whenever results for the same parameters change"),
        Column("level", "string"),
        Column("summary", "string"),
        Column("techniques", "string", "technique slugs (JSON)", json=True),
        Column("works", "string", "survey reference numbers [v2] (JSON)", json=True),
        Column("params", "string", "bounded parameters (JSON)", json=True),
    )
    rows = [
        (
            schema["slug"],
            schema["title"],
            schema["version"],
            schema["level"],
            schema.get("summary", ""),
            canonical_json(schema.get("techniques", [])),
            canonical_json(schema.get("works", [])),
            canonical_json(schema.get("params", [])),
        )
        for schema in sorted(schemas, key=lambda schema: schema["slug"])
    ]
    return Table(
        "demo",
        "The live demos' definitions (their runs are not released).",
        columns,
        ("slug",),
        rows,
    )


def urls_in(value: object) -> list[str]:
    if not isinstance(value, str) or "http" not in value:
        return []
    return [url.rstrip(".") for url in URL_IN_TEXT.findall(value)]


def source_table(tables: list[Table]) -> Table:
    """Every web address the other tables record, with its kind of evidence
    (catalogue/source_kinds.py) and the columns that record it."""
    where: dict[str, set[str]] = {}
    for table in tables:
        text_columns = [i for i, c in enumerate(table.columns) if c.type == "string"]
        for row in table.rows:
            for i in text_columns:
                for url in urls_in(row[i]):
                    where.setdefault(url, set()).add(f"{table.name}.{table.columns[i].name}")
    rows = []
    for url in sorted(where):
        kind = classify(url)
        rows.append((url, kind.kind, kind.what, canonical_json(sorted(where[url]))))
    columns = (
        Column("url", "string"),
        Column("kind", "string", "first-hand, index or secondary"),
        Column("what", "string", "what the page is, as the source-kind registry names it"),
        Column("recorded_in", "string", "the table.column that record it (JSON)", json=True),
    )
    return Table("source", "Every recorded source address with its kind.", columns, ("url",), rows)


def release_tables(demo_schemas: list[dict]) -> list[Table]:
    """Every table of a release: the database's, the devices, the demos, then the sources."""
    tables = [*catalogue_tables(), *device_tables(), demo_table(demo_schemas)]
    return [*tables, source_table(tables)]
