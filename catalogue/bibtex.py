"""BibTeX in and out, over bibtexparser 2.

Field values are kept as BibTeX text (LaTeX accents and protective braces included), so an export,
import, export round trip gives the same text. `display_text` decodes them for people.

Pure where it can be: parsing and writing do not touch the database; `plan_import` reads the
catalogue to say what an import would change, and `apply_import` writes it in one transaction.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

import bibtexparser
from bibtexparser.middlewares.names import parse_single_name_into_parts
from bibtexparser.model import Entry

from catalogue.bibtex_syntax import by_line, check_syntax, clean_pieces, describe_failed_block
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
# A work after the survey says so (era = {after}) and where its metadata was read (sourceurl);
# a work a curator adds without a source is "curated" (added by curators). The survey is closed:
# "survey" names only its 270 works, which the fixtures hold.
ERAS = ("survey", "after", "curated")
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
    era: str = ""  # as the file says; "" when it does not (the import decides)
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
    """(era, source URL) as the entry gives them ("" when it gives no era: a new work is then
    added by curators, an existing one keeps its era)."""
    era = values.pop("era", "").strip().lower()
    source_url = values.pop("sourceurl", "").strip()
    if era and era not in ERAS:
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
    """Parse a whole file; every entry that cannot be read is named in `errors` with its line.
    A syntax error does not stop the other entries being read: the report lists every error at
    once, the preview counts what the fixed file would do; with any error an import writes
    nothing (`ImportPlan.ok`)."""
    if "\x00" in text:  # PostgreSQL refuses NUL in text; no BibTeX file has one
        line = text.count("\n", 0, text.index("\x00")) + 1
        return ParsedFile([], [f"line {line}: a NUL byte (is this a binary file?)"])
    if problems := check_syntax(text):  # the entries that read cleanly on their own too
        pieces = [_read_entries(piece, line) for piece, line in clean_pieces(text)]
        records = [record for read, _ in pieces for record in read]
        errors = [error for _, found in pieces for error in found]
        return ParsedFile(records, by_line(problems + errors))
    return ParsedFile(*_read_entries(text))


def _read_entries(text: str, first_line: int = 1) -> tuple[list[WorkRecord], list[str]]:
    """The records of a text that reads cleanly, and its entries' errors; lines counted from
    `first_line` (the text may be a piece of a file)."""
    library = bibtexparser.parse_string(text)
    errors = [describe_failed_block(block, first_line) for block in library.failed_blocks]
    records = []
    for entry in library.entries:
        line = entry.start_line + first_line
        try:
            record = record_from_entry(entry)
        except BibtexError as error:
            errors.append(f"entry {entry.key!r} (line {line}): {error}")
            continue
        record.line = line
        records.append(record)
    return records, errors


def entry_fields(record: WorkRecord) -> list[tuple[str, str]]:
    """The (name, BibTeX text) of a record's fields, in the order an export writes them."""
    fields = [("author", join_authors(record.authors, record.authors_truncated))]
    fields = fields if record.authors else []
    fields.append(("title", record.title))
    for name in PLAIN_FIELDS[1:]:
        if value := getattr(record, name):
            fields.append((name, value))
    if record.year is not None:
        fields.append(("year", str(record.year)))
    if record.arxiv_id:
        fields += [("eprint", record.arxiv_id), ("archiveprefix", "arXiv")]
    if record.survey_ref is not None:
        fields.append(("surveyref", str(record.survey_ref)))
    if record.era and record.era != "survey":  # the survey's entries stay as they were
        fields.append(("era", record.era))
    if record.source_url:
        fields.append(("sourceurl", record.source_url))
    # Sorted: PostgreSQL's jsonb does not keep key order, and exports must be stable.
    fields += sorted(record.extra_fields.items())
    # A curator's "&" or "^" would stop the reader's LaTeX build: the export escapes it.
    return [
        (name, value if name in VERBATIM_FIELDS else escape_specials(value))
        for name, value in fields
    ]


def entry_text(record: WorkRecord) -> str:
    """One entry as bibtexparser's writer wrote it (every value in braces, two spaces of
    indent, no trailing comma)."""
    fields = ",\n".join(f"  {name} = {{{value}}}" for name, value in entry_fields(record))
    return f"@{record.entry_type}{{{record.key},\n{fields}\n}}\n"


def write_bibtex(records: Iterable[WorkRecord]) -> str:
    """The records as a BibTeX file. Written here rather than by bibtexparser's writer, whose
    entry objects, middleware and writer were half of an export's time: the same text, byte for
    byte (tests/catalogue/test_bibtex.py compares them on the whole survey)."""
    return "\n\n".join(entry_text(record) for record in records).strip() + "\n"


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
class Update:
    """An entry that is a work of the catalogue: what differs between the stored work and the
    file, field by field (stored, file). Applied only field by field, as a curator chooses."""

    key: str  # the stored work's key
    record: WorkRecord  # the entry as the file says it
    changes: dict[str, tuple[object, object]]
    matched_by: str = ""  # how an entry under another key was found to be this work


