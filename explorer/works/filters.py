"""The works filters, shared by the /works/ page, the API list and the exports.

One FilterSet so that a page URL and its JSON twin take exactly the same query parameters.
"""

from __future__ import annotations

import functools
import hashlib

import django_filters
from django import forms
from django.db.models import Exists, OuterRef, QuerySet
from django.forms.models import ModelChoiceIteratorValue
from django.http import QueryDict
from django_filters.constants import EMPTY_VALUES
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from catalogue.constants import ENTRY_TYPE_WORDS
from catalogue.models import (
    Assignment,
    Category,
    Era,
    Evidence,
    Work,
    has_cost_model,
    has_demo,
)
from catalogue.version import per_version
from explorer.web.forms import FastSelect, PageForm, QueryForm, echoed

MAX_QUERY_LENGTH = 200
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
ORDERING_LABELS = {
    "relevance": "relevance (with a search)",
    "ref": "survey reference number",
    "-ref": "survey reference number, last first",
    "year": "year, oldest first",
    "-year": "year, newest first",
    "title": "title, A to Z",
    "-title": "title, Z to A",
    "key": "citation key, A to Z",
    "-key": "citation key, Z to A",
}
ENTRY_TYPES = ENTRY_TYPE_WORDS
# Without ?era=, lists show the survey's own works: its figures (270 works, 269 references) stay
# what they were, and a later work is never mixed in unasked (docs/api.md, "Eras").
DEFAULT_ERA = Era.SURVEY.value
ERA_CHOICES = [*Era.choices, ("all", "both")]


def era_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        required=False,
        choices=ERA_CHOICES,
        widget=FastSelect,
        label="Era",
        help_text="survey (default): the survey and its bibliography; after: works after the "
        "survey, each with its source; all: both.",
        error_messages={"invalid_choice": "must be one of survey, after, all (got %(value)s)"},
    )


class EraForm(QueryForm):
    """The parameters of a page or endpoint that takes only an era (the category tree)."""

    era = era_field()

    def selected_era(self) -> str:
        return self.cleaned_data.get("era") or DEFAULT_ERA


def category_tree(era: str) -> list:
    """The taxonomy with distinct work counts of one era. The categories added after the survey
    are left out of the survey's own tree (they are ours, and hold none of its works)."""

    def tree() -> list:
        categories = Category.objects.all()
        if era == Era.SURVEY:
            categories = categories.filter(extends="")
        return categories.tree_with_counts(Work.objects.in_era(era))

    # The same for every request: once per catalogue version (a pass over every assignment).
    return per_version(f"category-tree:{era}", tree)


def user_error(message: str, value: str, **params: str) -> forms.ValidationError:
    """An error quoting what the user sent, as a parameter: django-filter formats every message
    with `message % params`, and a % in a value pasted into the message would raise (a 500)."""
    return forms.ValidationError(message, params={"value": echoed(value), **params})


class TreeOrderIterator(forms.models.ModelChoiceIterator):
    """Categories as a table of contents: parents before children, section numbers shown,
    children indented. Evaluated only when the form is rendered (the API never is)."""

    reads_kept_choices = True  # FastSelect may key its HTML on the options: they are kept

    def __iter__(self):
        if self.field.empty_label is not None:
            yield ("", self.field.empty_label)
        # The same options on every works page: read once per catalogue version.
        for value, label in per_version(f"category-options:{self.key()}", self.options):
            yield (ModelChoiceIteratorValue(value, None), label)

    def key(self) -> str:
        """Which options these are (the field's queryset, as SQL), kept on the queryset: the
        form's fields are shared by every request (SharedFields), and compiling the SQL for
        the key was a tenth of the works page."""
        queryset = self.queryset
        if "_options_key" not in queryset.__dict__:
            sql = str(queryset.query).encode()
            queryset._options_key = hashlib.sha1(sql, usedforsecurity=False).hexdigest()
        return queryset._options_key

    def options(self) -> list[tuple[str, str]]:
        indent = "\u2003"  # em spaces: a <select> shows no other indentation
        return [
            (self.field.prepare_value(category), f"{indent * depth}{category}")
            for category, depth in self.queryset.in_tree_order()
        ]


