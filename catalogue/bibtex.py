"""BibTeX in and out, over bibtexparser 2.

Field values are kept as BibTeX text (LaTeX accents and protective braces included), so an export,
import, export round trip gives the same text. `display_text` decodes them for people.

Pure where it can be: parsing and writing do not touch the database; `plan_import` reads the
catalogue to say what an import would change, and `apply_import` writes it in one transaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import bibtexparser
from bibtexparser.middlewares.names import parse_single_name_into_parts
from bibtexparser.model import Entry, Field

from catalogue.bibtex_syntax import check_syntax
from catalogue.constants import KEY_REGEX, PLAIN_FIELDS, WORK_FIELDS
from catalogue.latex import (
    VERBATIM_FIELDS,
    display_text,  # noqa: F401 - part of this module's interface
    escape_specials,
)

KEY_PATTERN = re.compile(rf"^{KEY_REGEX}$")
MAX_FIELD_LENGTHS = {
    "title": 2000,
    "journal": 300,
    "booktitle": 400,
    "volume": 30,
    "number": 30,
    "pages": 50,
    "publisher": 200,
    "doi": 200,
    "url": 500,
    "arxiv_id": 40,
    "source_url": 500,
}
# A work after the survey says so (era = {after}) and where its metadata was read (sourceurl).
ERAS = ("survey", "after")
SOURCE_URL_PATTERN = re.compile(r"^https?://[^\s{}]+$")
# Authors are split on "and" at brace depth zero; "others" is BibTeX for "et al.".
AND_SPLIT = re.compile(r"\s+and\s+", re.IGNORECASE)


class BibtexError(ValueError):
    """A problem with one entry, or with the file as a whole."""


@dataclass
class WorkRecord:
    """One work as plain data: what a BibTeX entry says, ready for the catalogue."""

    key: str
    entry_type: str
    title: str
    year: int | None = None
    authors: list[str] = field(default_factory=list)
    authors_truncated: bool = False
    journal: str = ""
    booktitle: str = ""
    volume: str = ""
    number: str = ""
    pages: str = ""
    publisher: str = ""
    doi: str = ""
    url: str = ""
    note: str = ""
    abstract: str = ""
    arxiv_id: str = ""
    survey_ref: int | None = None
    era: str = "survey"
    source_url: str = ""
    extra_fields: dict[str, str] = field(default_factory=dict)
    line: int | None = None

    @property
    def venue(self) -> str:
        return self.journal or self.booktitle or self.extra_fields.get("howpublished", "")

    def comparable(self) -> dict[str, object]:
        """The fields an import may change, for previews and equality."""
        data = {name: getattr(self, name) for name in WORK_FIELDS}
        data["authors"] = list(self.authors)
        return data


def split_authors(value: str) -> tuple[list[str], bool]:
    """'A and B and others' -> (['A', 'B'], True). Splits only outside braces."""
    names, start = [], 0
    for and_start, and_end in _top_level_and_positions(value):
        names.append(value[start:and_start].strip())
        start = and_end
    names.append(value[start:].strip())
    names = [n for n in names if n]
    truncated = bool(names) and names[-1].lower() == "others"
    if truncated:
        names = names[:-1]
    return names, truncated


def _top_level_and_positions(value: str) -> Iterable[tuple[int, int]]:
    depth_at, depth = [], 0
    for char in value:
        depth_at.append(depth)
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
    for match in AND_SPLIT.finditer(value):
        if depth_at[match.start()] == 0:
            yield match.start(), match.end()


@dataclass(frozen=True)
class PersonName:
    """A BibTeX name in its parts, decoded for people: "Ludwig van Beethoven" is given "Ludwig",
    particle "van", family "Beethoven". A one-part name ("{NVIDIA}") has only a family."""

    family: str
    given: str = ""
    particle: str = ""
    suffix: str = ""

    @property
    def family_first(self) -> str:
        """ "Last, First" (with the particle before the family name), as RIS wants it."""
        family = " ".join(part for part in (self.particle, self.family) if part)
        return ", ".join(part for part in (family, self.given, self.suffix) if part)


def person_name(name: str) -> PersonName:
    """Split one BibTeX name ("First von Last", "von Last, First" or "von Last, Jr, First")."""
    parts = parse_single_name_into_parts(name, strict=False)
    return PersonName(
        family=display_text(" ".join(parts.last)),
        given=display_text(" ".join(parts.first)),
        particle=display_text(" ".join(parts.von)),
        suffix=display_text(" ".join(parts.jr)),
    )


def join_authors(names: list[str], truncated: bool) -> str:
    return " and ".join([*names, "others"] if truncated else names)


def record_from_entry(entry: Entry) -> WorkRecord:
    """Turn one parsed entry into a WorkRecord, or raise BibtexError saying what is wrong."""
    if not KEY_PATTERN.match(entry.key or ""):
        raise BibtexError(
            "the key must start with a letter or digit and hold only letters, digits, _ . : -"
        )
    values = {f.key.lower(): str(f.value).strip() for f in entry.fields}
    title = values.pop("title", "")
    if not title:
        raise BibtexError("it has no title")
    record = WorkRecord(key=entry.key, entry_type=entry.entry_type.lower(), title=title)
    record.year = _parse_year(values.pop("year", ""))
    record.authors, record.authors_truncated = split_authors(values.pop("author", ""))
    for name in PLAIN_FIELDS[1:]:
        setattr(record, name, values.pop(name, ""))
    record.arxiv_id = _parse_arxiv(values)
    record.survey_ref = _parse_survey_ref(values.pop("surveyref", ""))
    record.era, record.source_url = _parse_era(values, record.survey_ref)
    record.extra_fields = values
    record.line = entry.start_line + 1
    _check_lengths(record)
    return record


def _parse_year(text: str) -> int | None:
    if not text:
        return None
    if not re.fullmatch(r"\d{4}", text):
        raise BibtexError(f"year {text!r} is not a four-digit year")
    year = int(text)
    if not 1800 <= year <= 2100:
        raise BibtexError(f"year {year} is outside 1800-2100")
    return year


def _parse_arxiv(values: dict[str, str]) -> str:
    prefix = values.get("archiveprefix", "").lower()
    if "eprint" in values and prefix in ("", "arxiv"):
        values.pop("archiveprefix", None)
        return values.pop("eprint")
    return ""


def _parse_survey_ref(text: str) -> int | None:
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise BibtexError(f"surveyref {text!r} is not a positive reference number")
    return int(text)


def _parse_era(values: dict[str, str], survey_ref: int | None) -> tuple[str, str]:
    """(era, source URL): an entry without `era` is in the survey, as every entry was before."""
    era = values.pop("era", "survey").strip().lower()
    source_url = values.pop("sourceurl", "").strip()
    if era not in ERAS:
        raise BibtexError(f"era {era!r} is not one of: {', '.join(ERAS)}")
    if source_url and not SOURCE_URL_PATTERN.match(source_url):
        raise BibtexError(f"sourceurl {source_url!r} is not an http(s) URL")
    if era == "after":
        if not source_url:
            raise BibtexError("a work after the survey (era = {after}) needs a sourceurl")
        if survey_ref is not None:
            raise BibtexError("a work after the survey cannot have a surveyref")
    return era, source_url


def _check_lengths(record: WorkRecord) -> None:
    # The columns' limits: PostgreSQL refuses a longer value, which would abort the import.
    for name, limit in (("key", 100), ("entry_type", 30)):
        if len(getattr(record, name)) > limit:
            raise BibtexError(f"the {name.replace('_', ' ')} is longer than {limit} characters")
    if len(record.venue) > 400:
        raise BibtexError("the venue (journal, booktitle or howpublished) is over 400 characters")
    for name, limit in MAX_FIELD_LENGTHS.items():
        if len(getattr(record, name)) > limit:
            raise BibtexError(f"{name} is longer than {limit} characters")
    if any(len(name) > 200 for name in record.authors):
        raise BibtexError("an author name is longer than 200 characters")


@dataclass
class ParsedFile:
    records: list[WorkRecord]
    errors: list[str]


def decode_bibtex(data: bytes) -> str:
    """The text of an uploaded or read file, or BibtexError naming the first byte that is not
    UTF-8 and its line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise BibtexError(
            f"line {line}: the file is not UTF-8 text (byte 0x{data[error.start]:02x} cannot be "
            "read); save it as UTF-8 and try again"
        ) from error