@dataclass
class ImportPlan:
    """What importing a file would do. Nothing is written while `errors` is not empty."""

    create: list[WorkRecord] = field(default_factory=list)
    update: list[Update] = field(default_factory=list)
    unchanged: list[WorkRecord] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    same_work: list[str] = field(default_factory=list)  # "entry x: same work as y (by DOI)"
    kept: list[str] = field(default_factory=list)  # what an import never changes, and said so
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        counts = (
            f"{len(self.create)} new, {len(self.update)} with differences, "
            f"{len(self.unchanged)} unchanged, {len(self.same_work)} matched under another key, "
            f"{len(self.duplicates)} duplicates skipped"
        )
        if self.ok:
            return f"{counts}, 0 errors"
        # The counts are what the import will apply once the file is fixed; with errors it
        # applies nothing, and says so (a bare "1 new" read as if it would be imported).
        errors = f"{len(self.errors)} error{'' if len(self.errors) == 1 else 's'}"
        return f"{errors}: nothing is imported until they are fixed; then {counts}"


# What an import never changes on a stored work: its era (the survey is closed), the source of
# its metadata, its survey reference number.
NEVER_IMPORTED = ("era", "source_url", "survey_ref")
ARXIV_IN_TEXT = re.compile(
    r"(?:arxiv(?:\.org/(?:abs|pdf)/|\s*(?:preprint)?\s*(?:arxiv)?\s*:?\s*))"
    r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?",
    re.IGNORECASE,
)
ARXIV_TEXT_FIELDS = ("journal", "note", "url", "booktitle")
ARXIV_EXTRA_FIELDS = ("howpublished", "eprint")


def arxiv_id_of(record: WorkRecord) -> str:
    """The arXiv id wherever reference managers put it: eprint (with archivePrefix or
    eprinttype), or text such as "arXiv preprint arXiv:1811.06965" in journal, note or
    howpublished, or an arxiv.org URL."""
    if record.arxiv_id:
        return record.arxiv_id
    texts = [getattr(record, name) for name in ARXIV_TEXT_FIELDS]
    texts += [record.extra_fields.get(name, "") for name in ARXIV_EXTRA_FIELDS]
    for text in texts:
        if match := ARXIV_IN_TEXT.search(text or ""):
            return match.group(1)
    return ""


def normalised_title(title: str) -> str:
    """Case, braces, TeX accents and punctuation removed: "{GPipe}: Efficient {T}raining" and
    "Gpipe - efficient training" are one title."""
    text = display_text(title) if "\\" in title or "{" in title else title
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def first_surname(authors: list[str]) -> str:
    return normalised_title(person_name(authors[0]).family) if authors else ""


class Identities:
    """The catalogue's works by key, DOI, arXiv id and normalised title, to find the work an
    entry describes under whatever key the file gives it."""

    def __init__(self, works) -> None:
        self.by_key: dict[str, object] = {}
        self.by_doi: dict[str, str] = {}
        self.by_arxiv: dict[str, str] = {}
        self.by_title: dict[str, list[tuple[str, int | None, str]]] = {}
        for work in works:
            self.add(work.key, work.doi, work.arxiv_id, work.title, work.year, work.author_names)
            self.by_key[work.key] = work

    def add(self, key, doi, arxiv, title, year, authors) -> None:
        if doi:
            self.by_doi.setdefault(doi.lower(), key)
        if arxiv:
            self.by_arxiv.setdefault(arxiv.lower(), key)
        entry = (key, year, first_surname(authors))
        self.by_title.setdefault(normalised_title(title), []).append(entry)

    def match(self, record: WorkRecord, arxiv: str) -> tuple[str, str] | None:
        """(key, how) of the work this entry is, or None for a new work."""
        if record.key in self.by_key:
            return record.key, "key"
        if record.doi and (key := self.by_doi.get(record.doi.lower())):
            return key, f"DOI {record.doi}"
        if arxiv and (key := self.by_arxiv.get(arxiv.lower())):
            return key, f"arXiv id {arxiv}"
        surname = first_surname(record.authors)
        for key, year, stored_surname in self.by_title.get(normalised_title(record.title), []):
            near = record.year is None or year is None or abs(record.year - year) <= 1
            if near and surname and surname == stored_surname:
                return key, "title, year and first author"
        return None