class CodeChoiceField(forms.ModelChoiceField):
    iterator = TreeOrderIterator
    widget = FastSelect

    def to_python(self, value):
        if value in self.empty_values:
            return None
        # The categories by code are read once per catalogue version (a filter by level or
        # category read its category on every request); each request gets its own copy.
        name = f"categories-by-code:{self.iterator(self).key()}"
        kept = per_version(name, self.categories_by_code, in_process=True)
        if isinstance(value, str) and (category := kept.get(value)) is not None:
            return category_copy(category)
        try:
            return super().to_python(value)
        except forms.ValidationError as error:
            known = ", ".join(self.queryset.values_list("code", flat=True))
            message = "unknown code %(value)s (known: %(known)s)"
            raise user_error(message, value, known=known) from error

    def categories_by_code(self) -> dict[str, Category]:
        # .all(): a copy; iterating the field's own queryset would keep its rows in it for good
        return {category.code: category for category in self.queryset.all()}


def category_copy(node: Category) -> Category:
    """A shallow copy of a kept, read-only category (copy.copy pickles its state: 10x slower)."""
    clone = Category.__new__(Category)
    clone.__dict__.update(node.__dict__)
    return clone


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


class SharedFields(dict):
    """A form's fields, shared by its instances instead of deep-copied for each (Django copies
    them so that an instance may change its own; nothing changes these: the works filter's
    fields are read, validated against and rendered, never set). Copying them, with their
    widgets, choices and querysets, was a fifth of the API list's time."""

    def __deepcopy__(self, memo: dict) -> dict:
        return dict(self)


