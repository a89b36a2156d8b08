"""Django form fields for query-string parameters, shared by the pages and their JSON twins.

A query parameter may be given several times (?N=1&N=2) or empty (?N=, a blank form field): the
fields here count an empty one as not given; QueryForm's cleaning is the one place that refuses a
parameter it does not declare and a repeated one. Messages name the parameter and what it
allows, e.g. "N must be between 1 and 1024 (got 0)".
"""

from __future__ import annotations

from collections.abc import Iterable

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import QueryDict
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django_filters.fields import ChoiceIterator

from explorer.web.errors import NON_FIELD, ApiError
from explorer.web.readers import (
    Refused,
    read_bool,
    read_choice,
    read_number,
)
from explorer.web.words import echoed, repeated_message, unknown_message


class EveryValue(forms.Widget):
    """Reads every non-empty value of a parameter, so that a field can refuse repetition."""

    def value_from_datadict(self, data, files, name) -> list[str]:
        values = data.getlist(name) if hasattr(data, "getlist") else data.get(name, [])
        if isinstance(values, str):
            values = [values]
        return [value.strip() for value in values if value.strip()]

    def value_omitted_from_data(self, data, files, name) -> bool:
        return name not in data


class QueryParameter(forms.Field):
    """One query parameter: its single value, or `default` when it is not given."""

    widget = EveryValue

    def __init__(self, name: str, default: object = None, **kwargs) -> None:
        super().__init__(required=False, **kwargs)
        self.name, self.default = name, default

    def to_python(self, values: list[str]) -> object:
        # A repeated parameter is refused by the form's check of names (QueryForm), before.
        try:
            return self.read(values[-1]) if values else self.default
        except Refused as refused:
            raise forms.ValidationError(str(refused)) from None

    def read(self, raw: str) -> object:
        return raw


class NumberParameter(QueryParameter):
    """A finite number in [low, high] (a whole one when `whole`)."""

    def __init__(self, name: str, low: float, high: float, whole: bool = False, **kwargs) -> None:
        super().__init__(name, **kwargs)
        self.low, self.high, self.whole = low, high, whole

    def read(self, raw: str) -> float | int:
        return read_number(self.name, raw, self.low, self.high, self.whole)


class ChoiceParameter(QueryParameter):
    """One of `choices`; `message` says what is allowed (the value given is added)."""

    def __init__(self, name: str, choices: Iterable[str], message: str, **kwargs) -> None:
        super().__init__(name, **kwargs)
        self.choices, self.message = list(choices), message

    def read(self, raw: str) -> str:
        return read_choice(raw, self.choices, self.message)


class BoolParameter(QueryParameter):
    """True or false (true, 1, yes, on; false, 0, no, off)."""

    def read(self, raw: str) -> bool:
        return read_bool(self.name, raw)


class AsciiNumber:
    """Mixed into a number field: ASCII digits only. Python's int() and float() read
    Arabic-Indic and full-width digits (٣, ３) too, which nobody types as a parameter's value."""

    def to_python(self, value):
        if isinstance(value, str) and not value.isascii():
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class WordChoiceField(forms.ChoiceField):
    """A choice whose refusal lists the choices and quotes the value given, cut to a few words
    (a long value is not sent back)."""

    def validate(self, value) -> None:
        forms.Field.validate(self, value)  # required or not
        if value not in self.empty_values and not self.valid_value(value):
            allowed = ", ".join(str(key) for key, _ in self.choices if key not in ("", None))
            raise forms.ValidationError(
                f"must be one of {allowed} (got {echoed(value)})", code="invalid_choice"
            )


class QueryForm(forms.Form):
    """The parameters of a page or an endpoint, declared once: its fields. Its cleaning is the one
    place that refuses a parameter it does not declare and a repeated one (but for a multiple
    choice), each keyed by the parameter, as the API answers them ({parameter: [message]}); the
    API's views check it before anything else (explorer/web/query.py), and the OpenAPI schema
    lists its fields (explorer/web/schema.py)."""

    ignored: frozenset[str] = frozenset({"format"})  # DRF's renderer choice, no field's

    def full_clean(self) -> None:
        super().full_clean()
        if not self.is_bound:
            return
        for name, messages in self.parameter_errors().items():
            self._errors[name] = self.error_class(messages)  # instead of the field's own
            self.cleaned_data.pop(name, None)

    def parameter_errors(self) -> dict[str, list[str]]:
        """The unknown and the repeated parameters of the query, keyed by parameter: a misspelt
        name is not silently ignored, a repeated one does not silently take its last value."""
        errors: dict[str, list[str]] = {}
        for name in self.data:
            if name not in self.fields and name not in self.ignored:
                errors[name] = [unknown_message(name, self.fields)]
            elif name in self.ignored or not repeatable(self.fields[name]):
                count = len(self.data.getlist(name)) if hasattr(self.data, "getlist") else 1
                if count > 1:
                    errors[name] = [repeated_message(name, count)]
        return errors

    def checked(self) -> dict:
        """The cleaned values, or ApiError (a 400 keyed by parameter) when the query is bad."""
        if not self.is_valid():
            raise ApiError(self.messages())
        return self.cleaned_data

    def messages(self) -> dict[str, list[str]]:
        """{parameter: [message]}, the API's 400 answer."""
        return {
            NON_FIELD if name == NON_FIELD_ERRORS else name: [error["message"] for error in errors]
            for name, errors in self.errors.get_json_data().items()
        }

    def given(self, name: str) -> bool:
        """Whether the query gives `name` a non-empty value."""
        return bool(EveryValue().value_from_datadict(self.data, self.files, name))


