"""The model family of a planner network, as the calibration fits the efficiency per family:
the survey's layer tables are CNNs ("cnn"), BERT-like transformers (token types, pooler) are
"encoder", every other transformer (GPT, Llama, mixtures of experts, a custom one) "decoder".
LoRA fine-tuning ("lora") is a training mode, not a network: the planner has none yet."""

from __future__ import annotations

from explorer.workloads.transformers.shapes import PRESETS, is_transformer


def model_family(network: str) -> str:
    if not is_transformer(network):
        return "cnn"
    preset = PRESETS.get(network)
    if preset is None:
        return "decoder"
    if getattr(preset.config, "lora_rank", 0):  # a frozen base with adapters
        return "lora"
    return "encoder" if preset.config.encoder_extras else "decoder"