class WorkFilter(django_filters.FilterSet):
    era = django_filters.ChoiceFilter(
        choices=ERA_CHOICES,
        widget=FastSelect,
        method="filter_era",
        label="Era",
        empty_label=None,
        help_text="survey (default): the survey and its bibliography; after: works after the "
        "survey, each with its source; all: both.",
    )
    level = CodeChoiceFilter(
        queryset=Category.objects.filter(parent__isnull=True),
        to_field_name="code",
        empty_label="any level",
        label="Parallelism level",
        help_text="Top-level category code: ops, net, train or bg.",
    )
    category = CodeChoiceFilter(
        queryset=Category.objects.all(),
        to_field_name="code",
        empty_label="any category",
        label="Category",
        help_text="Any category code; sub-categories are included.",
    )
    year_min = django_filters.NumberFilter(
        field_name="year",
        lookup_expr="gte",
        label="From year",
        min_value=1800,
        max_value=2100,
        decimal_places=0,
    )
    year_max = django_filters.NumberFilter(
        field_name="year",
        lookup_expr="lte",
        label="To year",
        min_value=1800,
        max_value=2100,
        decimal_places=0,
    )
    q = django_filters.CharFilter(
        method="filter_search",
        label="Search",
        max_length=MAX_QUERY_LENGTH,
        help_text=(
            "Words searched in titles, authors, venues, abstracts, notes and the names and "
            "descriptions of the works' categories and techniques; stemmed (pipeline finds "
            "pipelining), all words required, ranked by relevance."
        ),
    )
    evidence = django_filters.ChoiceFilter(
        choices=Evidence.choices,
        widget=FastSelect,
        method="filter_evidence",
        label="Evidence of a category",
        empty_label="any evidence",
    )
    entry_type = django_filters.CharFilter(
        field_name="entry_type",
        label="Kind of publication",
        max_length=30,
        help_text="BibTeX entry type: article, inproceedings, misc, book, ...",
        widget=FastSelect(choices=[("", "any kind"), *ENTRY_TYPES.items()]),
    )
    has_cost_model = StrictBooleanFilter(
        method="filter_has_cost_model",
        label="Has a cost model",
        widget=FastSelect(choices=[("", "either"), ("true", "yes"), ("false", "no")]),
    )
    has_demo = StrictBooleanFilter(
        method="filter_has_demo",
        label="Has a demo",
        widget=FastSelect(choices=[("", "either"), ("true", "yes"), ("false", "no")]),
    )
    ordering = django_filters.ChoiceFilter(
        choices=list(ORDERING_LABELS.items()),
        widget=FastSelect,
        method="filter_ordering",
        label="Order by",
        empty_label="relevance with a search, else survey reference number",
        help_text="ref, year, title or key (prefix - to reverse), or relevance with q.",
        # The refusal lists what is allowed (Django's says only that the value is not).
        error_messages={
            "invalid_choice": f"must be one of {', '.join(ORDERING_LABELS)} (got '%(value)s')"
        },
    )

    class Meta:
        model = Work
        fields: list[str] = []
        form = PageForm  # refuses unknown and repeated parameters; page and page_size paginate

    def __init__(self, data=None, queryset=None, *, request=None, prefix=None):
        # django-filter deep-copies every filter (and their querysets) for each request, then
        # builds a form class from the copies: a tenth of the API list's time. The filters are
        # never changed after the class is built, so every request shares them (and one form
        # class); the method filters are called on this instance (`filter_queryset`).
        self.is_bound = data is not None
        self.data = data or QueryDict()
        self.queryset = Work.objects.all() if queryset is None else queryset
        self.request = request
        self.form_prefix = prefix
        self.filters = self.base_filters

    @classmethod
    @functools.cache
    def form_class(cls) -> type[forms.Form]:
        fields = {name: filter_.field for name, filter_ in cls.base_filters.items()}
        form = type(f"{cls.__name__}Form", (cls._meta.form,), fields)
        form.base_fields = SharedFields(form.base_fields)
        return form

    def get_form_class(self) -> type[forms.Form]:
        return self.form_class()

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        for name, value in self.form.cleaned_data.items():
            filter_ = self.filters[name]
            if filter_.method is None:
                queryset = filter_.filter(queryset, value)
            elif value not in EMPTY_VALUES:  # what django-filter's FilterMethod does
                queryset = getattr(self, filter_.method)(queryset, filter_.field_name, value)
        return queryset

    @property
    def selected_era(self) -> str:
        """The era the list shows: the one asked for, else the default."""
        cleaned = getattr(self.form, "cleaned_data", {}) if self.is_bound else {}
        return cleaned.get("era") or DEFAULT_ERA

    @property
    def qs(self) -> QuerySet:
        cleaned = getattr(self.form, "cleaned_data", {}) if self.is_bound else {}
        searching = bool(cleaned.get("q", "").strip())
        # A search is led by the search index, not by the era's (catalogue/models.py, in_era).
        queryset = super().qs.in_era(self.selected_era, indexed=not searching)
        ordering = cleaned.get("ordering") or ("relevance" if searching else "ref")
        if ordering == "relevance" and not searching:
            ordering = "ref"  # nothing to rank by
        return queryset.order_by(*ORDERINGS[ordering])

    def count_in_era(self, era: str) -> int:
        """How many works of `era` this valid filter's other filters match: its values as read
        (a new filter for the other era validated them again, reading the category again)."""
        searching = bool(self.form.cleaned_data.get("q", "").strip())
        works = self.filter_queryset(Work.objects.all())
        return works.in_era(era, indexed=not searching).count()

    def active_filters(self) -> list[tuple[str, tuple[str, ...]]]:
        """The filters in force, in words, each with the parameters that removing it drops:
        for the works page's chips. Valid filters only (call after is_valid)."""
        cleaned = self.form.cleaned_data if self.is_bound else {}
        chips: list[tuple[str, tuple[str, ...]]] = []
        if cleaned.get("q", "").strip():
            chips.append((f"“{cleaned['q'].strip()}”", ("q",)))
        for name in ("level", "category"):
            if cleaned.get(name) is not None:
                chips.append((f"{self.filters[name].label}: {cleaned[name]}", (name,)))
        low, high = cleaned.get("year_min"), cleaned.get("year_max")
        if low is not None and low == high:
            chips.append((f"in {low:.0f}", ("year_min", "year_max")))
        else:
            if low is not None:
                chips.append((f"from {low:.0f}", ("year_min",)))
            if high is not None:
                chips.append((f"up to {high:.0f}", ("year_max",)))
        if cleaned.get("evidence"):
            chips.append((f"evidence: {Evidence(cleaned['evidence']).label}", ("evidence",)))
        if cleaned.get("entry_type"):
            kind = ENTRY_TYPES.get(cleaned["entry_type"], cleaned["entry_type"])
            chips.append((kind, ("entry_type",)))
        for name, thing in (("has_cost_model", "a cost model"), ("has_demo", "a demo")):
            if cleaned.get(name) is not None:
                chips.append((f"{'with' if cleaned[name] else 'without'} {thing}", (name,)))
        return chips

    def filter_era(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset  # applied in `qs`, with the default when the parameter is absent

    def filter_search(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.search(value) if value.strip() else queryset

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
