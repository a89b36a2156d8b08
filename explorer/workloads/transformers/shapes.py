"""Transformer networks from their configuration (after the survey): sourced presets, parameter
counts, training FLOPs as Megatron-LM 2021 counts them, and activation memory per layer as
Korthikanti et al. (2022) give it. Pure: numbers in, numbers out; no ORM, no request.

Every figure of a preset carries where it comes from: a URL, or "unconfirmed: ..." saying where
it was read when no stored source shows it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .config import Preset, TransformerConfig, _unconfirmed
from .mlperf import PRESETS as MLPERF_PRESETS

# Megatron-LM's 2021 paper (Narayanan et al., SC21, arXiv 2104.04473), its FLOPs formula.
MEGATRON_2021 = "https://arxiv.org/abs/2104.04473"
MEGATRON_README = (
    "https://github.com/NVIDIA/Megatron-LM/blob/145d2eb947a614fdf81e73efd0cf417c1bc5ac94/README.md"
    " (Megatron-LM README: vocabulary 51,200, sequence 2048, up to 3072 A100 GPUs for the "
    "largest model)"
)
GPT3_PAGE = "https://labindex.ai/outputs/openai/gpt-3"
# The authors' repository: "BERT-Large, Uncased: 24-layer, 1024-hidden, 16-heads, 340M
# parameters", released models "trained with sequence lengths up to 512".
BERT_PAGE = (
    "https://github.com/google-research/bert/blob/04f9e5d15d85f85a8deff9f53442b8a54abab5ea/"
    "README.md"
)
GPT2_PAGE = (
    "http://www.renenyffenegger.ch/notes/development/Artificial-intelligence/language-model/"
    "LLM/GPT/2"
)
# The abstract names the sizes ("from 7 billion to 70 billion parameters"); a link the page follows.
LLAMA2_PAPER = "https://arxiv.org/abs/2307.09288"
LLAMA2_TABLE = (
    "https://arxiv.org/abs/2307.09288 (the Llama 2 paper, Table 1; its text read at "
    "http://proyectodescartes.org/iCartesiLibri/materiales_didacticos/IA2024/docs/llama2/6.html)"
)
# Hugging Face's LlamaConfig, documented against the meta-llama/Llama-2-7b-hf checkpoint: its
# defaults are that model's shape (vocabulary 32,000, hidden 4096, MLP 11,008, 32 layers, 32 heads).
LLAMA2_7B_SHAPES = (
    "https://github.com/huggingface/transformers/blob/008e574391258935f3ecc3035c882e73bbcac419/"
    "src/transformers/models/llama/configuration_llama.py"
)
# Llama 3.1 (Meta, July 2024): the model card in the authors' repository (the sizes 8B, 70B and
# 405B, "~15 trillion tokens") and the reference implementation's shapes (dim, n_layers, n_heads,
# n_kv_heads, vocab_size 128,256, ffn_dim_multiplier, multiple_of) in its model list.
LLAMA31_CARD = (
    "https://github.com/meta-llama/llama-models/blob/1b5892739868e5333fb7f022ba91218f0ae5f9c2/"
    "models/llama3_1/MODEL_CARD.md"
)
LLAMA31_SHAPES = (
    "https://github.com/meta-llama/llama-models/blob/d13eea5ec039baa48b5f0fa3641692a45b639da7/"
    "models/llama3_1/api/sku_list.py"
)
LLAMA3_PAPER = "https://arxiv.org/abs/2407.21783"


def _llama31_ffn(multiplier: str, multiple_of: int) -> str:
    return (
        f"derived by us from {LLAMA31_SHAPES} (ffn_dim_multiplier {multiplier}, multiple_of "
        f"{multiple_of}) by the reference FeedForward's rule: int(2·4·dim/3), times the "
        "multiplier, rounded up to the multiple"
    )


DEEPSPEED_MOE = (
    "https://github.com/microsoft/DeepSpeed/blob/master/docs/_posts/2021-12-09-deepspeed-moe-nlg.md"
)


BERT = TransformerConfig(24, 1024, 16, 512, 30522, encoder_extras=True)
GPT2_XL = TransformerConfig(48, 1600, 25, 1024, 50257)
GPT3 = TransformerConfig(96, 12288, 96, 2048, 50257)
MEGATRON_1T = TransformerConfig(128, 25600, 160, 2048, 51200)
LLAMA = {"gated": True, "bias": False, "tied": False, "learned_positions": False}
LLAMA2_7B = TransformerConfig(32, 4096, 32, 4096, 32000, ffn_hidden=11008, **LLAMA)
LLAMA2_70B = TransformerConfig(80, 8192, 64, 4096, 32000, ffn_hidden=28672, kv_heads=8, **LLAMA)
LLAMA31_8B = TransformerConfig(32, 4096, 32, 8192, 128256, ffn_hidden=14336, kv_heads=8, **LLAMA)
LLAMA31_405B = TransformerConfig(
    126, 16384, 128, 8192, 128256, ffn_hidden=53248, kv_heads=8, **LLAMA
)
MOE_52B = TransformerConfig(24, 2048, 16, 2048, 50257, experts=128, top_k=1, expert_interval=2)

MIXED_ADAM = {"precision": "bf16-mixed", "optimizer": "adam"}
# Both Llama 2 sizes trained alike (the paper's Table 1): 4M tokens a batch, 2.0T tokens.
LLAMA2_TRAINING = {"batch": 1024, "micro_batch_size": 1, "tokens": 2e12, **MIXED_ADAM}
LLAMA2_TRAINING_SOURCES = {
    "batch": LLAMA2_TABLE + " (4M tokens per batch = 1024 sequences of 4096)",
    "tokens": LLAMA2_TABLE + " (2.0T tokens)",
}
EXAMPLE = "example value (not from the paper)"
LLAMA31_TRAINING = {"micro_batch_size": 1, "tokens": 15e12, **MIXED_ADAM}
LLAMA31_SEQUENCE = _unconfirmed(
    "8192, the Llama 3 paper's pre-training sequence length after its first stage "
    "(arXiv 2407.21783 §3.4.1, not read on a stored page)"
)


def _llama31_sources(ffn: str) -> dict[str, str]:
    shapes = {name: LLAMA31_SHAPES for name in ("layers", "hidden", "heads", "kv_heads", "vocab")}
    return {**shapes, "ffn_hidden": ffn, "seq_len": LLAMA31_SEQUENCE}


PRESETS: dict[str, Preset] = {
    p.slug: p
    for p in (
        Preset(
            "bert-large",
            "BERT-Large (Devlin et al. 2019)",
            BERT,
            "",
            "https://arxiv.org/abs/1810.04805",
            340e6,
            "Total Parameters=340M",
            BERT_PAGE,
            sources={
                "layers": BERT_PAGE,
                "hidden": BERT_PAGE,
                "heads": BERT_PAGE,
                "seq_len": BERT_PAGE + " (sequence lengths up to 512)",
                "vocab": _unconfirmed("30,522 WordPiece tokens, BERT's released vocabulary"),
            },
            defaults={"batch": 256, "micro_batch_size": 8, **MIXED_ADAM},
            defaults_sources={"batch": _unconfirmed("BERT's pre-training batch of 256 sequences")},
        ),
        Preset(
            "gpt2-xl",
            "GPT-2 XL, 1.5B (Radford et al. 2019)",
            GPT2_XL,
            "",
            "https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf",
            1558e6,
            "1558M (the released model's name; the paper's Table 2 says 1542M, unconfirmed here)",
            GPT2_PAGE,
            sources={name: GPT2_PAGE for name in ("layers", "hidden", "heads", "seq_len", "vocab")},
            defaults={"batch": 512, "micro_batch_size": 4, **MIXED_ADAM},
            defaults_sources={"batch": "https://paperswithcode.com/method/gpt-2 (batch size 512)"},
        ),
        Preset(
            "gpt3-175b",
            "GPT-3 175B (Brown et al. 2020)",
            GPT3,
            "",
            "https://arxiv.org/abs/2005.14165",
            175e9,
            "175B parameters",
            GPT3_PAGE,
            sources={
                "layers": GPT3_PAGE,
                "hidden": GPT3_PAGE,
                "heads": GPT3_PAGE,
                "seq_len": GPT3_PAGE,
                "vocab": _unconfirmed("GPT-2's 50,257 tokens, which GPT-3 reuses"),
            },
            defaults={"batch": 1536, "micro_batch_size": 1, "tokens": 300e9, **MIXED_ADAM},
            defaults_sources={
                "tokens": GPT3_PAGE + " (300B tokens)",
                "batch": _unconfirmed("1536, the batch of Megatron-LM 2021's GPT-3 estimate §5.1"),
            },
            paper_figures={
                "time_to_train_days": 34,
                "time_to_train_text": _unconfirmed(
                    "Narayanan et al. 2021 §5.1 estimate: 34 days on 1024 A100 GPUs at "
                    "140 teraFLOP/s per GPU, batch 1536, 300B tokens (from the issue's brief "
                    "and our reading; no stored page shows it)"
                ),
                "P": 1024,
            },
        ),
        Preset(
            "megatron-1t",
            "Megatron-LM 2021's largest GPT, 1T (Narayanan et al. 2021, Table 1)",
            MEGATRON_1T,
            "narayanan2021efficient",
            MEGATRON_2021,
            1e12,
            "1 trillion parameters (the paper's Table 1 gives 1008B, unconfirmed here)",
            "https://redlib.fmhy.net/r/mlscaling/search?q=flair_name%3A%22Hardware%2C+Code%2C+R%2C+NV%2C+T%22&restrict_sr=on",
            sources={
                "layers": _unconfirmed("128, arXiv 2104.04473 Table 1 as the issue gives it"),
                "hidden": _unconfirmed("25,600, arXiv 2104.04473 Table 1 as the issue gives it"),
                "heads": _unconfirmed("160, arXiv 2104.04473 Table 1 as the issue gives it"),
                "seq_len": MEGATRON_README,
                "vocab": MEGATRON_README,
            },
            defaults={
                "batch": 3072,
                "micro_batch_size": 1,
                "P": 3072,
                "tokens": 450e9,
                **MIXED_ADAM,
            },
            defaults_sources={
                "P": MEGATRON_README,
                "batch": _unconfirmed("3072, Table 1 as the issue gives it"),
                "tokens": _unconfirmed("450B tokens, the paper's §5.1 estimate"),
            },
            paper_figures={
                "time_to_train_days": 84,
                "time_to_train_text": _unconfirmed(
                    "Narayanan et al. 2021 §5.1 estimate: about 84 days on 3072 A100 GPUs at "
                    "163 teraFLOP/s per GPU for 450B tokens (no stored page shows it)"
                ),
                "P": 3072,
                "achieved_flops_per_gpu": 163e12,
                "achieved_flops_text": _unconfirmed("163 teraFLOP/s per GPU, 52% of peak"),
            },
        ),
        Preset(
            "llama2-7b",
            "Llama 2 7B (Touvron et al. 2023)",
            LLAMA2_7B,
            "",
            "https://arxiv.org/abs/2307.09288",
            7e9,
            "7B (the paper's Table 1 names the size to one digit)",
            LLAMA2_PAPER,
            parameters_rounding=0.5 / 7,
            sources={
                "layers": LLAMA2_7B_SHAPES,
                "hidden": LLAMA2_7B_SHAPES,
                "heads": LLAMA2_7B_SHAPES,
                "ffn_hidden": LLAMA2_7B_SHAPES,
                "vocab": LLAMA2_7B_SHAPES,
                "seq_len": LLAMA2_TABLE,
            },
            defaults=LLAMA2_TRAINING,
            defaults_sources=LLAMA2_TRAINING_SOURCES,
        ),
        Preset(
            "llama2-70b",
            "Llama 2 70B, grouped-query attention (Touvron et al. 2023)",
            LLAMA2_70B,
            "",
            "https://arxiv.org/abs/2307.09288",
            70e9,
            "70B",
            LLAMA2_PAPER,
            sources={
                "layers": _unconfirmed("80, the released model's configuration"),
                "hidden": _unconfirmed("8192, the released model's configuration"),
                "heads": _unconfirmed("64, the released model's configuration"),
                "kv_heads": _unconfirmed("8 key/value heads (GQA per the paper's Table 1)"),
                "ffn_hidden": _unconfirmed("28,672, the released model's configuration"),
                "vocab": LLAMA2_TABLE + " (32k tokens)",
                "seq_len": LLAMA2_TABLE,
            },
            defaults=LLAMA2_TRAINING,
            defaults_sources=LLAMA2_TRAINING_SOURCES,
        ),
        Preset(
            "llama3.1-8b",
            "Llama 3.1 8B (Meta 2024)",
            LLAMA31_8B,
            "",
            LLAMA3_PAPER,
            8e9,
            "8B (the model card names the size to one digit)",
            LLAMA31_CARD,
            parameters_rounding=0.5 / 8,
            sources=_llama31_sources(_llama31_ffn("1.3", 1024)),
            defaults={**LLAMA31_TRAINING, "batch": 512},
            defaults_sources={
                "tokens": LLAMA31_CARD + " (~15 trillion tokens)",
                "batch": EXAMPLE,
            },
        ),
        Preset(
            "llama3.1-405b",
            "Llama 3.1 405B (Meta 2024)",
            LLAMA31_405B,
            "",
            LLAMA3_PAPER,
            405e9,
            "405B",
            LLAMA31_CARD,
            parameters_rounding=0.5 / 405,
            sources=_llama31_sources(_llama31_ffn("1.2", 4096)),
            defaults={**LLAMA31_TRAINING, "batch": 2048, "P": 16384},
            defaults_sources={
                "tokens": LLAMA31_CARD + " (~15 trillion tokens)",
                "P": _unconfirmed("16,384 H100 GPUs, the Llama 3 paper §3.3 as the issue gives it"),
                "batch": _unconfirmed(
                    "2048 sequences of 8192 (16M tokens), the Llama 3 paper's last batch size "
                    "as we recall it (§3.4.1)"
                ),
            },
        ),
        Preset(
            "deepspeed-moe-52b",
            "DeepSpeed-MoE 1.3B+MoE-128, 52B (Rajbhandari et al. 2022)",
            MOE_52B,
            "rajbhandari2022deepspeedmoe",
            DEEPSPEED_MOE,
            52e9,
            "1.3B+MoE-128 (52B)",
            DEEPSPEED_MOE,
            sources={
                "layers": DEEPSPEED_MOE,
                "hidden": DEEPSPEED_MOE,
                "heads": DEEPSPEED_MOE,
                "experts": DEEPSPEED_MOE + " (128 experts on every other feed-forward layer)",
                "top_k": DEEPSPEED_MOE + " (top-1)",
                "vocab": _unconfirmed("GPT-2's 50,257 tokens (a GPT-3-like model)"),
                "seq_len": _unconfirmed("2048 (a GPT-3-like model)"),
            },
            defaults={"batch": 256, "micro_batch_size": 1, "P": 128, "tokens": 300e9, **MIXED_ADAM},
            defaults_sources={
                "P": DEEPSPEED_MOE + " (128 A100 GPUs)",
                "tokens": DEEPSPEED_MOE + " (300B tokens)",
                "batch": _unconfirmed("256 sequences, an example value"),
            },
        ),
        *MLPERF_PRESETS,
    )
}

CUSTOM = "transformer"
# The networks a query may name: the presets and a configuration of your own.
NETWORKS: tuple[str, ...] = (*PRESETS, CUSTOM)
CONFIG_INPUTS = (
    "layers",
    "hidden",
    "heads",
    "seq_len",
    "vocab",
    "ffn_hidden",
    "kv_heads",
    "experts",
    "top_k",
    "expert_interval",
    "shared_experts",
    "dense_layers",
    "expert_ffn_hidden",
    "lora_rank",
    "head_dim",
)
# An input whose configuration field has another name (`head_dim` is the effective value).
CONFIG_FIELDS = {"head_dim": "head_size"}
CUSTOM_DEFAULT = GPT2_XL  # `network=transformer` without sizes: GPT-2 XL's shape


def is_transformer(network: str) -> bool:
    return network in NETWORKS


def config_for(network: str, given: dict[str, Any]) -> TransformerConfig:
    """The preset's configuration, or the reader's (`network=transformer`), with any size given
    explicitly applied over it."""
    base = PRESETS[network].config if network in PRESETS else CUSTOM_DEFAULT
    changes: dict[str, Any] = {
        CONFIG_FIELDS.get(name, name): int(given[name])
        for name in CONFIG_INPUTS
        if given.get(name) is not None
    }
    # gated: SwiGLU, three matrices of ffn_hidden; parallel_block: GPT-J's layer
    for switch in ("gated", "parallel_block"):
        if given.get(switch) is not None:
            changes[switch] = bool(given[switch])
    return replace(base, **changes)


def check(config: TransformerConfig) -> tuple[str, str] | None:
    """Why the configuration cannot be built, with the parameter at fault, or None."""
    if config.hidden % config.heads and not config.head_size:
        return (
            f"hidden ({config.hidden}) must be a multiple of heads ({config.heads}), or give "
            "head_dim",
            "heads",
        )
    if config.heads % config.kv:
        return f"heads ({config.heads}) must be a multiple of kv_heads ({config.kv})", "kv_heads"
    if config.top_k > config.experts:
        return f"top_k ({config.top_k}) must be at most experts ({config.experts})", "top_k"
    if config.dense_layers >= config.layers and config.experts > 1:
        return (
            f"dense_layers ({config.dense_layers}) must be fewer than layers ({config.layers}) "
            "for a mixture of experts",
            "dense_layers",
        )
    if config.experts == 1 and (config.shared_experts or config.dense_layers):
        name = "shared_experts" if config.shared_experts else "dense_layers"
        return f"{name} applies to a mixture of experts (experts > 1)", name
    if config.lora_rank > config.hidden:
        return f"lora_rank ({config.lora_rank}) must be at most hidden ({config.hidden})", (
            "lora_rank"
        )
    return None


# Parameters ------------------------------------------------------------------------------------


def attention_layer(config: TransformerConfig) -> float:
    """One layer's attention weights: q, k, v and the output projection (and their biases), or
    the configuration's own count (multi-head latent attention's, `mla_attention`)."""
    if config.attention_parameters:
        return float(config.attention_parameters)
    h, width, kv_width = config.hidden, config.attention_width, config.kv_width
    biases = width + 2 * kv_width + h if config.bias else 0
    return 2 * h * width + 2 * h * kv_width + biases


def mla_attention(
    hidden: int, heads: int, q_rank: int, kv_rank: int, nope: int, rope: int, v: int
) -> int:
    """Multi-head latent attention's weights per layer (DeepSeek-V3's inference/model.py MLA):
    wq_a h·q_rank, q_norm q_rank, wq_b q_rank·heads·(nope + rope), wkv_a h·(kv_rank + rope),
    kv_norm kv_rank, wkv_b kv_rank·heads·(nope + v), wo heads·v·h."""
    query = hidden * q_rank + q_rank + q_rank * heads * (nope + rope)
    key_value = hidden * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v)
    return query + key_value + heads * v * hidden


def adapter_layer(config: TransformerConfig) -> float:
    """LoRA's trainable values per layer: r·(in + out) for the fused qkv projection (in h, out
    a·d + 2·kv width) and the output projection (a·d to h): r·(2h + 2·a·d + 2·kv width), which
    is r·(4h + 2·kv width) when a·d = h."""
    if not config.frozen:
        return 0.0
    widths = 2 * config.hidden + 2 * config.attention_width + 2 * config.kv_width
    return float(config.lora_rank * widths)


def _mlp(config: TransformerConfig, ffn: int) -> float:
    matrices = 3 if config.gated else 2
    return matrices * config.hidden * ffn + ((ffn + config.hidden) if config.bias else 0)


def parameter_parts(config: TransformerConfig) -> dict[str, float]:
    """Parameters by part: the weights and biases of every matrix, the norms, the embeddings;
    `shared_experts` and `adapters` (LoRA's, trainable) only where the configuration has them."""
    h = config.hidden
    # Two norms a layer (LayerNorm: a gain and a bias each), one in a parallel block
    norms = (2 if config.bias else 1) * h * (1 if config.parallel_block else 2)
    dense_layers = config.layers - config.moe_layers
    expert = _mlp(config, config.expert_ffn)
    expert_layer = config.experts * expert + h * config.experts  # the routed experts, the router
    embedding = config.vocab * h * (1 if config.tied else 2)
    positions = config.seq_len * h if config.learned_positions else 0
    final_norm = (2 if config.bias else 1) * h
    extras = (2 * h + 2 * h + h * h + h) if config.encoder_extras else 0
    parts = {
        "attention": config.layers * attention_layer(config),
        "mlp": dense_layers * _mlp(config, config.ffn),
        "experts": config.moe_layers * expert_layer,
        "norms": config.layers * norms + final_norm,
        "embedding": embedding + positions + extras,
    }
    if config.moe_layers and config.shared_experts:
        parts["shared_experts"] = config.moe_layers * config.shared_experts * expert
    if config.frozen:
        parts["adapters"] = config.layers * adapter_layer(config)
    return parts


def parameters(config: TransformerConfig) -> float:
    return float(sum(parameter_parts(config).values()))


def trainable_parameters(config: TransformerConfig) -> float:
    """The parameters that take gradients: LoRA's adapters, or all."""
    return parameter_parts(config)["adapters"] if config.frozen else parameters(config)


def layer_parameters(config: TransformerConfig) -> dict[str, float]:
    """One layer's parameters: `active` (what one token goes through: the shared and top_k of the
    routed experts of a MoE layer, averaged over the layers) and `largest` (the largest layer,
    all its experts)."""
    parts = parameter_parts(config)
    shared = parts.get("shared_experts", 0.0)
    block = parts["attention"] + parts["mlp"] + parts["experts"] + shared + parts["norms"]
    mlp_one = parts["mlp"] / max(config.layers - config.moe_layers, 1)
    if config.moe_layers:
        expert_one = parts["experts"] / config.moe_layers / config.experts
        active_mlp = parts["mlp"] + config.moe_layers * config.top_k * expert_one + shared
        moe_one = config.experts * expert_one + shared / config.moe_layers
    else:
        active_mlp, moe_one = parts["mlp"], 0.0
    attention_one = parts["attention"] / config.layers
    active = (parts["attention"] + active_mlp) / config.layers
    largest = attention_one + max(moe_one, mlp_one if config.layers > config.moe_layers else 0)
    return {"block": block, "active": active, "largest": largest}


# Compute ---------------------------------------------------------------------------------------

RECOMPUTE = ("none", "selective", "full")
# Forward passes a training step runs: (the layers' matrix products, the attention core).
PASSES = {"none": (3, 3), "selective": (3, 4), "full": (4, 4)}


def flops_values(config: TransformerConfig, batch: float, recompute: str) -> dict[str, float]:
    """The variables of the catalogue's generalised FLOPs formula (`transformer.flops`)."""
    linear, core = PASSES[recompute]
    # The attention core's 4·B·s²·h is 4·B·s²·a·d: a head_dim other than h/a scales it, carried
    # by n (its passes) so that the catalogue's formula stays one (n = passes · a·d/h).
    width = config.attention_width / config.hidden
    return {
        "B": float(batch),
        "s": float(config.seq_len),
        "l": float(config.layers),
        "h": float(config.hidden),
        "V": float(config.vocab),
        "p": layer_parameters(config)["active"],
        "m": float(linear),
        "n": float(core) * width,
    }


def active_parameters(config: TransformerConfig) -> float:
    """Parameters one token goes through: everything but the experts it is not routed to."""
    parts = parameter_parts(config)
    layer = layer_parameters(config)
    return (
        layer["active"] * config.layers
        + parts["embedding"]
        + parts["norms"]
        + parts.get("adapters", 0.0)
    )
