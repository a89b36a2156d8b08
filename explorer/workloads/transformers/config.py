"""A transformer's configuration and a sourced preset of one (the dataclasses transformer.py and
transformer_mlperf.py share). Pure: no ORM, no request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# LoRA's adapted projections (MLPerf's llama2_70b_lora: "qkv_proj,o_proj"): a rank-r pair A (r×in)
# and B (out×r) beside each; the base weights frozen.
LORA_TARGETS = ("qkv", "o")


@dataclass(frozen=True)
class TransformerConfig:
    """A transformer's shape. `experts` > 1 makes every `expert_interval`-th layer after the first
    `dense_layers` a mixture-of-experts layer (each token routed to `top_k` of the experts, and
    through the `shared_experts` every token takes). `lora_rank` > 0: the base is frozen and only
    rank-r adapters beside the attention's qkv and output projections train (LoRA)."""

    layers: int
    hidden: int
    heads: int
    seq_len: int
    vocab: int
    ffn_hidden: int = 0  # 0: 4·hidden
    kv_heads: int = 0  # 0: heads (no grouped-query attention)
    experts: int = 1
    top_k: int = 1
    expert_interval: int = 1
    gated: bool = False  # SwiGLU: three matrices in the MLP instead of two
    bias: bool = True  # biases in the linear layers and LayerNorm (not RMSNorm)
    tied: bool = True  # the output layer shares the input embedding
    learned_positions: bool = True
    encoder_extras: bool = False  # BERT: token types, embedding LayerNorm and pooler
    shared_experts: int = 0  # experts every token goes through (DeepSeek-V3: 1)
    dense_layers: int = 0  # the first layers keep a dense MLP (DeepSeek-V3: 3)
    expert_ffn_hidden: int = 0  # an expert's MLP hidden size (0: ffn_hidden)
    attention_parameters: int = 0  # one layer's attention weights when not from the heads (MLA)
    lora_rank: int = 0  # 0: no adapters, every weight trains
    head_size: int = 0  # values per attention head (the `head_dim` input; 0: hidden/heads)
    # GPT-J's parallel block (also GPT-NeoX's and PaLM's): attention and MLP read the same
    # normalised input and their outputs are added to the residual together (one layer norm)
    parallel_block: bool = False

    @property
    def ffn(self) -> int:
        return self.ffn_hidden or 4 * self.hidden

    @property
    def expert_ffn(self) -> int:
        return self.expert_ffn_hidden or self.ffn

    @property
    def kv(self) -> int:
        return self.kv_heads or self.heads

    @property
    def head_dim(self) -> float:
        return self.head_size or self.hidden / self.heads

    @property
    def attention_width(self) -> float:
        """The queries' (and the attention output's) width: heads · head_dim (hidden unless
        head_dim is set otherwise)."""
        return self.heads * self.head_dim

    @property
    def kv_width(self) -> float:
        """One of the keys' or values' width: kv_heads · head_dim."""
        return self.kv * self.head_dim

    @property
    def moe_layers(self) -> int:
        if self.experts <= 1:
            return 0
        return max(self.layers - self.dense_layers, 0) // self.expert_interval

    @property
    def frozen(self) -> bool:
        """LoRA: the base's weights take no gradient and keep no optimizer state."""
        return self.lora_rank > 0


@dataclass(frozen=True)
class Preset:
    slug: str
    name: str
    config: TransformerConfig
    work: str  # BibTeX key in the catalogue, or "" when the paper is not a work of ours
    paper_url: str
    parameters_stated: float
    parameters_text: str
    parameters_source: str
    parameters_rounding: float = 0.0  # the stated figure's half unit of its last digit, relative
    sources: dict[str, str] = field(default_factory=dict)  # config figure -> URL or status
    defaults: dict[str, Any] = field(default_factory=dict)  # training inputs the paper states
    defaults_sources: dict[str, str] = field(default_factory=dict)
    paper_figures: dict[str, Any] = field(default_factory=dict)  # e.g. time to train
    # Further counts beside their sources (LoRA's adapters, DeepSeek-V3's active parameters):
    # name -> (stated or derived figure, its text, its source)
    counts: dict[str, tuple[float, str, str]] = field(default_factory=dict)


def _unconfirmed(where: str) -> str:
    return f"unconfirmed: {where}"
