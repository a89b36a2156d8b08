"""A work's bibliographic metadata embedded in its pages, for reference managers and indexes:
Highwire Press `citation_*` meta tags (read by Zotero's connector and Google Scholar), a
schema.org `ScholarlyArticle` in JSON-LD, and a COinS span (OpenURL ContextObject) for lists.

Pure functions over plain values (no ORM, no request): the view passes the work's fields, its
author names and the absolute URL of its page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlencode

from catalogue.latex import display_text

DOI_RESOLVER = "https://doi.org/"
ARXIV_ABS = "https://arxiv.org/abs/"
OPENALEX = "https://openalex.org/"
# BibTeX entry types that are parts of a conference's proceedings.
CONFERENCE_TYPES = {"inproceedings", "conference", "proceedings"}


@dataclass(frozen=True)
class WorkFields:
    """What the metadata is made of: a work's fields as stored (BibTeX markup allowed)."""

    title: str
    authors: list[str]
    year: int | None
    entry_type: str = "misc"
    journal: str = ""
    booktitle: str = ""
    venue: str = ""
    volume: str = ""
    number: str = ""
    pages: str = ""
    publisher: str = ""
    doi: str = ""
    arxiv_id: str = ""
    openalex_id: str = ""
    url: str = ""
    abstract: str = ""

    @classmethod
    def of(cls, work, authors: list[str]) -> WorkFields:
        """From a Work (or any object with its attributes) and its author names in order."""
        names = [f.name for f in cls.__dataclass_fields__.values() if f.name != "authors"]
        return cls(authors=authors, **{name: getattr(work, name) for name in names})


def identifier_links(fields: WorkFields) -> list[dict[str, str]]:
    """[{"kind", "label", "value", "url", "source_field"}]: the work's identifiers as links (DOI,
    arXiv, OpenAlex, landing page), in that order; `source_field` names the entry of the work's
    field_sources that says where the identifier was read."""
    candidates = [
        ("doi", "DOI", fields.doi, DOI_RESOLVER + fields.doi, "doi"),
        ("arxiv", "arXiv", fields.arxiv_id, ARXIV_ABS + fields.arxiv_id, "arxiv"),
        (
            "openalex",
            "OpenAlex",
            fields.openalex_id,
            OPENALEX + fields.openalex_id,
            "openalex",
        ),
        ("url", "URL", fields.url, fields.url, "landing_url"),
    ]
    return [
        {"kind": kind, "label": label, "value": value, "url": url, "source_field": source}
        for kind, label, value, url, source in candidates
        if value
    ]


def doi_url(fields: WorkFields) -> str:
    return DOI_RESOLVER + fields.doi if fields.doi else ""


def page_range(pages: str) -> tuple[str, str]:
    """("873", "881") from "873--881"; ("65:1", "65:43") from "65:1--65:43"; ("12", "") alone."""
    text = display_text(pages).replace("–", "-")
    first, _, last = text.partition("-")
    return first.strip(), last.strip("- ").strip()


def container(fields: WorkFields) -> tuple[str, str]:
    """("journal" | "conference" | "", the title of what the work appeared in)."""
    if fields.journal:
        return "journal", display_text(fields.journal)
    if fields.booktitle or (fields.entry_type in CONFERENCE_TYPES and fields.venue):
        return "conference", display_text(fields.booktitle or fields.venue)
    return "", display_text(fields.venue)