def repeatable(field: forms.Field) -> bool:
    """Whether a parameter may be given several times (a multiple choice, ?seeds=a&seeds=b)."""
    return isinstance(field, forms.MultipleChoiceField) or isinstance(
        field.widget, forms.MultipleHiddenInput | forms.SelectMultiple
    )


class NoParameters(QueryForm):
    """What an endpoint that reads no parameter declares (a work, a run, a demo's schema)."""


class PageForm(QueryForm):
    """The form of a paginated list: the pagination reads (and checks) page and page_size."""

    ignored = frozenset({"format", "page", "page_size"})


class FastSelect(forms.Select):
    """A <select> written here, with the HTML of Django's own templates (select.html,
    select_option.html, attrs.html), for choices without groups: rendering a template for each
    option was a third of the works page (its category select has 60 options). Grouped choices
    go through the templates."""

    def render(self, name, value, attrs=None, renderer=None) -> SafeString:
        """The select's HTML, kept per name, value, attributes and choices (the same for every
        reader of a page at its defaults: the works page renders 60 options per request)."""
        key = _select_key(name, value, attrs, self.attrs, self.choices)
        if key is not None and (html := _SELECTS.get(key)) is not None:
            return html
        html = self._render(name, value, attrs, renderer)
        if key is not None:
            if len(_SELECTS) >= MAX_SELECTS_KEPT:
                _SELECTS.clear()
            _SELECTS[key] = html
        return html

    def _render(self, name, value, attrs, renderer) -> SafeString:
        widget = self.get_context(name, value, attrs)["widget"]
        if any(group_name for group_name, _, _ in widget["optgroups"]):
            return super().render(name, value, attrs, renderer)
        parts = [f'<select name="{conditional_escape(widget["name"])}"{_attrs(widget["attrs"])}>']
        for _, options, _ in widget["optgroups"]:
            parts += [
                f'\n  <option value="{conditional_escape(str(option["value"]))}"'
                f"{_attrs(option['attrs'])}>{conditional_escape(option['label'])}</option>\n"
                for option in options
            ]
        parts.append("\n</select>")  # each option's template ends with a newline too
        return mark_safe("".join(parts))  # noqa: S308 - every value escaped above


MAX_SELECTS_KEPT = 512
_SELECTS: dict[tuple, SafeString] = {}


def _select_key(name, value, attrs, own_attrs, choices) -> tuple | None:
    """What a select's HTML depends on, or None when the choices are not plain values (a model
    iterator, which reads the database, or anything unhashable): those are not kept."""
    if not isinstance(choices, list | tuple) and not _reads_nothing(choices):
        return None
    values = tuple(value) if isinstance(value, list | tuple) else value
    key = (name, values, _items(attrs), _items(own_attrs), tuple(map(tuple, choices)))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _reads_nothing(choices) -> bool:
    """Whether iterating over the choices is cheap and reads no database: django-filter's
    iterator over a filter's fixed choices (its empty label first), or an iterator that says so
    (`reads_kept_choices`: the works page's categories, kept per catalogue version). Their
    selects, five of the works page's eight, were rendered on every request."""
    return isinstance(choices, ChoiceIterator) or getattr(choices, "reads_kept_choices", False)


def _items(attrs: dict | None) -> tuple:
    return tuple(sorted((attrs or {}).items()))


def _attrs(attrs: dict) -> str:
    """django/forms/widgets/attrs.html: ` name="value"`, ` name` for True, nothing for False."""
    return "".join(
        f" {conditional_escape(name)}"
        + ("" if value is True else f'="{conditional_escape(str(value))}"')
        for name, value in attrs.items()
        if value is not False
    )


def given_fields(query: QueryDict, form_class: type[QueryForm]) -> QueryDict:
    """The query without the blank fields a browser's form sends (an empty value is the parameter
    left out: explorer/web/forms.py), so that the page's links do not carry them on; a name the
    form does not declare stays, to be refused."""
    given = QueryDict(mutable=True)
    for name, values in query.lists():
        kept = [value for value in values if value.strip()]
        if kept or name not in form_class.base_fields:
            given.setlist(name, kept or values)
    return given
