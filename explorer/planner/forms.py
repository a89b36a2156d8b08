"""The planner's query-string form, shared by the page and its JSON twin.

Every field is optional (a missing value takes the machine preset's, then the default); a value
out of bounds is an error whose message names the field and the bound. The cleaned values go to
`machine.parse`, which applies the preset and the checks between fields.
"""

from __future__ import annotations

from typing import Any

from django import forms

from explorer.web.parameters import EVERYWHERE, Declared

from .machine import ALLREDUCE_ALGORITHMS, BOUNDS, PRESETS, Bound, Inputs
from .networks import networks
from .strategies import STRATEGY_SLUGS


def _bounded_field(bound: Bound) -> forms.Field:
    kind = "an integer" if bound.kind is int else "a number"
    message = f"{bound.name} ({bound.help}) must be {kind} between {bound.low:g} and {bound.high:g}"
    field_class = forms.IntegerField if bound.kind is int else forms.FloatField
    return field_class(
        required=False,
        min_value=bound.low,
        max_value=bound.high,
        label=bound.help + (f" ({bound.unit})" if bound.unit else ""),
        error_messages={
            "invalid": message,
            "min_value": message,
            "max_value": message,
            "max_decimal_places": message,
        },
    )


class PlannerForm(forms.Form):
    network = forms.ChoiceField(required=False, choices=[])
    machine = forms.ChoiceField(
        required=False, choices=[(slug, preset.name) for slug, preset in PRESETS.items()]
    )
    allreduce = forms.ChoiceField(
        required=False,
        choices=[(name, name) for name in ALLREDUCE_ALGORITHMS],
        label="allreduce of the hybrid's conv gradients",
    )
    strategy = forms.MultipleChoiceField(
        required=False,
        choices=[(slug, slug) for slug in STRATEGY_SLUGS],
        label="show only these strategies",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["network"].choices = [(n.slug, n.name) for n in networks().values()]
        for name, bound in BOUNDS.items():
            self.fields[name] = _bounded_field(bound)

    @classmethod
    def parameter_names(cls) -> Declared:
        """The query parameters the planner reads (`strategy` may repeat)."""
        names = frozenset(cls.base_fields) | frozenset(BOUNDS) | EVERYWHERE
        return Declared(names=names, arrays=frozenset({"strategy"}), open=False)

    def messages_by_parameter(self) -> dict[str, list[str]]:
        """Parameter -> messages, each naming its parameter (a bound's message already does)."""
        return {
            name: [str(error) if name in BOUNDS else f"{name}: {error}" for error in errors]
            for name, errors in self.errors.items()
        }

    def query(self) -> dict[str, Any]:
        """The cleaned values that were given, for machine.parse."""
        return {
            name: value
            for name, value in self.cleaned_data.items()
            if name != "strategy" and value not in (None, "")
        }


def defaults() -> dict[str, Any]:
    return Inputs().query()