def citation_meta(fields: WorkFields, page_url: str) -> list[tuple[str, str]]:
    """The Highwire Press tags, as (name, content) pairs in the order a page prints them; one
    `citation_author` per author, in order. Only what the record holds: nothing is guessed."""
    tags = [("citation_title", display_text(fields.title))]
    tags += [("citation_author", display_text(name)) for name in fields.authors]
    if fields.year:
        tags.append(("citation_publication_date", str(fields.year)))
    kind, title = container(fields)
    if kind == "journal":
        tags.append(("citation_journal_title", title))
    elif kind == "conference":
        tags.append(("citation_conference_title", title))
    for name, value in (("citation_volume", fields.volume), ("citation_issue", fields.number)):
        if value:
            tags.append((name, display_text(value)))
    if fields.pages:
        first, last = page_range(fields.pages)
        tags.append(("citation_firstpage", first))
        if last:
            tags.append(("citation_lastpage", last))
    if fields.publisher:
        tags.append(("citation_publisher", display_text(fields.publisher)))
    if fields.doi:
        tags.append(("citation_doi", fields.doi))
    if fields.arxiv_id:
        tags.append(("citation_arxiv_id", fields.arxiv_id))
    tags.append(("citation_abstract_html_url", page_url))
    return tags


def scholarly_article(fields: WorkFields, page_url: str) -> dict:
    """The work as a schema.org ScholarlyArticle (JSON-LD)."""
    document: dict = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "@id": page_url,
        "url": page_url,
        "headline": display_text(fields.title)[:110],
        "name": display_text(fields.title),
        "author": [{"@type": "Person", "name": display_text(name)} for name in fields.authors],
    }
    if fields.year:
        document["datePublished"] = str(fields.year)
    kind, title = container(fields)
    if title:
        part = {"journal": "Periodical", "conference": "Book"}.get(kind, "CreativeWork")
        document["isPartOf"] = {"@type": part, "name": title}
    if fields.volume:
        document["volumeNumber"] = display_text(fields.volume)
    if fields.number:
        document["issueNumber"] = display_text(fields.number)
    if fields.pages:
        first, last = page_range(fields.pages)
        document["pageStart"] = first
        if last:
            document["pageEnd"] = last
    if fields.publisher:
        document["publisher"] = {"@type": "Organization", "name": display_text(fields.publisher)}
    identifiers = [
        {"@type": "PropertyValue", "propertyID": link["label"], "value": link["value"]}
        for link in identifier_links(fields)
        if link["kind"] != "url"
    ]
    if identifiers:
        document["identifier"] = identifiers
    same_as = [link["url"] for link in identifier_links(fields)]
    if same_as:
        document["sameAs"] = same_as
    return document


def json_ld(document: dict) -> str:
    """The JSON for a <script type="application/ld+json"> element: '<', '>' and '&' escaped so
    that no text in it can close the element."""
    text = json.dumps(document, ensure_ascii=False, sort_keys=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def coins(fields: WorkFields, page_url: str = "") -> str:
    """The title attribute of a COinS span (Z39.88-2004 ContextObject in a URL query)."""
    kind, title = container(fields)
    genre = {"journal": "article", "conference": "proceeding"}.get(kind, "document")
    pairs = [
        ("ctx_ver", "Z39.88-2004"),
        (
            "rft_val_fmt",
            "info:ofi/fmt:kev:mtx:journal" if kind == "journal" else "info:ofi/fmt:kev:mtx:book",
        ),
        ("rft.genre", genre),
        ("rft.atitle" if kind else "rft.title", display_text(fields.title)),
    ]
    if title and kind == "journal":
        pairs.append(("rft.jtitle", title))
    elif title:
        pairs.append(("rft.btitle", title))
    pairs += [("rft.au", display_text(name)) for name in fields.authors]
    if fields.year:
        pairs.append(("rft.date", str(fields.year)))
    for name, value in (("rft.volume", fields.volume), ("rft.issue", fields.number)):
        if value:
            pairs.append((name, display_text(value)))
    if fields.pages:
        pairs.append(("rft.pages", display_text(fields.pages).replace("--", "-")))
    if fields.doi:
        pairs.append(("rft_id", "info:doi/" + fields.doi))
    if fields.arxiv_id:
        pairs.append(("rft_id", ARXIV_ABS + fields.arxiv_id))
    if page_url:
        pairs.append(("rft_id", page_url))
    return urlencode(pairs)
