"""Presets of MLPerf Training's language models (GPT-3 175B as MLCommons' reference configures it,
Llama 2 70B with LoRA) and DeepSeek-V3, each figure with the file it was read in: MLCommons'
training repository and DeepSeek's own, at pinned commits. Pure data; transformer.py lists them
beside the others."""

from __future__ import annotations

from .config import Preset, TransformerConfig, _unconfirmed

MLCOMMONS = "https://github.com/mlcommons/training/blob/aa344c7fb900e82ed19fb94aebfed50c63ab2204/"
# MLCommons' GPT-3 reference (Megatron-LM), now under retired_benchmarks/: its launch script sets
# --num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048, micro-batch 1,
# GBS 1536 by default, tp 8 and pp 8 with sequence parallelism and recomputed activations; its
# README gives the vocabulary (the GPT-2 BPE files' 50,257) and names the model "GPT-3 175B".
GPT3_SCRIPT = MLCOMMONS + "retired_benchmarks/gpt3/megatron-lm/run_gpt3.sh"
GPT3_README = MLCOMMONS + "retired_benchmarks/gpt3/megatron-lm/README.md"
# MLCommons' LoRA reference: --max_seq_len 8192, --lora_r 16, --lora_target_modules
# "qkv_proj,o_proj", per-device batch 1, gradient checkpointing, flash attention, bf16, and 8
# processes with DeepSpeed ZeRO stage 3 (configs/default_config.yaml).
LORA_SCRIPT = MLCOMMONS + "llama2_70b_lora/run_llama_70B_scrolls_r16.sh"
LORA_ACCELERATE = MLCOMMONS + "llama2_70b_lora/configs/default_config.yaml"
LORA_PAPER = "https://arxiv.org/abs/2106.09685"
LLAMA2_PAPER = "https://arxiv.org/abs/2307.09288"
DEEPSEEK = (
    "https://github.com/deepseek-ai/DeepSeek-V3/blob/9b4e9788e4a3a731f7567338ed15d3ec549ce03b/"
)
DEEPSEEK_CONFIG = DEEPSEEK + "inference/configs/config_671B.json"
DEEPSEEK_MODEL = DEEPSEEK + "inference/model.py"
DEEPSEEK_README = DEEPSEEK + "README.md"
DEEPSEEK_REPORT = "https://arxiv.org/abs/2412.19437"

