"""The JSON API: DRF viewsets over the catalogue. Anonymous clients read (throttled); curators
(session or token, with model permissions) write."""

from __future__ import annotations

from django import forms
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, mixins, viewsets
from rest_framework import serializers as drf_serializers
from rest_framework.response import Response

from catalogue.bibtex import display_text
from catalogue.constants import KEY_REGEX
from catalogue.models import (
    Author,
    Category,
    Citation,
    CostModel,
    CuratorDeletion,
    Provenance,
    Technique,
    Work,
)
from catalogue.version import per_version
from explorer.web.errors import ApiError
from explorer.web.forms import PageForm, QueryForm
from explorer.web.middleware import cached_for_anonymous
from explorer.web.pagination import CountInPagePagination
from explorer.web.query import DeclaredQuery
from explorer.works import serializers
from explorer.works.filters import MAX_QUERY_LENGTH, EraForm, WorkFilter, category_tree
from explorer.works.listing import DefaultListing

KEY_PATTERN = f"^{KEY_REGEX}$"
# Query parameters of the works list that do not change which works it counts.
NOT_FILTERS = frozenset({"page", "page_size", "ordering", "format"})
PAGING = frozenset({"page", "page_size", "format"})  # which page, not which works or order


class CuratedWritesMixin:
    """Writes name the fields they set in the record's `curated_fields`, so that load_survey
    keeps the curator's values instead of the fixtures'; deletions are remembered likewise."""

    def perform_create(self, serializer):
        serializer.save(curated_fields=sorted(serializer.validated_data))

    def perform_update(self, serializer):
        record = serializer.instance
        record.mark_curated(
            name
            for name, value in serializer.validated_data.items()
            if _current_value(record, name) != _comparable(value)
        )
        serializer.save(curated_fields=record.curated_fields)

    def perform_destroy(self, instance):
        CuratorDeletion.record(instance)  # so that load_survey does not bring it back
        instance.delete()


def _current_value(record, name: str) -> object:
    if record._meta.get_field(name).many_to_many:
        return sorted(getattr(record, name).values_list("pk", flat=True))
    return getattr(record, name)


def _comparable(value: object) -> object:
    if isinstance(value, list | tuple) and all(hasattr(v, "pk") for v in value):
        return sorted(v.pk for v in value)
    return value


@cached_for_anonymous
@extend_schema_view(
    list=extend_schema(summary="Works, filtered like the /works/ page"),
    retrieve=extend_schema(summary="One work, by BibTeX key, with its citations in and out"),
)
class WorkViewSet(DeclaredQuery, viewsets.ReadOnlyModelViewSet):
    lookup_field = "key"
    lookup_value_regex = KEY_REGEX
    filterset_class = WorkFilter
    query_form = WorkFilter.form_class()
    pagination_class = CountInPagePagination

    def get_queryset(self):
        if self.action != "retrieve":
            # What the permission check asks for (its model); the list reads its own rows.
            return Work.objects.all()
        return Work.objects.for_list().prefetch_related("techniques")

    def filter_queryset(self, queryset):
        # One work by its key, whatever its era: the list filters (and their default) are for lists.
        return queryset if self.action == "retrieve" else super().filter_queryset(queryset)

    def get_serializer_class(self):
        if self.action == "retrieve":
            return serializers.WorkDetailSerializer
        return serializers.WorkListSerializer

    def era_count(self, works=None) -> int:
        """The whole era's count (`works`: the era's, filtered already): the same for every page
        and order, once per catalogue version (a COUNT visits every work: 5 ms at 100,000
        works, most of a list's database time)."""

        def count() -> int:
            return (
                works if works is not None else self.filter_queryset(Work.objects.all())
            ).count()

        return per_version("api-works-count", count)

    def list(self, request, *args, **kwargs):
        """Rows built from plain values: the same JSON as WorkListSerializer, about five times
        faster (measured in bench/browse_bench.py), in the same number of queries."""
        given = set(request.query_params)
        if not given - PAGING:
            # No filter and the default order: the same rows, with SQL compiled once.
            self.paginator.known_count = self.era_count()
            rows = DefaultListing(serializers.WORK_ROW_FIELDS)
            page = self.paginator.paginate_rows(rows, request, self)
        else:
            works = self.filter_queryset(Work.objects.all())
            if not given - NOT_FILTERS:
                self.paginator.known_count = self.era_count(works)
            page = self.paginate_queryset(works.values(*serializers.WORK_ROW_FIELDS))
        return self.get_paginated_response(serializers.work_rows(page, request))


@cached_for_anonymous
class CategoryViewSet(DeclaredQuery, viewsets.GenericViewSet):
    """The taxonomy as a tree; each node's `slug` works as ?level= or ?category= on /api/works/."""

    queryset = Category.objects.all()
    pagination_class = None
    serializer_class = serializers.CategoryNodeSerializer
    query_form = EraForm

    @extend_schema(summary="The category tree with distinct work counts per subtree")
    def list(self, request):
        form = EraForm(request.query_params)
        if not form.is_valid():
            raise ApiError(form.messages())
        return Response(serializers.category_documents(category_tree(form.selected_era())))


