"""A transformer beside its paper: its configuration, parameters (counted from the configuration),
FLOPs per step (the catalogue's generalised formula, Megatron-LM 2021's where it applies, the
6·N·D rule) and the paper's stated figures with their sources. Pure: numbers in, dicts out."""

from __future__ import annotations

from typing import Any

from explorer.workloads.agreement import TOLERANCE, within_tolerance
from explorer.workloads.formulas import Derivation, Formulas, evaluate, number_text
from explorer.workloads.network_model import StepFlops
from explorer.workloads.transformers.shapes import (
    CUSTOM,
    PRESETS,
    Preset,
    TransformerConfig,
    active_parameters,
    attention_layer,
    flops_values,
    parameter_parts,
    parameters,
    trainable_parameters,
)

from ..machine import Inputs
from ..shape import Comparison, NetworkTotals

LORA_NOTE = (
    " LoRA, the base frozen (lora-frozen-base): the value is 2·B·s·l·(p·(m − 1) + p_a·m) + "
    "4·B·s²·h·l·n + 4·B·s·h·V, p_a the adapters of a layer; the values shown are the formula's "
    "for full training. The 6·N·D rule below counts full training."
)
# The recomputation a preset's source states is the preset's; elsewhere selective, which the
# search may change when the query leaves it free (`recompute_free`, read by machine.parse).
NETWORK_DEFAULTS = {
    slug: {"recompute": "selective", "recompute_free": "recompute" not in preset.defaults}
    | preset.defaults
    for slug, preset in PRESETS.items()
}
NETWORK_DEFAULTS[CUSTOM] = {
    "precision": "bf16-mixed",
    "optimizer": "adam",
    "recompute": "selective",
    "recompute_free": True,
}


def _megatron_role(inputs: Inputs, config: TransformerConfig) -> str | None:
    """Megatron-LM 2021's formula, for a GPT layer only (no SwiGLU, grouped-query attention or
    experts)."""
    if config.gated or config.kv != config.heads or config.moe_layers:
        return None
    if inputs.recompute == "full":
        return "transformer.flops.megatron_full"
    return "transformer.flops.megatron"


def _flops_derivations(
    inputs: Inputs, config: TransformerConfig, formulas: Formulas, flops: StepFlops
) -> list[Derivation]:
    """Training FLOPs per step three ways: the catalogue's formula over the network model's
    layers (what the plan uses), the 6·N·D rule and, for a GPT layer, Megatron-LM 2021's."""
    values = flops_values(config, inputs.batch, inputs.transformer_recompute)
    record, rule = formulas["transformer.flops"], formulas["transformer.six_nd"]
    six_values = {"N": active_parameters(config), "D": float(inputs.batch * config.seq_len)}
    derivations = [
        Derivation(
            "training FLOPs per step",
            flops.hardware,
            "FLOPs",
            record.formula,
            "",
            [record],
            values=values,
            note=f"Recomputation {inputs.recompute}; model FLOPs (no recomputation) "
            f"{number_text(flops.model)}." + (LORA_NOTE if config.frozen else ""),
        ),
        Derivation(
            "6·N·D rule",
            float(evaluate(rule, six_values)),
            "FLOPs",
            rule.formula,
            "",
            [rule],
            values=six_values,
            note="N: the parameters a token goes through; D: the tokens of one step.",
        ),
    ]
    role = _megatron_role(inputs, config)
    if role is not None:
        megatron_values = {k: values[k] for k in "BslhV"}
        derivations.append(
            Derivation(
                "FLOPs per iteration (Megatron-LM 2021)",
                float(evaluate(formulas[role], megatron_values)),
                "FLOPs",
                formulas[role].formula,
                "",
                [formulas[role]],
                values=megatron_values,
            )
        )
    return derivations


def _comparison(preset: Preset | None, config: TransformerConfig) -> list[Comparison]:
    if preset is None:
        return []
    computed = {
        "parameters": parameters(config),
        "adapters": trainable_parameters(config),
        "active_parameters": active_parameters(config),
    }
    stated = {
        "parameters": (preset.parameters_stated, preset.parameters_text, preset.parameters_source)
    } | preset.counts
    rows: list[Comparison] = []
    for quantity, (figure, text, source) in stated.items():
        ours = computed[quantity]
        difference = (ours - figure) / figure
        # The total's stated rounding; an active count stated to whole billions (DeepSeek-V3's
        # "37B"); a derived count (LoRA's adapters) exact.
        rounding = {"parameters": preset.parameters_rounding}.get(quantity, 0.0)
        if quantity == "active_parameters":
            rounding = 0.5e9 / figure
        rows.append(
            {
                "quantity": quantity,
                "computed": ours,
                "paper": figure,
                "paper_text": text,
                "source": source,
                "relative_difference": difference,
                "within_tolerance": bool(within_tolerance(difference, rounding)),
                "reason": "Counted from the configuration with every bias and norm; the paper "
                "rounds.",
            }
        )
    return rows


