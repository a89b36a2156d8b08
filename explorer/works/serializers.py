"""JSON shapes of the API. Every work carries its BibTeX `key`; every fact its evidence."""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError as DjangoValidationError
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalogue.bibtex import display_text, export_works
from catalogue.models import Author, Citation, CostModel, Technique, Work
from catalogue.source_kinds import KINDS, source_kind
from explorer.web.links import link_maker
from explorer.works.find_links import search_links


class AssignmentField(serializers.Serializer):
    code = serializers.CharField(source="category.code")
    name = serializers.CharField(source="category.name")
    section = serializers.CharField(source="category.section")
    extends = serializers.CharField(source="category.extends")
    evidence = serializers.CharField()
    source_note = serializers.CharField()
    alternatives = serializers.CharField(
        help_text='Set when the source gives several possible sections ("1 or 8"): the '
        "categories with the same text are one placement with alternatives."
    )


class WorkListSerializer(serializers.ModelSerializer):
    title = serializers.SerializerMethodField()
    title_bibtex = serializers.CharField(source="title")
    authors = serializers.SerializerMethodField()
    categories = AssignmentField(source="assignments", many=True)
    api_url = serializers.HyperlinkedIdentityField(
        view_name="works:api-work-detail", lookup_field="key"
    )
    html_url = serializers.SerializerMethodField()

    class Meta:
        model = Work
        fields = [
            "key",
            "title",
            "title_bibtex",
            "year",
            "authors",
            "authors_truncated",
            "entry_type",
            "venue",
            "survey_ref",
            "era",
            "source_url",
            "arxiv_id",
            "doi",
            "url",
            "openalex_id",
            "categories",
            "api_url",
            "html_url",
        ]

    # The fields above document the shape for the OpenAPI schema; the document itself is built
    # by `work_row`, like the list's rows.
    def to_representation(self, work: Work) -> dict:
        row = {name: getattr(work, name) for name in WORK_ROW_FIELDS}
        categories = AssignmentField(work.assignments.all(), many=True).data
        links = WorkLinks(self.context["request"])
        return work_row(row, work.author_names, list(categories), links)

    def get_title(self, work: Work) -> str:
        return display_text(work.title)

    def get_authors(self, work: Work) -> list[str]:
        return [display_text(name) for name in work.author_names]

    def get_html_url(self, work: Work) -> str:
        return self.context["request"].build_absolute_uri(work.get_absolute_url())


WORK_ROW_FIELDS = [
    "pk",
    "key",
    "title",
    "year",
    "authors_truncated",
    "entry_type",
    "venue",
    "survey_ref",
    "era",
    "source_url",
    "arxiv_id",
    "doi",
    "url",
    "openalex_id",
]


def work_rows(works: list[dict], request) -> list[dict]:
    """The works list's JSON from `values()` rows, with two queries for the whole page
    (authors, categories) instead of model instances and per-field serializer calls."""
    ids = [work["pk"] for work in works]
    authors = Work.objects.author_names_of(ids)
    categories = Work.objects.assignments_of(ids)
    links = WorkLinks(request)
    return [
        work_row(work, authors.get(work["pk"], []), categories.get(work["pk"], []), links)
        for work in works
    ]


class WorkLinks:
    """A work's API and page URLs, each reversed once per request (a page lists hundreds)."""

    def __init__(self, request) -> None:
        self.api = link_maker(request, "works:api-work-detail")
        self.html = link_maker(request, "works:work-detail")


def work_row(work: Mapping, authors: list[str], categories: list[dict], links: WorkLinks) -> dict:
    """One work as the works list shows it in JSON (the list, and the start of a work's detail):
    the one definition of that document."""
    return {
        "key": work["key"],
        "title": display_text(work["title"]),
        "title_bibtex": work["title"],
        "year": work["year"],
        "authors": [display_text(name) for name in authors],
        "authors_truncated": work["authors_truncated"],
        "entry_type": work["entry_type"],
        "venue": work["venue"],
        "survey_ref": work["survey_ref"],
        "era": work["era"],
        "source_url": work["source_url"],
        "arxiv_id": work["arxiv_id"],
        "doi": work["doi"],
        "url": work["url"],
        "openalex_id": work["openalex_id"],
        "categories": categories,
        "api_url": links.api(work["key"]),
        "html_url": links.html(work["key"]),
    }


class EdgeListSerializer(serializers.ListSerializer):
    """A work's edges (catalogue EdgeShown rows) as plain dicts: the same documents as the child
    serializer's, without building its fields and calling each one per edge (a work lists up to
    CITATIONS_SHOWN edges each way). The child stays the schema's source."""

    def to_representation(self, edges) -> list[dict]:
        names = self.child.Meta.fields
        return [{name: getattr(edge, name) for name in names} for edge in edges]


class EdgeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Citation
        fields = ["provenance", "evidence_source", "evidence_excerpt"]
        list_serializer_class = EdgeListSerializer


class CitesSerializer(EdgeSerializer):
    key = serializers.CharField(source="cited.key")

    class Meta(EdgeSerializer.Meta):
        fields = ["key", *EdgeSerializer.Meta.fields]


class CitedBySerializer(EdgeSerializer):
    key = serializers.CharField(source="citing.key")

    class Meta(EdgeSerializer.Meta):
        fields = ["key", *EdgeSerializer.Meta.fields]


class WorkDetailSerializer(WorkListSerializer):
    """`cites` and `cited_by` hold at most CITATIONS_SHOWN edges each; the counts say how many
    there are, and the `_url`s list them all, paginated."""

    cites = CitesSerializer(source="cites_shown", many=True)
    cited_by = CitedBySerializer(source="cited_by_shown", many=True)
    cites_count = serializers.SerializerMethodField()
    cited_by_count = serializers.SerializerMethodField()
    cites_url = serializers.SerializerMethodField()
    cited_by_url = serializers.SerializerMethodField()
    techniques = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)
    bibtex = serializers.SerializerMethodField()
    field_source_kinds = serializers.SerializerMethodField(
        help_text="For each entry of field_sources, the kind of evidence its page is: first-hand, "
        "index or secondary (an unclassified host is secondary)."
    )
    search_links = serializers.SerializerMethodField(
        help_text="Searches for this work (dblp, Semantic Scholar, Google Scholar) built from its "
        "title and first author: searches, not identifiers."
    )

    def to_representation(self, work: Work) -> dict:
        """The list's document (work_row), then the detail's own fields, in the schema's order."""
        document = serializers.ModelSerializer.to_representation(self, work)
        return document | super().to_representation(work)

    class Meta(WorkListSerializer.Meta):
        fields = [
            *WorkListSerializer.Meta.fields,
            "journal",
            "booktitle",
            "volume",
            "number",
            "pages",
            "publisher",
            "note",
            "abstract",
            "field_sources",
            "field_source_kinds",
            "techniques",
            "cites",
            "cites_count",
            "cites_url",
            "cited_by",
            "cited_by_count",
            "cited_by_url",
            "bibtex",
            "search_links",
        ]

    @extend_schema_field(
        {
            "type": "object",
            "additionalProperties": {"type": "string", "enum": list(KINDS)},
        }
    )
    def get_field_source_kinds(self, work: Work) -> dict[str, str]:
        return {name: source_kind(url) for name, url in (work.field_sources or {}).items()}

    def get_bibtex(self, work: Work) -> str:
        return export_works([work])

    @extend_schema_field(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"site": {"type": "string"}, "url": {"type": "string"}},
                "required": ["site", "url"],
            },
        }
    )
    def get_search_links(self, work: Work) -> list[dict[str, str]]:
        return search_links(work.title, work.author_names)

    def get_cites_count(self, work: Work) -> int:
        return work.citation_totals[0]

    def get_cited_by_count(self, work: Work) -> int:
        return work.citation_totals[1]

    def get_cites_url(self, work: Work) -> str:
        return self._citations_url("citing", work)

    def get_cited_by_url(self, work: Work) -> str:
        return self._citations_url("cited", work)

    def _citations_url(self, side: str, work: Work) -> str:
        url = self.context["request"].build_absolute_uri(reverse("works:api-citation-list"))
        return f"{url}?{side}={work.key}"


class CategoryNodeSerializer(serializers.Serializer):
    slug = serializers.CharField(source="code")
    name = serializers.CharField()
    section = serializers.CharField()
    status = serializers.CharField()
    status_label = serializers.CharField(source="get_status_display")
    extends = serializers.CharField()
    description = serializers.CharField()
    work_count = serializers.IntegerField()
    alternative_count = serializers.IntegerField(
        help_text="Of work_count, the works placed here only as one of several possible "
        "sections (they may count under another node too)."
    )
    children = serializers.SerializerMethodField()

    # The fields above document the shape for the OpenAPI schema; the documents are built by
    # `category_documents` (a nested serializer per node cost more than the rest of the request).
    def to_representation(self, node) -> dict:
        return category_documents([node])[0]

    def get_children(self, node) -> list[dict]:
        return category_documents(node.child_nodes)


def category_documents(nodes) -> list[dict]:
    """The category tree's JSON (/api/categories/): the one definition of a node's document."""
    return [
        {
            "slug": node.code,
            "name": node.name,
            "section": node.section,
            "status": node.status,
            "status_label": node.get_status_display(),
            "extends": node.extends,
            "description": node.description,
            "work_count": node.work_count,
            "alternative_count": node.alternative_count,
            "children": category_documents(node.child_nodes),
        }
        for node in nodes
    ]


