"""Exports a reference manager reads whole: each format is exported, read back with its reader
library, and compared field by field; CSL-JSON validates against the CSL data schema and renders
with a CSL processor (citeproc-py) in a standard style."""

import csv
import io
import json
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from pybtex.database import parse_string as pybtex_parse
from pybtex.plugin import find_plugin
from pybtex.style.template import FieldIsMissing

from catalogue import bibtex
from catalogue.latex import VERBATIM_FIELDS, escape_specials, specials_outside_math
from catalogue.models import Work
from tests.helpers import make_work

# csl-data.json from the citation-style-language/schema repository (MIT), vendored beside it.
CSL_SCHEMA = json.loads((Path(__file__).parent / "csl" / "csl-data.json").read_text())


def export(client, export_format: str, **filters) -> str:
    query = "&".join(f"{name}={value}" for name, value in filters.items())
    response = client.get(f"/api/export/?format={export_format}&{query}")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
def test_ris_carries_pages_authors_and_arxiv_ids(client, survey):
    entries = {entry["id"]: entry for entry in rispy.loads(export(client, "ris"))}
    assert entries["alistarh2017qsgd"] == {
        "type_of_reference": "CONF",
        "id": "alistarh2017qsgd",
        "title": "QSGD: Communication-Efficient SGD via Gradient Quantization and Encoding",
        "authors": [
            "Alistarh, D.",
            "Grubic, D.",
            "Li, J.",
            "Tomioka, R.",
            "Vojnovic, M.",
        ],
        "year": "2017",
        "secondary_title": "Advances in Neural Information Processing Systems 30",
        "start_page": "1709",
        "end_page": "1720",
        # Read on stored pages (fixtures/identifiers.json): the arXiv id and the landing page.
        "urls": [
            "https://papers.nips.cc/paper_files/paper/2017/file/"
            "6c340f25839e6acdc73414517203f5f0-Metadata.json",
            "https://arxiv.org/abs/1610.02132",
        ],
        "name_of_database": "arXiv",
        "accession_number": "1610.02132",
    }
    assert entries["aji2017sparse"] == {
        "type_of_reference": "GEN",
        "id": "aji2017sparse",
        "title": "Sparse Communication for Distributed Gradient Descent",
        "authors": ["Aji, A. F.", "Heafield, K."],
        "year": "2017",
        "urls": ["https://arxiv.org/abs/1704.05021"],
        "name_of_database": "arXiv",
        "accession_number": "1704.05021",
        # Issue 37: the EMNLP 2017 DOI, read on the ACL Anthology's record.
        "doi": "10.18653/v1/d17-1045",
    }


@pytest.mark.django_db
def test_every_export_carries_the_identifiers_read(client, survey):
    """bengio1994learning's DOI was read on a stored page (fixtures/identifiers.json)."""
    ris = {entry["id"]: entry for entry in rispy.loads(export(client, "ris"))}
    assert ris["bengio1994learning"]["doi"] == "10.1109/72.279181"
    csl = {item["id"]: item for item in json.loads(export(client, "csljson"))}
    assert csl["bengio1994learning"]["DOI"] == "10.1109/72.279181"
    assert csl["cho2014learning"]["DOI"] == "10.3115/v1/d14-1179"
    library = bibtexparser.parse_string(export(client, "bibtex"))
    fields = {e.key: {f.key: str(f.value) for f in e.fields} for e in library.entries}
    assert fields["bengio1994learning"]["doi"] == "10.1109/72.279181"
    assert (fields["cho2014learning"]["eprint"], fields["cho2014learning"]["archiveprefix"]) == (
        "1406.1078",
        "arXiv",
    )


@pytest.mark.django_db
def test_ris_round_trips_every_work(client, survey):
    entries = {entry["id"]: entry for entry in rispy.loads(export(client, "ris", era="all"))}
    works = Work.objects.for_list()
    assert len(entries) == len(works) == 376  # the survey's 270 and the 106 after it
    for work in works:
        entry = entries[work.key]
        assert entry["title"] == bibtex.display_text(work.title)
        assert len(entry["authors"]) == len(work.author_names)
        for name, stored in zip(entry["authors"], work.author_names, strict=True):
            # "Last, First"; an organisation in braces is one name.
            assert ", " in name or stored.startswith("{"), (name, stored)
        assert entry.get("year") == (str(work.year) if work.year else None)
        pages = [entry.get("start_page", ""), entry.get("end_page", "")]
        assert ("--".join(pages) if pages[1] else pages[0]) == work.pages
        assert entry.get("accession_number", "") == work.arxiv_id
        assert entry.get("doi", "") == work.doi
        assert set(entry.get("urls", [])) == {
            u for u in (work.url, work.arxiv_id and f"https://arxiv.org/abs/{work.arxiv_id}") if u
        }
        notes = ["author list truncated by the source (et al.)"] if work.authors_truncated else []
        if work.source_url:
            notes.append(f"after the survey; metadata read from {work.source_url}")
        assert entry.get("notes", []) == notes


@pytest.mark.django_db
def test_csl_json_is_valid_against_the_csl_data_schema(client, survey):
    items = json.loads(export(client, "csljson", era="all"))
    assert len(items) == 376
    jsonschema.Draft7Validator(CSL_SCHEMA).validate(items)
    by_id = {item["id"]: item for item in items}
    assert by_id["aji2017sparse"] == {
        "id": "aji2017sparse",
        "type": "article",
        "title": "Sparse Communication for Distributed Gradient Descent",
        "author": [{"family": "Aji", "given": "A. F."}, {"family": "Heafield", "given": "K."}],
        "issued": {"date-parts": [[2017]]},
        "URL": "https://arxiv.org/abs/1704.05021",
        "archive": "arXiv",
        "archive_location": "1704.05021",
        "DOI": "10.18653/v1/d17-1045",
    }
    assert by_id["alistarh2017qsgd"]["page"] == "1709-1720"
    assert by_id["abadi2015tensorflow"]["note"] == "author list truncated by the source (et al.)"


