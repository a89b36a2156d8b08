"""The works filters, shared by the /works/ page, the API list and the exports.

One FilterSet so that a page URL and its JSON twin take exactly the same query parameters.
"""

from __future__ import annotations

import re

import django_filters
from django import forms
from django.db.models import Case, Exists, IntegerField, OuterRef, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from catalogue.models import (
    Assignment,
    Author,
    Authorship,
    Category,
    Era,
    Evidence,
    Work,
    has_cost_model,
    has_demo,
)

MAX_QUERY_TERMS = 8
MAX_QUERY_LENGTH = 200
# Ranking weights: where a term appears says how relevant the work is.
SEARCH_WEIGHTS = {"title": 5, "authors": 3, "venue": 2, "abstract": 1, "note": 1}
ORDERINGS = {
    "ref": ("survey_ref", "key"),
    "-ref": ("-survey_ref", "key"),
    "year": ("year", "survey_ref", "key"),
    "-year": ("-year", "survey_ref", "key"),
    "title": ("title", "key"),
    "-title": ("-title", "key"),
    "key": ("key",),
    "-key": ("-key",),
    "relevance": ("-relevance", "survey_ref", "key"),
}
KNOWN_PARAMETERS = {"page", "page_size", "format"}
# Without ?era=, lists show the survey's own works: its figures (270 works, 269 references) stay
# what they were, and a later work is never mixed in unasked (README, "Eras").
DEFAULT_ERA = Era.SURVEY.value
ERA_CHOICES = [*Era.choices, ("all", "both")]


def era_parameter(params) -> str:
    """The `era` query parameter of a page or endpoint outside the works filter; ValueError (a
    400 for the caller) when it is not one of survey, after, all."""
    era = params.get("era", DEFAULT_ERA)
    if era not in {value for value, _ in ERA_CHOICES}:
        raise ValueError(f"era must be one of survey, after, all (got {era!r})")
    return era


def category_tree(era: str) -> list:
    """The taxonomy with distinct work counts of one era. The categories added after the survey
    are left out of the survey's own tree (they are ours, and hold none of its works)."""
    categories = Category.objects.all()
    if era == Era.SURVEY:
        categories = categories.filter(extends="")
    return categories.tree_with_counts(Work.objects.in_era(era))


def search_terms(text: str) -> list[str]:
    """Split a query into at most MAX_QUERY_TERMS words (letters, digits, - and .)."""
    return re.findall(r"[\w.+-]+", text.lower())[:MAX_QUERY_TERMS]


def search(queryset: QuerySet, text: str) -> QuerySet:
    """Works matching every term somewhere, annotated with a `relevance` score.

    Plain `icontains` lookups so that it behaves the same on SQLite and PostgreSQL.
    """
    relevance = Value(0)
    for term in search_terms(text):
        # Authors matching the term first, then their works: a correlated EXISTS would run the
        # LIKE once per candidate work (slow on a large catalogue, measured in bench/).
        by_author = Q(
            pk__in=Authorship.objects.filter(
                author__in=Author.objects.filter(name__icontains=term)
            ).values("work_id")
        )
        fields = {
            "title": Q(title__icontains=term),
            "authors": by_author,
            "venue": Q(venue__icontains=term),
            "abstract": Q(abstract__icontains=term),
            "note": Q(note__icontains=term),
        }
        matches_any = Q()
        for condition in fields.values():
            matches_any |= condition
        queryset = queryset.filter(matches_any)
        for name, condition in fields.items():
            relevance = relevance + Case(
                When(condition, then=Value(SEARCH_WEIGHTS[name])),
                default=Value(0),
                output_field=IntegerField(),
            )
    return queryset.annotate(relevance=Coalesce(relevance, Value(0)))


def user_error(message: str, value: str, **params: str) -> forms.ValidationError:
    """An error quoting what the user sent, as a parameter: django-filter formats every message
    with `message % params`, and a % in a value pasted into the message would raise (a 500)."""
    return forms.ValidationError(message, params={"value": repr(value), **params})


class CodeChoiceField(forms.ModelChoiceField):
    def to_python(self, value):
        try:
            return super().to_python(value)
        except forms.ValidationError as error:
            known = ", ".join(self.queryset.values_list("code", flat=True))
            message = "unknown code %(value)s (known: %(known)s)"
            raise user_error(message, value, known=known) from error


@extend_schema_field(OpenApiTypes.STR)
class CodeChoiceFilter(django_filters.ModelChoiceFilter):
    """A category given by its code; matches works in the category or any sub-category."""

    field_class = CodeChoiceField

    def filter(self, queryset: QuerySet, value: Category | None) -> QuerySet:
        if value is None:
            return queryset
        in_subtree = Assignment.objects.filter(
            work=OuterRef("pk"), category__code__in=value.subtree_codes()
        )
        return queryset.filter(Exists(in_subtree))