class AuthorSerializer(serializers.ModelSerializer):
    name = serializers.SerializerMethodField()
    name_bibtex = serializers.CharField(source="name")
    person = serializers.CharField(
        source="person.name",
        allow_null=True,
        default=None,
        help_text="The person this spelling belongs to (the identity table), or null.",
    )
    work_count = serializers.IntegerField(
        help_text="Works of the person (all its spellings), or of this spelling alone."
    )
    html_url = serializers.SerializerMethodField()

    class Meta:
        model = Author
        fields = ["id", "name", "name_bibtex", "person", "work_count", "html_url"]

    def get_name(self, author: Author) -> str:
        return display_text(author.name)

    def get_html_url(self, author: Author) -> str:
        return self.context["request"].build_absolute_uri(author.get_absolute_url())


class CitationSerializer(serializers.ModelSerializer):
    citing = serializers.CharField(source="citing.key")
    cited = serializers.CharField(source="cited.key")

    class Meta:
        model = Citation
        fields = ["id", "citing", "cited", "provenance", "evidence_source", "evidence_excerpt"]


class RefuseUnknownKeysMixin:
    """A body key the serializer does not know is a 400 naming it, not silently dropped
    (a misspelt field would otherwise look like a successful write). Read-only fields are
    known: a document read from the API can be sent back."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            # A form post from the browsable API carries its CSRF token beside the fields.
            unknown = sorted(set(data) - set(self.fields) - {"csrfmiddlewaretoken"})
            if unknown:
                allowed = ", ".join(name for name, f in self.fields.items() if not f.read_only)
                raise serializers.ValidationError(
                    {name: [f"unknown field (allowed: {allowed})"] for name in unknown}
                )
        return super().to_internal_value(data)


class FixedNaturalKeyMixin:
    """The fields load_survey matches a record on cannot change once it exists: a renamed fixture
    record would come back beside the curator's on the next load. Create a new one instead."""

    natural_key_fields: tuple[str, ...] = ()

    def validate(self, attrs):
        if self.instance is not None:
            changed = [
                name
                for name in self.natural_key_fields
                if name in attrs and attrs[name] != getattr(self.instance, name)
            ]
            if changed:
                raise serializers.ValidationError(
                    {
                        name: ["cannot change once the record exists (create a new one instead)"]
                        for name in changed
                    }
                )
        return super().validate(attrs)


class CitationWriteSerializer(
    FixedNaturalKeyMixin, RefuseUnknownKeysMixin, serializers.ModelSerializer
):
    citing = serializers.SlugRelatedField(slug_field="key", queryset=Work.objects.all())
    cited = serializers.SlugRelatedField(slug_field="key", queryset=Work.objects.all())

    natural_key_fields = ("citing", "cited", "provenance")

    class Meta:
        model = Citation
        fields = ["id", "citing", "cited", "provenance", "evidence_source", "evidence_excerpt"]

    def validate(self, attrs):
        attrs = super().validate(attrs)
        try:
            Citation(**attrs).clean()
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.messages) from error
        return attrs


class CostModelSerializer(
    FixedNaturalKeyMixin, RefuseUnknownKeysMixin, serializers.ModelSerializer
):
    technique = serializers.SlugRelatedField(slug_field="slug", queryset=Technique.objects.all())
    works = serializers.SlugRelatedField(
        slug_field="key", many=True, queryset=Work.objects.all(), required=False
    )
    status_label = serializers.CharField(source="get_status_display", read_only=True)
    natural_key_fields = ("technique", "label")

    class Meta:
        model = CostModel
        fields = [
            "id",
            "technique",
            "quantity",
            "eval",
            "label",
            "formula",
            "variables",
            "unit",
            "asymptotic",
            "section",
            "status",
            "status_label",
            "status_note",
            "works",
        ]

    def validate(self, attrs):
        """The formula must parse against the declared variables (model.clean)."""
        attrs = super().validate(attrs)
        current = {"formula": "", "variables": []}
        if self.instance is not None:
            current = {name: getattr(self.instance, name) for name in current}
        candidate = CostModel(
            formula=attrs.get("formula", current["formula"]),
            variables=attrs.get("variables", current["variables"]),
        )
        try:
            candidate.clean()
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.message_dict) from error
        return attrs


class TechniqueSerializer(serializers.ModelSerializer):
    category = serializers.CharField(source="category.code")
    works = serializers.SlugRelatedField(slug_field="key", many=True, read_only=True)
    cost_models = CostModelSerializer(many=True, read_only=True)
    demo = serializers.CharField(source="demo_slug")

    class Meta:
        model = Technique
        fields = ["slug", "name", "category", "summary", "works", "demo", "cost_models"]