def parse_bibtex(text: str) -> ParsedFile:
    """Parse a whole file; every entry that cannot be read is named in `errors`, and a file
    with a syntax error yields no records at all (an import is all or nothing)."""
    if "\x00" in text:  # PostgreSQL refuses NUL in text; no BibTeX file has one
        line = text.count("\n", 0, text.index("\x00")) + 1
        return ParsedFile([], [f"line {line}: a NUL byte (is this a binary file?)"])
    if problems := check_syntax(text):
        return ParsedFile([], problems)
    library = bibtexparser.parse_string(text)
    errors = [_describe_failed_block(block) for block in library.failed_blocks]
    records = []
    for entry in library.entries:
        try:
            records.append(record_from_entry(entry))
        except BibtexError as error:
            errors.append(f"entry {entry.key!r} (line {entry.start_line + 1}): {error}")
    return ParsedFile(records, errors)


def _describe_failed_block(block) -> str:
    line = block.start_line + 1
    error = getattr(block, "error", None)
    if type(block).__name__ == "DuplicateBlockKeyBlock":
        return f"entry {block.key!r} (line {line}): duplicate key in the file"
    lines = str(error or "").strip().splitlines()
    first_line = lines[0] if lines else "could not be parsed"
    return f"block at line {line}: {first_line}"