class StrictBooleanField(forms.NullBooleanField):
    """true or false (or empty: no filter); anything else is refused, not read as "any"."""

    TRUE, FALSE = ("true", "True", "1"), ("false", "False", "0")

    def to_python(self, value):
        if value in (None, ""):
            return None
        if value in self.TRUE or value is True:
            return True
        if value in self.FALSE or value is False:
            return False
        raise user_error("must be true or false (got %(value)s)", str(value))

    def validate(self, value) -> None:
        pass


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = StrictBooleanField


class WorkFilter(django_filters.FilterSet):
    era = django_filters.ChoiceFilter(
        choices=ERA_CHOICES,
        method="filter_era",
        label="Era",
        empty_label=None,
        help_text="survey (default): the survey and its bibliography; after: works after the "
        "survey, each with its source; all: both.",
    )
    level = CodeChoiceFilter(
        queryset=Category.objects.filter(parent__isnull=True),
        to_field_name="code",
        label="Parallelism level",
        help_text="Top-level category code: ops, net, train or bg.",
    )
    category = CodeChoiceFilter(
        queryset=Category.objects.all(),
        to_field_name="code",
        label="Category",
        help_text="Any category code; sub-categories are included.",
    )
    year_min = django_filters.NumberFilter(
        field_name="year", lookup_expr="gte", label="From year", min_value=1800, max_value=2100
    )
    year_max = django_filters.NumberFilter(
        field_name="year", lookup_expr="lte", label="To year", min_value=1800, max_value=2100
    )
    q = django_filters.CharFilter(
        method="filter_search",
        label="Search",
        max_length=MAX_QUERY_LENGTH,
        help_text="Words searched in titles, authors, venues, abstracts and notes (ranked).",
    )
    evidence = django_filters.ChoiceFilter(
        choices=Evidence.choices, method="filter_evidence", label="Assignment evidence"
    )
    entry_type = django_filters.CharFilter(
        field_name="entry_type",
        label="Entry type",
        max_length=30,
        help_text="BibTeX entry type: article, inproceedings, misc, book, ...",
    )
    has_cost_model = StrictBooleanFilter(
        method="filter_has_cost_model",
        label="Has a cost model",
        widget=forms.Select(choices=[("", "any"), ("true", "yes"), ("false", "no")]),
    )
    has_demo = StrictBooleanFilter(
        method="filter_has_demo",
        label="Has a demo",
        widget=forms.Select(choices=[("", "any"), ("true", "yes"), ("false", "no")]),
    )
    ordering = django_filters.ChoiceFilter(
        choices=[(key, key) for key in ORDERINGS],
        method="filter_ordering",
        label="Order by",
        help_text="ref, year, title or key (prefix - to reverse), or relevance with q.",
    )

    class Meta:
        model = Work
        fields: list[str] = []

    def __init__(self, data=None, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        self.unknown = sorted(set(self.data or {}) - set(self.filters) - KNOWN_PARAMETERS)

    def is_valid(self) -> bool:
        valid = super().is_valid()
        for name in self.unknown:
            self.form.add_error(None, user_error("unknown parameter %(value)s", name))
        return valid and not self.form.errors

    @property
    def selected_era(self) -> str:
        """The era the list shows: the one asked for, else the default."""
        cleaned = getattr(self.form, "cleaned_data", {}) if self.is_bound else {}
        return cleaned.get("era") or DEFAULT_ERA

    @property
    def qs(self) -> QuerySet:
        queryset = super().qs.in_era(self.selected_era)
        cleaned = getattr(self.form, "cleaned_data", {}) if self.is_bound else {}
        searching = bool(cleaned.get("q", "").strip())
        ordering = cleaned.get("ordering") or ("relevance" if searching else "ref")
        if ordering == "relevance" and not searching:
            ordering = "ref"  # nothing to rank by
        return queryset.order_by(*ORDERINGS[ordering])

    def filter_era(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset  # applied in `qs`, with the default when the parameter is absent

    def filter_search(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return search(queryset, value) if value.strip() else queryset

    def filter_evidence(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(
            Exists(Assignment.objects.filter(work=OuterRef("pk"), evidence=value))
        )

    def filter_has_cost_model(self, queryset: QuerySet, name: str, value: bool | None) -> QuerySet:
        if value is None:
            return queryset
        linked = has_cost_model()
        return queryset.filter(linked if value else ~linked)

    def filter_has_demo(self, queryset: QuerySet, name: str, value: bool | None) -> QuerySet:
        if value is None:
            return queryset
        linked = has_demo()
        return queryset.filter(linked if value else ~linked)

    def filter_ordering(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset  # applied last, in `qs`, after the search annotation exists
