"""Exports a reference manager reads whole: each format is exported, read back with its reader
library, and compared field by field; CSL-JSON validates against the CSL data schema and renders
with a CSL processor (citeproc-py) in a standard style."""

import csv
import io
import json
from pathlib import Path

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

from catalogue import bibtex
from catalogue.models import Work

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
    }


@pytest.mark.django_db
def test_ris_round_trips_every_work(client, survey):
    entries = {entry["id"]: entry for entry in rispy.loads(export(client, "ris", era="all"))}
    works = Work.objects.for_list()
    assert len(entries) == len(works) == 313  # the survey's 270 and the 43 after it
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
    assert len(items) == 313
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
    exported = {record.key: record.comparable() for record in parsed.records}
    stored = {
        work.key: bibtex.record_from_work(work).comparable() for work in Work.objects.for_list()
    }
    assert exported == stored


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
