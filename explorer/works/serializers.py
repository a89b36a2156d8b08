"""JSON shapes of the API. Every work carries its BibTeX `key`; every fact its evidence."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.urls import reverse
from rest_framework import serializers

from catalogue.bibtex import display_text, export_works
from catalogue.models import Author, Citation, CostModel, Technique, Work


class AssignmentField(serializers.Serializer):
    code = serializers.CharField(source="category.code")
    name = serializers.CharField(source="category.name")
    section = serializers.CharField(source="category.section")
    extends = serializers.CharField(source="category.extends")
    evidence = serializers.CharField()
    source_note = serializers.CharField()


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
            "categories",
            "api_url",
            "html_url",
        ]

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
]


def work_rows(works: list[dict], request) -> list[dict]:
    """WorkListSerializer's output from `values()` rows, with two queries for the whole page
    (authors, categories) instead of model instances and per-field serializer calls."""
    ids = [work["pk"] for work in works]
    authors = Work.objects.author_names_of(ids)
    categories = Work.objects.assignments_of(ids)
    api_base = request.build_absolute_uri(reverse("works:api-work-list"))
    html_base = request.build_absolute_uri(reverse("works:work-list"))
    return [
        {
            "key": work["key"],
            "title": display_text(work["title"]),
            "title_bibtex": work["title"],
            "year": work["year"],
            "authors": [display_text(name) for name in authors.get(work["pk"], [])],
            "authors_truncated": work["authors_truncated"],
            "entry_type": work["entry_type"],
            "venue": work["venue"],
            "survey_ref": work["survey_ref"],
            "era": work["era"],
            "source_url": work["source_url"],
            "arxiv_id": work["arxiv_id"],
            "doi": work["doi"],
            "url": work["url"],
            "categories": categories.get(work["pk"], []),
            "api_url": f"{api_base}{work['key']}/",
            "html_url": f"{html_base}{work['key']}/",
        }
        for work in works
    ]


class EdgeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Citation
        fields = ["provenance", "evidence_source", "evidence_excerpt"]


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
            "techniques",
            "cites",
            "cites_count",
            "cites_url",
            "cited_by",
            "cited_by_count",
            "cited_by_url",
            "bibtex",
        ]

    def get_bibtex(self, work: Work) -> str:
        return export_works([work])

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
    extends = serializers.CharField()
    description = serializers.CharField()
    work_count = serializers.IntegerField()
    children = serializers.SerializerMethodField()

    def get_children(self, node) -> list[dict]:
        return CategoryNodeSerializer(node.child_nodes, many=True).data


class AuthorSerializer(serializers.ModelSerializer):
    name = serializers.SerializerMethodField()
    name_bibtex = serializers.CharField(source="name")
    work_count = serializers.IntegerField()
    html_url = serializers.SerializerMethodField()

    class Meta:
        model = Author
        fields = ["id", "name", "name_bibtex", "work_count", "html_url"]

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


class CitationWriteSerializer(serializers.ModelSerializer):
    citing = serializers.SlugRelatedField(slug_field="key", queryset=Work.objects.all())
    cited = serializers.SlugRelatedField(slug_field="key", queryset=Work.objects.all())

    class Meta:
        model = Citation
        fields = ["id", "citing", "cited", "provenance", "evidence_source", "evidence_excerpt"]

    def validate(self, attrs):
        try:
            Citation(**attrs).clean()
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.messages) from error
        return attrs


class CostModelSerializer(serializers.ModelSerializer):
    technique = serializers.SlugRelatedField(slug_field="slug", queryset=Technique.objects.all())
    works = serializers.SlugRelatedField(
        slug_field="key", many=True, queryset=Work.objects.all(), required=False
    )
    status_label = serializers.CharField(source="get_status_display", read_only=True)

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