GPT3_MLPERF = TransformerConfig(96, 12288, 96, 2048, 50257)
LLAMA = {"gated": True, "bias": False, "tied": False, "learned_positions": False}
LLAMA2_70B_LORA = TransformerConfig(
    80, 8192, 64, 8192, 32000, ffn_hidden=28672, kv_heads=8, lora_rank=16, **LLAMA
)
# DeepSeek-V3's multi-head latent attention (q_lora_rank 1536, kv_lora_rank 512, qk_nope 128,
# qk_rope 64, v_head 128, 128 heads): mla_attention's count of its projections, 187,107,328 per
# layer (norms included).
DEEPSEEK_MLA = 187_107_328
DEEPSEEK_V3 = TransformerConfig(
    61,
    7168,
    128,
    4096,
    129280,
    ffn_hidden=18432,
    experts=256,
    top_k=8,
    shared_experts=1,
    dense_layers=3,
    expert_ffn_hidden=2048,
    attention_parameters=DEEPSEEK_MLA,
    **LLAMA,
)
MLA_NOTE = (
    "multi-head latent attention approximated: its projections' weights counted exactly "
    "(mla_attention over the config's q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, "
    "qk_rope_head_dim 64, v_head_dim 128; each weight used once per token), its attention core "
    "(the s² term) and its activations as a multi-head core of the hidden width 7168 (MLA's "
    "query/key heads are 192 wide and its value heads 128: the core's FLOPs are under-counted "
    "by a factor 20,480/7,168 ≈ 2.9)"
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        "gpt3-175b-mlperf",
        "GPT-3 175B in MLPerf Training's configuration (MLCommons' reference)",
        GPT3_MLPERF,
        "",
        GPT3_README,
        175e9,
        "GPT-3 175B (the reference's README and script name the model so)",
        GPT3_README,
        parameters_rounding=0.5 / 175,
        sources={
            "layers": GPT3_SCRIPT + " (--num-layers 96)",
            "hidden": GPT3_SCRIPT + " (--hidden-size 12288)",
            "heads": GPT3_SCRIPT + " (--num-attention-heads 96)",
            "seq_len": GPT3_SCRIPT + " (--seq-length 2048)",
            "vocab": GPT3_README
            + " (vocab size 50257; Megatron pads it to a multiple of 128·tp when it builds the "
            "embedding, not counted here)",
        },
        defaults={
            "batch": 1536,
            "micro_batch_size": 1,
            "precision": "bf16-mixed",
            "optimizer": "adam",
        },
        defaults_sources={
            "batch": GPT3_SCRIPT + " (GBS default 1536)",
            "micro_batch_size": GPT3_SCRIPT + " (--micro-batch-size 1)",
        },
    ),
    Preset(
        "llama2-70b-lora",
        "Llama 2 70B with LoRA, MLPerf Training's llama2_70b_lora (MLCommons' reference)",
        LLAMA2_70B_LORA,
        "",
        LORA_SCRIPT,
        70e9,
        "70B, the frozen base (Llama 2's Table 1 names the size)",
        LLAMA2_PAPER,
        parameters_rounding=0.5 / 70,
        sources={
            "layers": _unconfirmed("80, the released Llama 2 70B's configuration"),
            "hidden": _unconfirmed("8192, the released Llama 2 70B's configuration"),
            "heads": _unconfirmed("64, the released Llama 2 70B's configuration"),
            "kv_heads": _unconfirmed("8 key/value heads (GQA per the Llama 2 paper's Table 1)"),
            "ffn_hidden": _unconfirmed("28,672, the released Llama 2 70B's configuration"),
            "vocab": LLAMA2_PAPER + " (Table 1: 32k tokens)",
            "seq_len": LORA_SCRIPT + " (--max_seq_len 8192)",
            "lora_rank": LORA_SCRIPT + ' (--lora_r 16, --lora_target_modules "qkv_proj,o_proj")',
        },
        defaults={
            "batch": 8,
            "micro_batch_size": 1,
            "P": 8,
            "precision": "bf16-mixed",
            "optimizer": "adam",
            "recompute": "full",
            "attention": "flash",
            "zero": 3,
        },
        defaults_sources={
            "batch": LORA_SCRIPT + " (--per_device_train_batch_size 1 on 8 processes, "
            "--gradient_accumulation_steps 1)",
            "P": LORA_ACCELERATE + " (num_processes: 8)",
            "zero": LORA_ACCELERATE + " (zero_stage: 3)",
            "recompute": LORA_SCRIPT + " (--use_gradient_checkpointing True)",
            "attention": LORA_SCRIPT + " (--use_flash_attn)",
        },
        counts={
            "adapters": (
                44_564_480,
                "44,564,480 trainable (derived: 80 layers × 16·(4·8192 + 2·1024))",
                LORA_SCRIPT + " (rank 16 on qkv_proj and o_proj); the count derived by us",
            ),
        },
    ),
    Preset(
        "deepseek-v3",
        "DeepSeek-V3, 671B total and 37B active (DeepSeek-AI 2024)",
        DEEPSEEK_V3,
        "deepseekai2024deepseekv3",
        DEEPSEEK_REPORT,
        671e9,
        "671B total parameters (the main model; 685B with the multi-token prediction module)",
        DEEPSEEK_README,
        parameters_rounding=0.5 / 671,
        sources={
            **{
                name: DEEPSEEK_CONFIG
                for name in (
                    "layers",
                    "hidden",
                    "heads",
                    "vocab",
                    "ffn_hidden",
                    "experts",
                    "top_k",
                    "shared_experts",
                    "dense_layers",
                    "expert_ffn_hidden",
                )
            },
            "attention_parameters": DEEPSEEK_CONFIG + "; " + DEEPSEEK_MODEL + ": " + MLA_NOTE,
            "seq_len": DEEPSEEK_MODEL + " (original_seq_len 4096, the length before YaRN's "
            "extension)",
            "multi-token prediction": "not modelled (its 14B parameters and its extra FLOPs)",
        },
        defaults={
            "batch": 3840,
            "micro_batch_size": 1,
            "P": 2048,
            "tokens": 14.8e12,
            "precision": "bf16-mixed",
            "optimizer": "adam",
        },
        defaults_sources={
            "tokens": DEEPSEEK_README + " (pre-training on 14.8T tokens)",
            "P": _unconfirmed("2,048 H800 GPUs, the technical report §3.1 as the issue gives it"),
            "batch": _unconfirmed(
                "3,840 sequences of 4096 (15.36M tokens), the report's final batch as we recall "
                "it (§4.2)"
            ),
            "precision": "bf16-mixed by default, so that a machine without an FP8 peak can run "
            "it; DeepSeek-V3 trained in FP8 mixed precision (" + DEEPSEEK_README + "): choose "
            "precision=fp8 on a device with an FP8 peak",
        },
        paper_figures={
            "gpu_hours": 2.788e6,
            "gpu_hours_text": DEEPSEEK_README + " (2.788M H800 GPU hours for its full training; "
            "2.664M for pre-training on 14.8T tokens)",
            "device": "H800 (not in the device catalogue: no first-hand datasheet read)",
            "P": 2048,
        },
        counts={
            "active_parameters": (37e9, "37B activated for each token", DEEPSEEK_README),
        },
    ),
)

# MLPerf Training's benchmark names (as its results and logs spell them) -> the planner preset that
# models it; the `predict` mapping may read this.
MLPERF_BENCHMARKS: dict[str, str] = {
    "gpt3": "gpt3-175b-mlperf",
    "llama2_70b_lora": "llama2-70b-lora",
}
