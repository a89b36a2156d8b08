"""Exports of the current works filter: BibTeX, CSV, RIS (rispy) and CSL-JSON.

`?format=` names the export's format here, not DRF's renderer (FormatIsTheViews): the view is
an APIView so that the OpenAPI schema lists it with its parameters (explorer/web/query.py).
"""

from __future__ import annotations

import csv
import io
import json
import re

import rispy
from django import forms
from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from catalogue.bibtex import display_text, export_works, person_name
from catalogue.models import Work
from explorer.web.errors import ApiError
from explorer.web.forms import QueryForm, echoed
from explorer.web.middleware import cached_for_anonymous
from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
from explorer.works.filters import WorkFilter

CSV_COLUMNS = [
    "key",
    "survey_ref",
    "entry_type",
    "title",
    "authors",
    "authors_truncated",
    "year",
    "venue",
    "volume",
    "number",
    "pages",
    "publisher",
    "arxiv_id",
    "doi",
    "url",
    "categories",
    "era",
    "source_url",
]
RIS_TYPES = {"article": "JOUR", "inproceedings": "CONF", "book": "BOOK", "incollection": "CHAP"}
CSL_TYPES = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "book": "book",
    "incollection": "chapter",
    "phdthesis": "thesis",
    "techreport": "report",
}
# The media type of each format's file.
EXPORT_TYPES = {
    "bibtex": "application/x-bibtex",
    "csv": "text/csv",
    "ris": "application/x-research-info-systems",
    "csljson": "application/vnd.citationstyles.csl+json",
}
# CSL-JSON is JSON: its items as the schema declares them (each with these keys at least).
CSL_ITEMS = inline_serializer(
    "CslItem",
    {
        "id": serializers.CharField(),
        "type": serializers.CharField(),
        "title": serializers.CharField(allow_blank=True),
        "author": serializers.ListField(child=serializers.DictField()),
    },
    many=True,
)
# An export builds its whole file in memory: about 0.2 ms of CPU per work (a 100,000-work CSV
# took 20 s). 5,000 works (the survey 18 times over) keep one request near a second.