def test_the_schema_refuses_what_csl_does_not_know():
    """The vendored schema is strict: the validation above can fail."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"id": "a", "type": "article", "arxiv": "1"}], CSL_SCHEMA)


@pytest.mark.django_db
def test_csl_json_renders_with_citeproc_in_a_standard_style(client, survey):
    items = json.loads(export(client, "csljson", q="QSGD"))
    source = CiteProcJSON(items)
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    bibliography.register(Citation([CitationItem("alistarh2017qsgd")]))
    rendered = [str(entry) for entry in bibliography.bibliography()]
    assert len(rendered) == 1
    assert rendered[0].startswith("Alistarh, D.")
    for part in (
        "(2017)",
        "QSGD",
        "Advances in Neural Information Processing Systems 30",
        "1709–1720",
    ):
        assert part in rendered[0], rendered[0]


@pytest.mark.django_db
def test_bibtex_round_trips_every_work(client, survey):
    parsed = bibtex.parse_bibtex(export(client, "bibtex", era="all"))
    assert parsed.errors == []
    for record in parsed.records:  # the survey's entries carry no era: that is their era
        record.era = record.era or "survey"
    exported = {record.key: record.comparable() for record in parsed.records}
    stored = {
        work.key: bibtex.record_from_work(work).comparable() for work in Work.objects.for_list()
    }
    assert exported == stored


def typeset_problems(text: str) -> tuple[list[str], int]:
    """What would stop a LaTeX + BibTeX build of `text`: pybtex parses it (syntax, braces, names)
    and formats every entry in a standard style; BibTeX copies field text into the .bbl as it is,
    so any TeX special outside math there stops LaTeX. Returns (problems, entries formatted)."""
    data = pybtex_parse(text, "bibtex")
    problems = []
    for key, entry in data.entries.items():
        for name, value in entry.fields.items():
            if name.lower() not in VERBATIM_FIELDS and specials_outside_math(value):
                problems.append(f"{key}.{name}: {specials_outside_math(value)} in {value!r}")
        for person in (p for persons in entry.persons.values() for p in persons):
            if specials_outside_math(str(person)):
                problems.append(f"{key}: author {person}")
    style, formatted = find_plugin("pybtex.style.formatting", "unsrt")(), 0
    for key in data.entries:
        try:  # BibTeX warns about a missing required field (an unknown school) and goes on
            list(style.format_entries([data.entries[key]]))
            formatted += 1
        except FieldIsMissing:
            pass
    return problems, formatted


@pytest.mark.django_db
def test_the_whole_bibtex_export_compiles(client, survey):
    text = export(client, "bibtex", era="all")
    problems, formatted = typeset_problems(text)
    assert problems == []
    assert formatted >= Work.objects.count() - 5
    # The audit's five: "^" in [178]'s title, "&" in three IPDPS booktitles and in [182].
    assert "convergence rate $O(1/k^2)$" in text
    assert text.count("Parallel \\& Distributed Processing Symposium") == 3
    assert "Hogwild for CPU \\& GPU" in text


def test_it_finds_the_tex_specials_outside_math_and_escapes_them_once():
    assert specials_outside_math("Parallel & Distributed") == ["&"]
    assert specials_outside_math("rate O(1/k^2)") == ["^"]
    assert specials_outside_math("rate $O(1/k^2)$ at 50\\% and \\&") == []
    assert escape_specials("CPU & GPU, O(1/k^2)") == "CPU \\& GPU, O(1/k\\^{}2)"
    assert escape_specials(escape_specials("a_b #1 50%")) == "a\\_b \\#1 50\\%"


@pytest.mark.django_db
def test_a_curators_special_characters_are_escaped_and_the_round_trip_stays_exact(client):
    make_work("noel2014dogwild", title="Dogwild! for CPU & GPU", booktitle="A & B")
    first = export(client, "bibtex")
    assert typeset_problems(first)[0] == []
    assert "CPU \\& GPU" in first
    (record,) = bibtex.parse_bibtex(first).records
    again = bibtex.write_bibtex([record])
    assert again == first


@pytest.mark.django_db
def test_csv_round_trips_every_work(client, survey):
    exported = export(client, "csv", era="all")
    rows = {row["key"]: row for row in csv.DictReader(io.StringIO(exported))}
    works = Work.objects.for_list()
    assert len(rows) == len(works)
    for work in works:
        row = rows[work.key]
        assert row["title"] == bibtex.display_text(work.title)
        assert row["authors"] == "; ".join(bibtex.display_text(n) for n in work.author_names)
        assert (row["year"], row["pages"], row["arxiv_id"], row["doi"], row["url"]) == (
            str(work.year or ""),
            work.pages,
            work.arxiv_id,
            work.doi,
            work.url,
        )
        assert row["authors_truncated"] == str(work.authors_truncated)


def test_the_export_is_in_the_schema_with_its_formats_and_filters(client, db):
    """Issue 44: /api/export/ was listed in /api/ but missing from /api/schema/ and the docs."""
    operation = client.get("/api/schema/?format=json").json()["paths"]["/api/export/"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert parameters["format"]["schema"]["enum"] == ["bibtex", "csv", "ris", "csljson"]
    assert {"level", "category", "year_min", "q", "era", "ordering"} <= set(parameters)
    assert set(operation["responses"]["200"]["content"]) == {
        "application/x-bibtex",
        "text/csv",
        "application/x-research-info-systems",
        "application/vnd.citationstyles.csl+json",
    }
    assert operation["responses"]["400"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