@cached_for_anonymous
class AuthorViewSet(DeclaredQuery, viewsets.ReadOnlyModelViewSet):
    query_form = PageForm
    serializer_class = serializers.AuthorSerializer
    queryset = Author.objects.with_work_counts().select_related("person").order_by("name")

    def list(self, request, *args, **kwargs):
        # Paged over the authors alone (their count, the page in name order: names are unique),
        # then the work counts of the page's authors in one query. Counted with every author,
        # the count and the page each ran the person's subquery for all 1,415 spellings (3 of
        # the list's 7 ms in-process). (No docstring: it would be the schema's description.)
        page = self.paginate_queryset(Author.objects.select_related("person").order_by("name"))
        counted = Author.objects.with_work_counts().filter(pk__in=[a.pk for a in page])
        counts = dict(counted.values_list("pk", "work_count"))
        for author in page:
            author.work_count = counts[author.pk]
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class CitationQueryForm(PageForm):
    """The citation list's filters: what the list accepts and what the schema documents."""

    provenance = forms.ChoiceField(
        required=False,
        choices=Provenance.choices,
        error_messages={"invalid_choice": f"must be one of {', '.join(Provenance.values)}"},
    )
    citing = forms.RegexField(
        KEY_PATTERN, required=False, help_text="BibTeX key of the citing work (404 if none)."
    )
    cited = forms.RegexField(
        KEY_PATTERN, required=False, help_text="BibTeX key of the cited work (404 if none)."
    )


@cached_for_anonymous
@extend_schema_view(list=extend_schema(summary="Citation edges with their provenance and evidence"))
class CitationViewSet(DeclaredQuery, CuratedWritesMixin, viewsets.ModelViewSet):
    """Coverage is partial: a missing edge does not mean "does not cite"."""

    query_form = CitationQueryForm

    def get_serializer_class(self):
        if self.action in ("list", "retrieve"):
            return serializers.CitationSerializer
        return serializers.CitationWriteSerializer

    def list(self, request, *args, **kwargs):
        """Rows read as plain values (the two keys joined in), the documents of
        CitationSerializer without a Citation and two Work instances per edge."""
        page = self.paginate_queryset(self.get_queryset().values(*CITATION_ROW_FIELDS))
        return self.get_paginated_response([citation_document(row) for row in page])

    def get_queryset(self):
        citations = Citation.objects.with_works().order_by("pk")
        if self.action != "list":
            return citations
        form = CitationQueryForm(self.request.query_params)
        if not form.is_valid():
            raise ApiError(form.messages())
        if provenance := form.cleaned_data["provenance"]:
            citations = citations.filter(provenance=provenance)
        for side in ("citing", "cited"):
            if key := form.cleaned_data[side]:
                citations = citations.filter(**{side: get_object_or_404(Work, key=key)})
        return citations


CITATION_ROW_FIELDS = (
    "id",
    "citing__key",
    "cited__key",
    "provenance",
    "evidence_source",
    "evidence_excerpt",
)


def citation_document(row: dict) -> dict:
    """An edge as CitationSerializer writes it (its fields, in its order)."""
    return {
        "id": row["id"],
        "citing": row["citing__key"],
        "cited": row["cited__key"],
        "provenance": row["provenance"],
        "evidence_source": row["evidence_source"],
        "evidence_excerpt": row["evidence_excerpt"],
    }


class PerVersionListMixin:
    """A list that depends on nothing but the catalogue (no filter, no pagination, no URL in
    its documents): serialized once per catalogue version (catalogue/version.py)."""

    def list(self, request, *args, **kwargs):
        def documents() -> list:
            return list(self.get_serializer(self.get_queryset(), many=True).data)

        return Response(per_version(f"api-list:{self.basename}", documents))


@cached_for_anonymous
class TechniqueViewSet(DeclaredQuery, PerVersionListMixin, viewsets.ReadOnlyModelViewSet):
    lookup_field = "slug"
    serializer_class = serializers.TechniqueSerializer
    pagination_class = None
    queryset = Technique.objects.select_related("category").prefetch_related(
        Prefetch("works", queryset=Work.objects.only("key")),
        Prefetch(
            "cost_models",
            queryset=CostModel.objects.select_related("technique").prefetch_related(
                Prefetch("works", queryset=Work.objects.only("key"))
            ),
        ),
    )


@cached_for_anonymous
class CostModelViewSet(
    DeclaredQuery,
    PerVersionListMixin,
    CuratedWritesMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.ReadOnlyModelViewSet,
):
    serializer_class = serializers.CostModelSerializer
    pagination_class = None
    queryset = CostModel.objects.select_related("technique").prefetch_related(
        Prefetch("works", queryset=Work.objects.only("key"))
    )


class SuggestSerializer(drf_serializers.Serializer):
    key = drf_serializers.CharField()
    title = drf_serializers.CharField(help_text="As people read it (no BibTeX braces).")
    title_html = drf_serializers.CharField(help_text="The title, matched words in <mark>.")
    authors = drf_serializers.ListField(child=drf_serializers.CharField())
    year = drf_serializers.IntegerField(allow_null=True)
    url = drf_serializers.CharField()


class SuggestForm(QueryForm):
    q = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_QUERY_LENGTH,
        help_text="What has been typed so far.",
        error_messages={"max_length": f"at most {MAX_QUERY_LENGTH} characters"},
    )


class SuggestView(DeclaredQuery, generics.GenericAPIView):
    """The works suggested while a search is typed: the JSON twin of /suggest/."""

    query_form = SuggestForm
    serializer_class = SuggestSerializer
    pagination_class = None
    filter_backends: list = []
    queryset = Work.objects.all()  # for the schema; the works come from Work.objects.suggestions

    @extend_schema(
        summary="Works whose text holds every word of q, the last one possibly unfinished",
        responses=SuggestSerializer(many=True),
    )
    def get(self, request):
        form = SuggestForm(request.query_params)
        if not form.is_valid():
            raise ApiError(form.messages())
        text = form.cleaned_data["q"]
        works = Work.objects.suggestions(text) if text.strip() else []
        rows = [
            {
                "key": work.key,
                "title": display_text(work.title),
                "title_html": work.match.get("title", ""),
                "authors": [display_text(name) for name in work.author_names],
                "year": work.year,
                "url": request.build_absolute_uri(work.get_absolute_url()),
            }
            for work in works
        ]
        return Response(rows)