def entry_from_record(record: WorkRecord) -> Entry:
    fields = [Field("author", join_authors(record.authors, record.authors_truncated))]
    fields = fields if record.authors else []
    fields.append(Field("title", record.title))
    for name in PLAIN_FIELDS[1:]:
        if value := getattr(record, name):
            fields.append(Field(name, value))
    if record.year is not None:
        fields.append(Field("year", str(record.year)))
    if record.arxiv_id:
        fields += [Field("eprint", record.arxiv_id), Field("archiveprefix", "arXiv")]
    if record.survey_ref is not None:
        fields.append(Field("surveyref", str(record.survey_ref)))
    if record.era != "survey":  # the survey's entries stay as they were
        fields.append(Field("era", record.era))
    if record.source_url:
        fields.append(Field("sourceurl", record.source_url))
    # Sorted: PostgreSQL's jsonb does not keep key order, and exports must be stable.
    fields += [Field(name, value) for name, value in sorted(record.extra_fields.items())]
    # A curator's "&" or "^" would stop the reader's LaTeX build: the export escapes it.
    for item in fields:
        if item.key not in VERBATIM_FIELDS:
            item.value = escape_specials(item.value)
    return Entry(record.entry_type, record.key, fields)


def write_bibtex(records: Iterable[WorkRecord]) -> str:
    library = bibtexparser.Library([entry_from_record(r) for r in records])
    bibtex_format = bibtexparser.BibtexFormat()
    bibtex_format.indent = "  "
    bibtex_format.block_separator = "\n\n"
    return bibtexparser.write_string(library, bibtex_format=bibtex_format).strip() + "\n"


# --- The catalogue side: export works, plan and apply an import ---------------------------------


def record_from_work(work) -> WorkRecord:
    """A WorkRecord for a Work (authorships prefetched by `Work.objects.for_list()`)."""
    record = WorkRecord(key=work.key, entry_type=work.entry_type, title=work.title, year=work.year)
    record.authors = work.author_names
    record.authors_truncated = work.authors_truncated
    for name in [*PLAIN_FIELDS[1:], "arxiv_id", "survey_ref", "era", "source_url"]:
        setattr(record, name, getattr(work, name))
    record.extra_fields = dict(work.extra_fields)
    return record


def export_works(works) -> str:
    return write_bibtex(record_from_work(work) for work in works)


@dataclass
class ImportPlan:
    """What importing a file would do. Nothing is written while `errors` is not empty."""

    create: list[WorkRecord] = field(default_factory=list)
    update: list[tuple[WorkRecord, dict[str, tuple[object, object]]]] = field(default_factory=list)
    unchanged: list[WorkRecord] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        return (
            f"{len(self.create)} new, {len(self.update)} changed, {len(self.unchanged)} unchanged, "
            f"{len(self.duplicates)} duplicates skipped, {len(self.errors)} errors"
        )


def plan_import(text: str) -> ImportPlan:
    from catalogue.models import Work

    parsed = parse_bibtex(text)
    plan = ImportPlan(errors=list(parsed.errors))
    if not parsed.records:
        return plan
    existing = {w.key: w for w in Work.objects.for_list()}
    owner_of = _identifier_owners(existing.values())
    for record in parsed.records:
        if duplicate := _duplicate_of(record, owner_of):
            plan.duplicates.append(duplicate)
            continue
        _claim_identifiers(record, owner_of)
        if record.key not in existing:
            plan.create.append(record)
            continue
        before = record_from_work(existing[record.key]).comparable()
        changes = {
            name: (before[name], value)
            for name, value in record.comparable().items()
            if before[name] != value
        }
        if changes:
            plan.update.append((record, changes))
        else:
            plan.unchanged.append(record)
    return plan


def _identifier_owners(works) -> dict[tuple[str, str], str]:
    owners = {}
    for work in works:
        for kind in ("doi", "arxiv_id"):
            if value := getattr(work, kind):
                owners[(kind, value.lower())] = work.key
    return owners


def _duplicate_of(record: WorkRecord, owner_of: dict[tuple[str, str], str]) -> str | None:
    for kind, label in (("doi", "DOI"), ("arxiv_id", "arXiv id")):
        value = getattr(record, kind)
        owner = owner_of.get((kind, value.lower())) if value else None
        if owner and owner != record.key:
            return (
                f"entry {record.key!r} (line {record.line}): same {label} {value} as {owner!r}; "
                "skipped"
            )
    return None


def _claim_identifiers(record: WorkRecord, owner_of: dict[tuple[str, str], str]) -> None:
    for kind in ("doi", "arxiv_id"):
        if value := getattr(record, kind):
            owner_of[(kind, value.lower())] = record.key


def apply_import(plan: ImportPlan) -> None:
    """Write a clean plan in one transaction; refuse a plan with errors."""
    from django.db import transaction

    from catalogue.models import Work

    if not plan.ok:
        raise BibtexError("the file has errors; nothing was imported")
    from catalogue.graph import bump_generation

    with transaction.atomic():
        # What an import sets is a curator's choice: load_survey keeps it (see load_survey).
        for record in plan.create:
            Work.objects.save_record(record, curated=record.comparable())
        for record, changes in plan.update:
            Work.objects.save_record(record, curated=changes)
        transaction.on_commit(bump_generation)  # author lists are written in bulk
