"""The planner's query-string form, shared by the page and its JSON twin.

Every field is optional (a missing value takes the machine preset's, then the default); a value
out of bounds is an error whose message names the field and the bound. The cleaned values go to
`machine.parse`, which applies the preset and the checks between fields.
"""

from __future__ import annotations

from typing import Any

from django import forms

from explorer.web.forms import AsciiNumber, QueryForm, WordChoiceField

from .machine import (
    ALLREDUCE_ALGORITHMS,
    BOUNDS,
    OPTIMIZERS,
    PRECISIONS,
    PRESETS,
    RECOMPUTE,
    SWITCHES,
    TRANSFORMER_BOUNDS,
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
    field_class = AsciiIntegerField if bound.kind is int else AsciiFloatField
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


class AsciiIntegerField(AsciiNumber, forms.IntegerField):
    pass


class AsciiFloatField(AsciiNumber, forms.FloatField):
    pass


# Parameters only a transformer reads: given with a CNN, they are refused, not ignored.
TRANSFORMER_ONLY = frozenset(bound.name for bound in TRANSFORMER_BOUNDS)


class PlannerForm(QueryForm):
    network = WordChoiceField(required=False, choices=[])
    machine = WordChoiceField(
        required=False, choices=[(slug, preset.name) for slug, preset in PRESETS.items()]
    )
    allreduce = WordChoiceField(
        required=False,
        choices=[(name, name) for name in ALLREDUCE_ALGORITHMS],
        label="allreduce of the hybrid's conv gradients",
    )
    precision = WordChoiceField(
        required=False,
        choices=[(name, name) for name in PRECISIONS],
        label="precision (sets the bytes per value)",
    )
    optimizer = WordChoiceField(
        required=False,
        choices=[(name, name) for name in OPTIMIZERS],
        label="optimizer (sets the optimizer state per parameter)",
    )
    recompute = WordChoiceField(
        required=False,
        choices=[(name, name) for name in RECOMPUTE],
        label="activation recomputation (full: keep segment inputs, one more forward pass; "
        "selective: transformers only)",
    )
    overlap = WordChoiceField(
        required=False,
        choices=[(name, name) for name in SWITCHES],
        label="overlap the gradient exchange with the backward pass (data parallelism)",
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

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        network = cleaned.get("network") or Inputs.network
        if network not in TRANSFORMERS and network != CUSTOM:
            for name in sorted(TRANSFORMER_ONLY):
                if cleaned.get(name) is not None:
                    self.add_error(name, f"{name} applies to transformer networks, not {network}")
        return cleaned

    def query(self) -> dict[str, Any]:
        """The cleaned values that were given, for machine.parse."""
        return {
            name: value
            for name, value in self.cleaned_data.items()
            if name != "strategy" and value not in (None, "")
        }


def relation_errors(inputs: Inputs, layers: int | None) -> dict[str, list[str]]:
    """What the values cannot be together, once the presets have filled them in, keyed by the
    parameter to change (`layers`: the transformer's, None for a CNN)."""
    errors: dict[str, list[str]] = {}
    if layers is not None and inputs.micro_batch_size > inputs.batch:
        errors["micro_batch_size"] = [
            f"micro_batch_size must be at most batch ({inputs.batch}): a micro-batch is part "
            "of the batch"
        ]
    if layers is not None and inputs.pp and inputs.pp > layers:
        errors["pp"] = [f"pp must be at most the network's layers ({layers}): one per stage"]
    if layers is not None and inputs.tp and inputs.tp > inputs.devices_per_node:
        errors["tp"] = [
            f"tp must be at most devices_per_node ({inputs.devices_per_node}): tensor "
            "parallelism stays inside a node"
        ]
    if layers is None and inputs.recompute == "selective":
        errors["recompute"] = [
            "recompute=selective (the attention scores only, Korthikanti et al.) applies to "
            f"transformer networks; for {inputs.network} choose none or full"
        ]
    return errors


def defaults() -> dict[str, Any]:
    return Inputs().query()