def plan_import(text: str) -> ImportPlan:
    from catalogue.models import Work

    parsed = parse_bibtex(text)
    plan = ImportPlan(errors=list(parsed.errors))
    if not parsed.records:
        return plan
    identities = Identities(Work.objects.for_list())
    planned: set[str] = set()  # the stored works and new keys this file already speaks for
    for record in parsed.records:
        arxiv = arxiv_id_of(record)
        found = identities.match(record, arxiv)
        if found is None:
            _plan_new(plan, record, arxiv, identities)
            planned.add(record.key)
            continue
        key, how = found
        where = f"entry {record.key!r} (line {record.line})"
        if key in planned:
            plan.duplicates.append(
                f"{where}: the same work as {key!r}, earlier in this file; skipped"
            )
            continue
        planned.add(key)
        if key not in identities.by_key:  # a work new in this file, matched again
            continue
        if key != record.key:
            plan.same_work.append(f"{where}: same work as {key} (by {how})")
        _plan_existing(
            plan, record, arxiv, identities.by_key[key], how if key != record.key else ""
        )
    return plan


def _plan_new(plan: ImportPlan, record: WorkRecord, arxiv: str, identities: Identities) -> None:
    where = f"entry {record.key!r} (line {record.line})"
    if record.era == "survey" or record.survey_ref is not None:
        plan.errors.append(
            f"{where}: the survey is closed (its 270 works are the fixtures'), and this entry is "
            "none of them; remove its era = {survey} / surveyref, and it is added as a work "
            "added by curators"
        )
        return
    record.era = record.era or "curated"
    record.arxiv_id = arxiv
    identities.add(record.key, record.doi, arxiv, record.title, record.year, record.authors)
    plan.create.append(record)


def _plan_existing(plan: ImportPlan, record: WorkRecord, arxiv: str, work, matched_by: str):
    stored = record_from_work(work)
    for name in NEVER_IMPORTED:
        given = getattr(record, name)
        if given not in ("", None) and given != getattr(stored, name):
            plan.kept.append(
                f"kept the {name} of {work.key} ({getattr(stored, name)!r}; the file says "
                f"{given!r}): an import never changes it"
            )
    record.arxiv_id = arxiv
    # The other BibTeX fields one by one: a field the file leaves out is kept.
    record.extra_fields = stored.extra_fields | record.extra_fields
    before, after = stored.comparable(), record.comparable()
    changes = {
        name: (before[name], value)
        for name, value in after.items()
        if name not in NEVER_IMPORTED and _given(value) and not _same(name, value, before[name])
    }
    if changes:
        plan.update.append(Update(work.key, record, changes, matched_by))
    else:
        plan.unchanged.append(record)


def _same(name: str, value: object, stored: object) -> bool:
    """Equal, or the same up to how it is written: a title up to case, braces and accents
    commands; authors up to name order ("Huang, Yanping" is "Yanping Huang")."""
    if value == stored:
        return True
    if name == "title":
        return normalised_title(str(value)) == normalised_title(str(stored))
    if name == "authors":
        return [_spelled(n) for n in value] == [_spelled(n) for n in stored]
    return False


def _spelled(name: str) -> tuple[str, str]:
    parts = person_name(name)
    return normalised_title(parts.family), normalised_title(parts.given)


def _given(value: object) -> bool:
    """A field the file gives: an empty or absent one never erases what is stored."""
    return value not in ("", None, [], {}, False)


def apply_import(plan: ImportPlan, accepted=None) -> list[str]:
    """Write a clean plan in one transaction: the new works, and of the differences only those
    `accepted` says (a set of (key, field), or True for all: `--update`). Returns one line per
    field applied. Refuses a plan with errors."""
    from django.db import transaction

    from catalogue.models import Work
    from catalogue.version import bump_generation

    if not plan.ok:
        raise BibtexError("the file has errors; nothing was imported")
    applied = []
    with transaction.atomic():
        # What an import sets is a curator's choice: load_survey keeps it (see load_survey).
        for record in plan.create:
            Work.objects.save_record(record, curated=record.comparable())
        for update in plan.update:
            names = [
                name
                for name in update.changes
                if accepted is True or (accepted and (update.key, name) in accepted)
            ]
            if names:
                _apply_fields(Work.objects.get(key=update.key), update.record, names)
                applied += [f"{update.key}: {name}" for name in names]
        transaction.on_commit(bump_generation)  # author lists are written in bulk
    return applied


def _apply_fields(work, record: WorkRecord, names: list[str]) -> None:
    for name in names:
        if name != "authors":
            setattr(work, name, getattr(record, name))
    if {"journal", "booktitle", "extra_fields"} & set(names):
        work.venue = record.venue
    work.mark_curated(names)
    work.save()
    if "authors" in names:
        work.set_authors(record.authors)