class FormatIsTheViews(DefaultContentNegotiation):
    """JSON for DRF's own answers (the errors); `?format=` names the export's format."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def _export_form() -> type[QueryForm]:
    """The export's parameters, for the API's check of names and the OpenAPI schema: the works
    filters (checked by WorkFilter in the view) and the format."""
    fields: dict[str, forms.Field] = {
        name: filter_.field for name, filter_ in WorkFilter.base_filters.items()
    }
    fields["format"] = forms.ChoiceField(
        choices=[(name, name) for name in EXPORT_TYPES], help_text="The file's format."
    )
    # A QueryForm, not the list's PageForm: an export has no page (?page= is refused).
    return type("ExportForm", (QueryForm,), fields)


@cached_for_anonymous
class ExportView(DeclaredQuery, APIView):
    query_form = _export_form()
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = FormatIsTheViews
    http_method_names = ["get", "head", "options"]

    @extend_schema(
        summary="The works of the current filter as BibTeX, CSV, RIS or CSL-JSON",
        description=(
            "The works filters of /api/works/; at most MAX_EXPORT works (a 400 says how many "
            "the filter matches beyond that)."
        ),
        responses={(200, media): OpenApiTypes.STR for media in EXPORT_TYPES.values()}
        | {(200, EXPORT_TYPES["csljson"]): CSL_ITEMS},
    )
    def get(self, request):
        return export(request)


def export(request) -> HttpResponse:
    export_format = request.GET.get("format", "")
    writer = WRITERS.get(export_format)
    if writer is None:
        message = f"must be one of {', '.join(WRITERS)} (got {echoed(export_format)})"
        raise ApiError({"format": [message]})
    # Only the CSV lists categories; the others need the author names alone, read as plain rows
    # (an authorship and an author instance per name cost a third of a BibTeX export).
    works = Work.objects.for_list() if export_format == "csv" else Work.objects.for_rows()
    works_filter = WorkFilter(request.GET, queryset=works)
    if not works_filter.is_valid():
        raise ApiError(works_filter.form.messages())
    if (total := works_filter.qs.count()) > settings.MAX_EXPORT:
        raise ApiError(too_many_message(total))
    works = list(works_filter.qs)
    body, content_type, extension = writer(works)
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="survey-works.{extension}"'
    return response


def too_many_message(total: int) -> str:
    return (
        f"the filter matches {total:,} works; an export holds at most {settings.MAX_EXPORT:,}. "
        "Narrow it (level, category, year_min, year_max, evidence, q); a curator can export "
        "everything with `manage.py export_bibtex`."
    )


def to_bibtex(works: list[Work]) -> tuple[str, str, str]:
    return export_works(works), "application/x-bibtex; charset=utf-8", "bib"


def to_csv(works: list[Work]) -> tuple[str, str, str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for work in works:
        row = {name: getattr(work, name, "") for name in CSV_COLUMNS}
        row["title"] = display_text(work.title)
        row["authors"] = "; ".join(display_text(name) for name in work.author_names)
        row["categories"] = "; ".join(
            f"{a.category.code} ({a.evidence})" for a in work.assignments.all()
        )
        writer.writerow([_csv_safe(row[name]) for name in CSV_COLUMNS])
    return buffer.getvalue(), "text/csv; charset=utf-8", "csv"


def _csv_safe(value: object) -> object:
    # Spreadsheets run cells that start with = + - @ as formulas; quote them out.
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return "" if value is None else value


TRUNCATED_NOTE = "author list truncated by the source (et al.)"


def page_range(pages: str) -> tuple[str, str]:
    """'1709--1720' -> ('1709', '1720'), 'III-1337--III-1345' -> ('III-1337', 'III-1345'),
    '12-15' -> ('12', '15'); a single page or an odd text stays the start page."""
    pages = pages.strip()
    if "--" in pages:
        start, _, end = pages.partition("--")
        return start.strip(), end.strip().lstrip("-")
    if found := re.fullmatch(r"(\d+)\s*-\s*(\d+)", pages):
        return found[1], found[2]
    return pages, ""


def arxiv_url(work: Work) -> str:
    return f"https://arxiv.org/abs/{work.arxiv_id}" if work.arxiv_id else ""


def to_ris(works: list[Work]) -> tuple[str, str, str]:
    """RIS with the tags reference managers read (Zotero's RIS translator: AU "Last, First",
    SP and EP, DO, UR, DB + AN for the arXiv id as archive and its location)."""
    entries = []
    for work in works:
        start_page, end_page = page_range(work.pages)
        entry = {
            "type_of_reference": RIS_TYPES.get(work.entry_type, "GEN"),
            "id": work.key,
            "title": display_text(work.title),
            "authors": [person_name(name).family_first for name in work.author_names],
        }
        optional = {
            "year": str(work.year) if work.year else "",
            "secondary_title": display_text(work.venue),
            "volume": work.volume,
            "number": work.number,
            "start_page": start_page,
            "end_page": end_page,
            "publisher": display_text(work.publisher),
            "doi": work.doi,
            "urls": [url for url in (work.url, arxiv_url(work)) if url],
            "name_of_database": "arXiv" if work.arxiv_id else "",
            "accession_number": work.arxiv_id,
            "notes": _notes(work),
        }
        entry.update({name: value for name, value in optional.items() if value})
        entries.append(entry)
    return rispy.dumps(entries), "application/x-research-info-systems; charset=utf-8", "ris"


def _notes(work: Work) -> list[str]:
    notes = [TRUNCATED_NOTE] if work.authors_truncated else []
    if work.is_after_survey:
        notes.append(f"after the survey; metadata read from {work.source_url}")
    return notes


def csl_name(name: str) -> dict[str, str]:
    parts = person_name(name)
    if not (parts.family and parts.given):  # an organisation, or a name in one part
        return {"literal": display_text(name)}
    fields = {
        "family": parts.family,
        "given": parts.given,
        "non-dropping-particle": parts.particle,
        "suffix": parts.suffix,
    }
    return {key: value for key, value in fields.items() if value}


def to_csljson(works: list[Work]) -> tuple[str, str, str]:
    """CSL-JSON items valid against the CSL data schema (csl-data.json, v1.0)."""
    items = []
    for work in works:
        item = {
            "id": work.key,
            "type": CSL_TYPES.get(work.entry_type, "article"),
            "title": display_text(work.title),
            "author": [csl_name(name) for name in work.author_names],
        }
        optional = {
            "issued": {"date-parts": [[work.year]]} if work.year else None,
            "container-title": display_text(work.venue),
            "volume": work.volume,
            "issue": work.number,
            "page": "-".join(part for part in page_range(work.pages) if part),
            "publisher": display_text(work.publisher),
            "DOI": work.doi,
            "URL": work.url or arxiv_url(work),
            "archive": "arXiv" if work.arxiv_id else "",
            "archive_location": work.arxiv_id,
            "note": "; ".join(_notes(work)),
        }
        item.update({name: value for name, value in optional.items() if value})
        items.append(item)
    return (
        json.dumps(items, ensure_ascii=False, indent=2),
        "application/vnd.citationstyles.csl+json",
        "json",
    )


WRITERS = {"bibtex": to_bibtex, "csv": to_csv, "ris": to_ris, "csljson": to_csljson}
