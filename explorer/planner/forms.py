"""The planner's query-string form, shared by the page and its JSON twin.

Every field is optional (a missing value takes the machine preset's, then the default); a value
out of bounds is an error whose message names the field and the bound. The cleaned values go to
`machine.parse`, which applies the preset and the checks between fields.
"""

from __future__ import annotations

from typing import Any

from django import forms

from .devices import catalogue_devices
from .machine import (
    ALLREDUCE_ALGORITHMS,
    ATTENTION,
    BOUNDS,
    OPTIMIZERS,
    PRECISIONS,
    PRESETS,
    RECOMPUTE,
    SWITCHES,
    Bound,
    Inputs,
)
from .networks import networks
from .strategies import ALL_STRATEGY_SLUGS
from .transformer import CUSTOM
from .transformer import PRESETS as TRANSFORMERS


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
    device = forms.ChoiceField(
        required=False,
        choices=[(slug, device.name) for slug, device in catalogue_devices().items()],
        label="device of the catalogue (its peak, memory and intra-node link over the machine's)",
    )
    allreduce = forms.ChoiceField(
        required=False,
        choices=[(name, name) for name in ALLREDUCE_ALGORITHMS],
        label="allreduce of the hybrid's conv gradients",
    )
    precision = forms.ChoiceField(
        required=False,
        choices=[(name, name) for name in PRECISIONS],
        label="precision (sets the bytes per value)",
    )
    optimizer = forms.ChoiceField(
        required=False,
        choices=[(name, name) for name in OPTIMIZERS],
        label="optimizer (sets the optimizer state per parameter)",
    )
    recompute = forms.ChoiceField(
        required=False,
        choices=[(name, name) for name in RECOMPUTE],
        label="activation recomputation (full: keep segment inputs, one more forward pass; "
        "selective: transformers only)",
    )
    attention = forms.ChoiceField(
        required=False,
        choices=[(name, name) for name in ATTENTION],
        label="attention kernels (flash: FlashAttention-style, no s x s matrices kept)",
    )
    overlap = forms.ChoiceField(
        required=False,
        choices=[(name, name) for name in SWITCHES],
        label="overlap the gradient exchange with the backward pass (data parallelism)",
    )
    gated = forms.ChoiceField(
        required=False,
        choices=[(name, name) for name in SWITCHES],
        label="gated (SwiGLU) MLP: three matrices of ffn_hidden (transformers)",
    )
    strategy = forms.MultipleChoiceField(
        required=False,
        choices=[(slug, slug) for slug in ALL_STRATEGY_SLUGS],
        label="show only these strategies",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["network"].choices = [(n.slug, n.name) for n in networks().values()] + [
            *((p.slug, p.name) for p in TRANSFORMERS.values()),
            (CUSTOM, "Transformer of your configuration"),
        ]
        for name, bound in BOUNDS.items():
            self.fields[name] = _bounded_field(bound)

    def error_messages(self) -> list[str]:
        messages = []
        for name, errors in self.errors.items():
            for error in errors:
                if name in BOUNDS:
                    messages.append(str(error))
                else:
                    messages.append(f"{name}: {error}")
        return messages

    def query(self) -> dict[str, Any]:
        """The cleaned values that were given, for machine.parse."""
        return {
            name: value
            for name, value in self.cleaned_data.items()
            if name != "strategy" and value not in (None, "")
        }


def defaults() -> dict[str, Any]:
    return Inputs().query()
