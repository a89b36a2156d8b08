"""The planner's query-string form, shared by the page and its JSON twin.

Every field is optional (a missing value takes the machine preset's, then the default); a value
out of bounds is an error whose message names the field and the bound. Its clean() returns the
inputs (`cleaned_data["inputs"]`): the checked values with the network's and the machine's
presets merged (machine.merged) and the values checked together; nothing checks them again.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS

from explorer.web.forms import AsciiNumber, QueryForm, WordChoiceField
from explorer.workloads.devices import catalogue_devices
from explorer.workloads.networks import networks
from explorer.workloads.transformers.shapes import CUSTOM, is_transformer
from explorer.workloads.transformers.shapes import PRESETS as TRANSFORMERS

from .accuracy.calibration.fit import STACKS
from .machine import (
    ALLREDUCE_ALGORITHMS,
    ATTENTION,
    BOUNDS,
    OPTIMIZERS,
    PRECISIONS,
    PRESETS,
    RECOMPUTE,
    SWITCHES,
    TRANSFORMER_BOUNDS,
    Bound,
    Inputs,
    PlannerInputError,
    check_relations,
    merged,
)
from .strategies import ALL_STRATEGY_SLUGS
from .transformers.network import NETWORK_DEFAULTS
from .transformers.plan import config_of

# Parameters only a transformer reads: given with a CNN, they are refused, not ignored.
TRANSFORMER_ONLY = frozenset(bound.name for bound in TRANSFORMER_BOUNDS)
# Bounds between parameters, which a parameter's own schema cannot say (a 400 naming it).
JOINT_BOUNDS = {
    "micro_batches": "at most `batch` (a micro-batch holds at least one sample)",
    "devices_per_node": "a node holds at most `devices_per_node` of the P devices (the last "
    "node may hold fewer); with P ≤ devices_per_node every exchange stays inside one node",
    "bits": "at most 8 × the bytes per value sent (`message_bytes`, else the precision's: "
    "8·gamma in fp32, 16 in mixed precision)",
    "micro_batch_size": "at most `batch`",
    "pp": "at most the transformer's layers",
    "tp": "at most `devices_per_node`",
    "cp": "divides P; 2·cp divides the sequence length (Megatron-Core's balanced chunks)",
}


def _switch(label: str, help_text: str) -> forms.Field:
    """A true/false input (the address writes it as a word), optional."""
    choices = [(name, name) for name in SWITCHES]
    return WordChoiceField(required=False, choices=choices, label=label, help_text=help_text)


def _bounded_field(bound: Bound) -> forms.Field:
    kind = "an integer" if bound.kind is int else "a number"
    message = f"{bound.name} ({bound.help}) must be {kind} between {bound.low:g} and {bound.high:g}"
    field_class = AsciiIntegerField if bound.kind is int else AsciiFloatField
    return field_class(
        required=False,
        min_value=bound.low,
        max_value=bound.high,
        label=bound.help + (f" ({bound.unit})" if bound.unit else ""),
        help_text="; ".join(
            [f"{bound.help}, {bound.low:g} to {bound.high:g} {bound.unit}".strip()]
            + ([JOINT_BOUNDS[bound.name]] if bound.name in JOINT_BOUNDS else [])
            + (["transformer networks only"] if bound.name in TRANSFORMER_ONLY else [])
        ),
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


class PlannerForm(QueryForm):
    network = WordChoiceField(
        required=False,
        choices=[],
        help_text="network: a survey CNN, a transformer preset, or `transformer` (a "
        "configuration of your own: layers, hidden, heads, seq_len, vocab...)",
    )
    machine = WordChoiceField(
        required=False,
        choices=[(slug, preset.name) for slug, preset in PRESETS.items()],
        help_text="machine preset",
    )
    device = WordChoiceField(
        required=False,
        choices=[(slug, device.name) for slug, device in catalogue_devices().items()],
        label="device of the catalogue (its peak, memory and intra-node link over the machine's)",
        help_text="a device of the catalogue (/devices/): its peak at the precision, its memory "
        "and its intra-node link over the machine's; explicit values win",
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
        help_text="bytes per value: fp32 (all gamma) or mixed (2-byte weights, gradients, "
        "activations and messages, fp32 master weights and moments); each size overridable",
    )
    optimizer = WordChoiceField(
        required=False,
        choices=[(name, name) for name in OPTIMIZERS],
        label="optimizer (sets the optimizer state per parameter)",
        help_text="optimizer state values per parameter: sgd 0, momentum 1, adam 2 "
        "(mixed precision: K = 4 + 4 per value, Adam's K = 12 as in ZeRO)",
    )
    recompute = WordChoiceField(
        required=False,
        choices=[(name, name) for name in RECOMPUTE],
        label="activation recomputation (full: keep segment inputs, one more forward pass; "
        "selective: transformers only)",
        help_text="activation recomputation: none keeps every layer's output; full keeps "
        "only each segment's input (a pipeline stage, else √layers contiguous layers) and "
        "recomputes the segment in the backward pass: one more forward pass of compute; "
        "transformers as Korthikanti et al. count it, where selective recomputes only the "
        "attention scores (transformer networks only)",
    )
    attention = WordChoiceField(
        required=False,
        choices=[(name, name) for name in ATTENTION],
        label="attention kernels (flash: FlashAttention-style, no s x s matrices kept)",
        help_text="a transformer's attention kernels: standard (Korthikanti et al.'s "
        "activations, with the s x s matrices) or flash (FlashAttention-style, arXiv "
        "2205.14135: activations and FLOPs of selective recomputation)",
    )
    overlap = WordChoiceField(
        required=False,
        choices=[(name, name) for name in SWITCHES],
        label="overlap the gradient exchange with the backward pass (data parallelism)",
        help_text="true (the default, as PyTorch DDP does): the data-parallel gradient "
        "allreduce runs in buckets of `bucket_mb` during the backward pass and only what "
        "outlasts it is exposed; false: the whole exchange after the backward pass",
    )
    stack = WordChoiceField(
        required=False,
        choices=[(name, name) for name in STACKS],
        label="software stack the default efficiency assumes",
        help_text="median (the default): the fitted median of the MLPerf stacks on the device; "
        "decile: the 10th percentile of their spread on one device, a slower stack than most "
        "submitters ran. Ignored when efficiency is given",
    )
    overlap_tensor = _switch(
        label="overlap the tensor-parallel exchanges with the linear layers (transformers)",
        help_text="false (Megatron-Core's default, tp_comm_overlap): exposed; true: hidden behind "
        "the linear layers' products as far as they last",
    )
    overlap_pipeline = _switch(
        label="overlap the pipeline's sends with compute (transformers)",
        help_text="false (Megatron-Core's default, overlap_p2p_comm): exposed; true: hidden",
    )
    overlap_expert = _switch(
        label="overlap the experts' all-to-alls with compute (mixtures of experts)",
        help_text="false (Megatron-Core's default): exposed; true: hidden behind the products",
    )
    overlap_context = _switch(
        label="overlap the context-parallel ring with the attention (transformers)",
        help_text="true (Transformer Engine's ring overlaps its sends with the blockwise "
        "attention): hidden behind the attention core; false: exposed",
    )
    overlap_zero3 = _switch(
        label="prefetch ZeRO-3's parameter gathers during compute",
        help_text="true (DeepSpeed's default for stage 3, overlap_comm): hidden behind the "
        "compute; false: exposed",
    )
    sequence_parallel = _switch(
        label="sequence parallelism wherever tp > 1 (transformers)",
        help_text="true (the default, Megatron-Core's): norms, dropout and their activations "
        "split along the sequence over the tensor-parallel group; false (Megatron-LM 2021): "
        "each tensor-parallel rank repeats them on the whole sequence",
    )
    gated = WordChoiceField(
        required=False,
        choices=[(name, name) for name in SWITCHES],
        label="gated (SwiGLU) MLP: three matrices of ffn_hidden (transformers)",
        help_text="a transformer's MLP gated (SwiGLU, three matrices of ffn_hidden) or not; "
        "default: the preset's (a custom transformer: not gated)",
    )
    parallel_block = _switch(
        label="parallel attention + MLP block, one layer norm (GPT-J, GPT-NeoX, PaLM)",
        help_text="a transformer's layer as GPT-J's: attention and MLP read the same normalised "
        "input and their outputs join the residual together; with tensor parallelism one "
        "allreduce fewer per layer forward; default: the preset's (a custom transformer: not)",
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
        """The checked values and `inputs`, the Inputs they make once the presets are merged
        and the values are checked together (none when a value is wrong)."""
        cleaned = super().clean()
        network = cleaned.get("network") or Inputs.network
        if network not in TRANSFORMERS and network != CUSTOM:
            # The page's form sends the defaults it shows (micro_batch_size=1): those change
            # nothing; any other value would be ignored, so it is refused.
            for name in sorted(TRANSFORMER_ONLY):
                if cleaned.get(name) not in (None, getattr(Inputs, name, None)):
                    self.add_error(name, f"{name} applies to transformer networks, not {network}")
        if self._errors or self.parameter_errors():
            return cleaned  # a value is wrong on its own: said as such, not as a relation
        try:
            inputs = merged(self.query(), NETWORK_DEFAULTS)
            check_relations(inputs)
            layers = config_of(inputs).layers if is_transformer(inputs.network) else None
        except PlannerInputError as error:
            self._refuse(error.parameter or NON_FIELD_ERRORS, str(error))
            return cleaned
        for name, messages in relation_errors(inputs, layers).items():
            self._refuse(name, *messages)
        cleaned["inputs"] = inputs
        return cleaned

    def _refuse(self, parameter: str, *messages: str) -> None:
        """An error keyed by the parameter to change, a field or not (the API's 400 shape)."""
        self._errors[parameter] = self.error_class(list(messages))

    def query(self) -> dict[str, Any]:
        """The cleaned values that were given, for machine.merged."""
        return {
            name: value
            for name, value in self.cleaned_data.items()
            if name not in ("strategy", "inputs") and value not in (None, "")
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