def _config(config: TransformerConfig) -> dict[str, Any]:
    return {
        "layers": config.layers,
        "hidden": config.hidden,
        "heads": config.heads,
        "kv_heads": config.kv,
        "seq_len": config.seq_len,
        "vocab": config.vocab,
        "ffn_hidden": config.ffn,
        "experts": config.experts,
        "top_k": config.top_k,
        "expert_interval": config.expert_interval,
        "gated": config.gated,
        "shared_experts": config.shared_experts,
        "dense_layers": config.dense_layers,
        "expert_ffn_hidden": config.expert_ffn,
        "lora_rank": config.lora_rank,
        "attention_parameters": attention_layer(config),
    }


def _paper(preset: Preset | None) -> dict[str, Any]:
    return {
        "work": preset.work if preset else "",
        "url": preset.paper_url if preset else "",
        "parameters": preset.parameters_stated if preset else None,
        "parameters_text": preset.parameters_text if preset else "",
        "sources": preset.sources if preset else {},
        "defaults_sources": preset.defaults_sources if preset else {},
        "figures": preset.paper_figures if preset else {},
    }


def _changed(preset: Preset | None, config: TransformerConfig) -> dict[str, tuple[Any, Any]]:
    """The sizes given over a preset's: name -> (the preset's, the given)."""
    if preset is None:
        return {}
    ours, theirs = _config(config), _config(preset.config)
    # Figures derived from others (an expert's MLP from ffn_hidden, attention weights from the
    # heads) change with them; only their own given values count as changed.
    derived = ("expert_ffn_hidden", "attention_parameters")
    same = {n for n in derived if getattr(config, n) == getattr(preset.config, n)}
    return {
        name: (theirs[name], ours[name])
        for name in ours
        if ours[name] != theirs[name] and name not in same
    }


def _named(preset: Preset | None, changed: dict[str, tuple[Any, Any]]) -> str:
    if preset is None:
        return "Transformer of your configuration"
    if not changed:
        return preset.name
    sizes = ", ".join(f"{name} {new} (not {old})" for name, (old, new) in changed.items())
    return f"Transformer of your configuration: {preset.name} with {sizes}"


def _paper_of(preset: Preset | None, changed: dict[str, tuple[Any, Any]]) -> dict[str, Any]:
    """The paper's figures, or, for a preset whose sizes were changed, only the sources of the
    sizes kept and the training defaults: its count and figures are another model's."""
    paper = _paper(preset)
    if preset is None or not changed:
        return paper
    kept = {name: url for name, url in preset.sources.items() if name not in changed}
    return paper | {"parameters": None, "parameters_text": "", "sources": kept, "figures": {}}


def network_document(
    inputs: Inputs, config: TransformerConfig, formulas: Formulas, flops: StepFlops
) -> NetworkTotals:
    """The network's totals as the plan shows them, beside its paper."""
    preset = PRESETS.get(inputs.network)
    changed = _changed(preset, config)
    total = parameters(config)
    counted = Derivation(
        "parameters",
        total,
        "values",
        "Σ attention, MLP (experts), norms and embeddings of the configuration",
        ", ".join(f"{k} {number_text(v)}" for k, v in parameter_parts(config).items()),
        note="Counted from the configuration (not a cost model).",
    )
    derived = _flops_derivations(inputs, config, formulas, flops)
    six = derived[1]
    megatron = derived[2].value if len(derived) > 2 else None
    document: dict[str, Any] = {
        "slug": inputs.network,
        "name": _named(preset, changed),
        "kind": "transformer",
        "config": _config(config),
        "parameters": total,
        "active_parameters": active_parameters(config),
        "parameter_parts": parameter_parts(config),
        "flops_per_step": flops.hardware,
        "model_flops_per_step": flops.model,
        "megatron_flops_per_step": megatron,
        "six_nd_flops_per_step": six.value,
        "tokens_per_step": inputs.batch * config.seq_len,
        "batch": inputs.batch,
        "seq_len": config.seq_len,
        "paper": _paper_of(preset, changed),
        "comparison": [] if changed else _comparison(preset, config),
        "trainable_parameters": trainable_parameters(config),
        "tolerance": TOLERANCE,
        "derivations": [d.as_dict() for d in [counted, *derived]],
        "cost_models": [s.reference() for d in derived for s in d.sources],
    }
    return document  # type: ignore[return-value]
