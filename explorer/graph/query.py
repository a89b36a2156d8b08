"""The graph pages' query parameters, read by Django forms: one form per page (GraphForm,
SnowballForm), shared with its JSON twin, plus the works facets of the works page (WorkFilter).
A page and its twin take the same parameters and refuse the same bad values (400, a message).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django import forms
from django.http import QueryDict

from catalogue import graph as citation_graph
from catalogue.models import Provenance, Work
from explorer.web.forms import QueryForm
from explorer.works.filters import DEFAULT_ERA
from explorer.works.filters import ERA_CHOICES as ERA_CHOICES  # for the graph pages' era switch
from explorer.works.filters import WorkFilter as WorkFilter  # the facets, for the graph's API


class KeyListField(forms.Field):
    """Work keys, comma-separated and/or repeated (?seeds=a,b or ?seeds=a&seeds=b)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value) -> list[str]:
        values = value if isinstance(value, list | tuple) else [value or ""]
        items = (item.strip() for v in values for item in str(v).split(","))
        return list(dict.fromkeys(item for item in items if item))


def choice_error(name: str, values: Iterable[str]) -> dict[str, str]:
    return {"invalid_choice": f"{name} must be {' or '.join(values)}, not %(value)r"}


PROVENANCE_FIELD_CHOICES = [c for c in Provenance.choices if c[0] != Provenance.SURVEY]


class GraphForm(QueryForm):
    """The graph's own parameters; the works facets go to explorer.works.filters.WorkFilter."""

    provenance = forms.MultipleChoiceField(
        required=False,
        choices=PROVENANCE_FIELD_CHOICES,
        error_messages=choice_error("provenance", [c for c, _ in PROVENANCE_FIELD_CHOICES]),
    )
    survey = forms.TypedChoiceField(
        required=False,
        choices=[("0", "hidden"), ("1", "shown")],
        coerce=lambda v: v == "1",
        empty_value=False,
        error_messages=choice_error("survey", ["0", "1"]),
    )
    size = forms.ChoiceField(
        required=False,
        choices=[("indegree", "in-degree"), ("pagerank", "PageRank")],
        error_messages=choice_error("size", ["indegree", "pagerank"]),
    )
    ego = forms.CharField(required=False, max_length=100)
    depth = forms.TypedChoiceField(
        required=False,
        choices=[(str(d), str(d)) for d in range(1, citation_graph.MAX_EGO_DEPTH + 1)],
        coerce=int,
        empty_value=1,
        error_messages=choice_error("depth", ["1", "2", "3"]),
    )
    direction = forms.ChoiceField(
        required=False,
        choices=[(d, d) for d in citation_graph.DIRECTIONS],
        error_messages=choice_error("direction", citation_graph.DIRECTIONS),
    )

    def clean(self):
        cleaned = super().clean()
        cleaned["size"] = cleaned.get("size") or "indegree"
        cleaned["direction"] = cleaned.get("direction") or "both"
        return cleaned


class SnowballForm(QueryForm):
    """The replay's own parameters; the inclusion filter is the works facets."""

    seeds = KeyListField(required=False)
    direction = forms.ChoiceField(
        required=False,
        choices=[(d, d) for d in citation_graph.DIRECTIONS],
        error_messages=choice_error("direction", citation_graph.DIRECTIONS),
    )
    rounds = forms.TypedChoiceField(
        required=False,
        choices=[(str(n), str(n)) for n in range(1, citation_graph.MAX_ROUNDS + 1)],
        coerce=int,
        empty_value=2,
        error_messages={
            "invalid_choice": (
                f"rounds must be a whole number from 1 to {citation_graph.MAX_ROUNDS}, "
                "not %(value)r"
            )
        },
    )
    keywords = forms.CharField(required=False, max_length=500)
    provenance = GraphForm.base_fields["provenance"]

    def clean(self):
        cleaned = super().clean()
        cleaned["direction"] = cleaned.get("direction") or "backward"
        cleaned["keywords"] = citation_graph.clean_keywords(
            (cleaned.get("keywords") or "").split(",")
        )
        return cleaned


class SnowballPageForm(SnowballForm):
    """The replay page's parameters: the API's and a download of what it collected."""

    export = forms.ChoiceField(
        required=False,
        choices=[(f, f) for f in ("bibtex", "csv", "json")],
        error_messages=choice_error("export", ["bibtex", "csv", "json"]),
    )


# The works facets, as the works list takes them (ordering means nothing on a graph).
FACETS = [name for name in WorkFilter.base_filters if name != "ordering"]


def with_facets(form_class: type[QueryForm], formats: Iterable[str] = ("json",)) -> type[QueryForm]:
    """Every parameter of a graph endpoint: the page's own form, the works facets (checked by
    WorkFilter) and ?format=, for the API's check of names and the schema
    (explorer/web/query.py)."""
    fields = {name: WorkFilter.base_filters[name].field for name in FACETS}
    fields["format"] = forms.ChoiceField(
        required=False, choices=[(f, f) for f in formats], help_text="Output format (json)."
    )
    return type(f"{form_class.__name__}WithFacets", (form_class,), fields)


@dataclass
class Query:
    """A request's parameters: the page's own form, the works facets, and every problem."""

    form: forms.Form
    facets: WorkFilter | None
    errors: dict[str, list[str]]  # keyed by parameter

    @property
    def data(self) -> dict:
        return self.form.cleaned_data

    def provenances(self) -> frozenset[str] | None:
        chosen = self.data.get("provenance")
        return frozenset(chosen) if chosen else None

    def matching_keys(self) -> set[str] | None:
        """Keys of the works the facets keep (one query), or None when no facet is set."""
        if self.facets is None:
            return None
        return set(self.facets.qs.values_list("key", flat=True))

    def era(self) -> str:
        """The era of the works shown: the one asked for (?era=), else the survey's."""
        return self.facets.selected_era if self.facets is not None else DEFAULT_ERA

    def facet_values(self) -> dict[str, str]:
        return (
            {name: self.facets.data.get(name) for name in self.facets.data} if self.facets else {}
        )


def parse_query(form_class: type[QueryForm], data: QueryDict) -> Query:
    """The page's own parameters read by its form (which refuses unknown and repeated ones), the
    facets by WorkFilter; their errors keyed by parameter."""
    own, facets = QueryDict(mutable=True), QueryDict(mutable=True)
    for name, values in data.lists():
        (facets if name in FACETS else own).setlist(name, values)
    form = form_class(own)
    errors = form.messages() if not form.is_valid() else {}
    works_filter = WorkFilter(facets, queryset=Work.objects.all()) if facets else None
    if works_filter is not None and not works_filter.is_valid():
        errors |= works_filter.form.messages()
    return Query(form, works_filter, errors)
