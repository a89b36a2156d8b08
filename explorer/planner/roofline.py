"""The roofline of a transformer's training step on one device: the fraction of the device's
peak that the step's work can reach at best, from what the hardware allows. Pure.

Two bounds, composed:
- matrix products run at most at the device's measured matmul ceiling (the best throughput a
  brute-force search over GEMM shapes reached, as a fraction of the vendor's peak; 1 where no
  measurement is recorded, said so);
- the memory-bound work of a layer (normalisations, activations, dropout and residual adds,
  and with standard attention the s × s softmax and its dropout) moves its bytes at the
  device's memory bandwidth.

roofline = F / (peak · t), t = F_linear / (peak · ceiling) + F_core / (16-bit peak · its ceiling)
+ M / bandwidth: F the step's FLOPs (F_core the attention's QK^T and AV), M its memory-bound
bytes. It never exceeds the ceiling, so never exceeds 1. Calibration on measured runs then
scales it down (never up): the fraction of the roofline a software stack reaches.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from explorer.workloads.devices import devices
from explorer.workloads.transformers.config import TransformerConfig

MAMF_COMMIT = "744d01e18b79512572f64a6bbd8b5f4a725203a7"
MAMF_TABLE = (
    f"https://github.com/stas00/ml-engineering/blob/{MAMF_COMMIT}/compute/accelerator/README.md"
    " (Maximum Achievable Matmul FLOPS table: mean of 100 matmuls after 50 warm-up ones, best "
    "shape of a brute-force search with the author's mamf-finder.py; measured by the author and "
    "contributors, torch and CUDA/ROCm versions in the table)"
)


@dataclass(frozen=True)
class Ceiling:
    tflops: float  # the measured matmul TFLOP/s
    peak_tflops: float  # the vendor's peak the table divides by
    text: str  # the row as read

    @property
    def fraction(self) -> float:
        return self.tflops / self.peak_tflops


def _row(tflops: float, peak: float, row: str) -> Ceiling:
    return Ceiling(tflops, peak, f"{row}: {tflops:g} of {peak:g} TFLOP/s; {MAMF_TABLE}")


A100_SXM = _row(271.2, 312, "NVIDIA A100 SXM, BF16, torch 2.6.0+cu126")
A100_PCIE = _row(252.9, 312, "NVIDIA A100 PCIe, BF16, torch 2.5.1+cu124")
H100_SXM = _row(794.5, 989, "NVIDIA H100 SXM, BF16, torch 2.7.0+cu126 ('H200 is the same')")
# (device slug, "16" for bf16/fp16 or "fp8") -> the measured ceiling. The table names "A100 SXM"
# without its memory: the 40 GB and 80 GB parts share the compute, so both take the row; the
# table's note gives H200 the H100's BF16 row.
CEILINGS: dict[tuple[str, str], Ceiling] = {
    ("a100-sxm4-40gb", "16"): A100_SXM,
    ("a100-sxm4-80gb", "16"): A100_SXM,
    ("a100-pcie-40gb", "16"): A100_PCIE,
    ("a100-pcie-80gb", "16"): A100_PCIE,
    ("h100-sxm", "16"): H100_SXM,
    ("h100-sxm", "fp8"): _row(1402.6, 1979, "NVIDIA H100 SXM, FP8 e4m3, torch 2.7.0+cu126"),
    ("h200-sxm", "16"): H100_SXM,
    ("h200-sxm", "fp8"): _row(1453.4, 1979, "NVIDIA H200 SXM, FP8 e4m3, torch 2.7.1+cu128"),
    ("b200", "16"): _row(1745.0, 2250, "NVIDIA B200 SXM, BF16, torch 2.7.1+cu128"),
    ("b200", "fp8"): _row(3432.5, 4500, "NVIDIA B200 SXM, FP8 e4m3, torch 2.7.1+cu128"),
    ("b300", "16"): _row(1769.0, 2250, "NVIDIA B300 SXM, BF16, torch 2.9.1+cu130"),
    ("b300", "fp8"): _row(3353.3, 4500, "NVIDIA B300 SXM, FP8 e4m3, torch 2.9.1+cu130"),
    ("gb200", "16"): _row(1822.0, 2500, "NVIDIA GB200 SXM, BF16, torch 2.10.0.dev+cu130"),
    ("gb200", "fp8"): _row(3615.6, 5000, "NVIDIA GB200 SXM, FP8 e4m3, torch 2.10.0.dev+cu130"),
    ("gaudi2", "16"): _row(418.7, 432, "Intel Gaudi 2, BF16, torch 2.6.0 HPU 1.21.2, lazy mode"),
    ("gaudi2", "fp8"): _row(826.5, 865, "Intel Gaudi 2, FP8 e4m3, torch 2.6.0 HPU 1.21.2"),
    ("gaudi3", "16"): _row(1243.0, 1677, "Intel Gaudi 3, BF16, torch 2.6.0 HPU 1.21.4, lazy mode"),
    ("gaudi3", "fp8"): _row(1289.5, 1677, "Intel Gaudi 3, FP8 e4m3, torch 2.6.0 HPU 1.21.4"),
    ("mi300x", "16"): _row(668.4, 1300, "AMD MI300X, BF16, torch 2.5.1 ROCm 6.3, TunableOp"),
    ("mi325x", "16"): _row(
        784.9, 1300, "AMD MI325X, BF16, torch 2.6.0 ROCm 6.2.4, TunableOp, 1000 W"
    ),
    ("mi355x", "16"): _row(1565.0, 2300, "AMD MI355X, BF16, torch 2.8.0 ROCm 7.0.2"),
}
NO_CEILING = "no matmul measurement recorded for this device and precision: the ceiling is its peak"

# Bytes read and written per token and layer in the forward pass by the memory-bound kernels,
# in units of the activation size (2 bytes in 16-bit training); our count of Megatron-LM's layer
# (not measured): two layer norms (read and write h each: 4h), two dropout-and-residual adds
# (read two h, write h, a one-byte mask: about 7h each: 14h), the MLP's activation (read and
# write the ffn width, 2f; gated: read two halves, write one: 3f). Standard attention adds per
# head and key the fused scale-mask-softmax (read, write: 2) and its dropout (read, write, mask:
# about 2.5): 4.5·a·s values per token. FlashAttention keeps them on chip.
LAYER_VALUES_PER_H = 18.0
# A parallel block (GPT-J, PaLM) normalises once: one layer norm's 2h fewer.
NORM_VALUES_PER_H = 2.0
SOFTMAX_VALUES = 4.5
# The backward pass moves about twice the forward's bytes; recomputation replays the forward
# (full) or the attention core (selective).
BACKWARD = 2.0


def _fp8_over_bf16() -> tuple[float, list[str]]:
    """The median, over the devices the table measures in both precisions, of the FP8 row's
    fraction of its peak over the BF16 row's, and the devices: how much of its peak a device's
    FP8 matmuls reach, relative to its BF16 ones."""
    both = sorted(slug for slug, kind in CEILINGS if kind == "fp8" and (slug, "16") in CEILINGS)
    ratios = [CEILINGS[slug, "fp8"].fraction / CEILINGS[slug, "16"].fraction for slug in both]
    return statistics.median(ratios), both


FP8_OVER_BF16, FP8_MEASURED_BOTH = _fp8_over_bf16()


def ceiling(device_slug: str, precision: str) -> tuple[float, str]:
    """The matmul ceiling of a device at a precision, as a fraction of the device catalogue's
    peak at that precision (the table's own peak may differ: MI355X's 2300 against the
    catalogue's 2500 TFLOP/s), at most 1, and its source. FP8 on a device the table measures
    only in BF16 (the MI300X-class parts) takes its BF16 fraction times the median FP8/BF16
    fraction of the devices measured in both, said so: its peak would price it above every
    device that was measured."""
    fp8 = precision == "fp8"
    device = devices().get(device_slug)
    peak = device.flops("fp8" if fp8 else "bf16-mixed") if device else None
    found = CEILINGS.get((device_slug, "fp8" if fp8 else "16"))
    if found is None and fp8 and (device_slug, "16") in CEILINGS:
        sixteen, sixteen_peak = CEILINGS[device_slug, "16"], device.flops("bf16-mixed")
        if sixteen_peak:
            fraction = min(1.0, sixteen.tflops * 1e12 / sixteen_peak) * FP8_OVER_BF16
            return fraction, (
                f"no FP8 measurement: the BF16 row's fraction × {FP8_OVER_BF16:.3f}, the median "
                f"FP8/BF16 fraction of the {len(FP8_MEASURED_BOTH)} devices measured in both "
                f"({', '.join(FP8_MEASURED_BOTH)}); BF16 row: {sixteen.text}"
            )
    if found is None or not peak:
        return 1.0, NO_CEILING
    return min(1.0, found.tflops * 1e12 / peak), found.text


# FP8 as Transformer Engine trains it casts each linear layer's input (and, backward, its output
# gradient) to FP8: read 2 bytes, write 1, per value; our count, not measured.
FP8_CAST_BYTES = 3.0


def _per_token_layer(
    config: TransformerConfig, recompute: str, attention: str, replicated: float = 1.0
) -> dict:
    """A layer's work per token over a training step, per device's share: the linear layers'
    FLOPs, the attention core's (QK^T and AV), the memory-bound values moved, and the values the
    linear layers read (which FP8 casts). `replicated`: how many tensor-parallel ranks repeat
    the norms, dropout and residual adds on the whole sequence (tp without sequence
    parallelism, 1 with it); the MLP's activation and the scores are split over the ranks."""
    h, f, s, a = float(config.hidden), float(config.ffn), float(config.seq_len), config.heads
    width = 3 * f if config.gated else 2 * f
    per_h = LAYER_VALUES_PER_H - (NORM_VALUES_PER_H if config.parallel_block else 0.0)
    dense = per_h * h * replicated + width
    scores = SOFTMAX_VALUES * a * s if attention != "flash" else 0.0
    replayed = {"full": dense + scores, "selective": scores}.get(recompute, 0.0)
    matrices = 3 if config.gated else 2
    attention, kv_width = config.attention_width, 2 * config.kv_width  # queries; keys, values
    weights = h * (attention + kv_width) + attention * h + matrices * h * f  # qkv, output, MLP
    passes = 3 + (1 if recompute == "full" else 0)
    return {
        "linear": passes * 2 * weights,
        "core": passes * 4 * s * attention,
        "memory_values": (dense + scores) * (1 + BACKWARD) + replayed,
        "linear_inputs": passes * (3 * h + f),
    }


def roofline_shares(config: TransformerConfig, recompute: str) -> tuple[float, float]:
    """The linear layers' and the attention core's shares of a layer's training FLOPs."""
    work = _per_token_layer(config, recompute, "flash")
    total = work["linear"] + work["core"]
    return work["linear"] / total, work["core"] / total


def memory_bytes_per_flop(
    config: TransformerConfig, recompute: str, attention: str, activation_bytes: float
) -> float:
    """M / F of a training step: memory-bound bytes over the FLOPs, per token and layer (both
    scale alike with the tokens, the layers and the devices)."""
    work = _per_token_layer(config, recompute, attention)
    return work["memory_values"] * activation_bytes / (work["linear"] + work["core"])


def roofline(
    config: TransformerConfig,
    device_slug: str,
    precision: str,
    recompute: str,
    attention: str,
    peak_flops: float,
    replicated: float = 1.0,
) -> dict[str, Any]:
    """The roofline fraction of `peak_flops` (the device's peak at `precision`) for a
    transformer's step, with its parts (`replicated`: see _per_token_layer). With FP8 only the
    linear layers run at the FP8 peak and ceiling; the attention core runs at the 16-bit ones,
    and the casts to FP8 move bytes."""
    device = devices().get(device_slug)
    bandwidth = (device.memory_bandwidth_gbs or 0) * 1e9 if device else 0
    sixteen = device.flops("bf16-mixed") or device.flops("fp16-mixed") if device else None
    core_peak = sixteen if precision == "fp8" and sixteen else peak_flops
    linear_ceiling, linear_source = ceiling(device_slug, precision)
    core_ceiling, _ = ceiling(device_slug, "bf16-mixed")
    work = _per_token_layer(config, recompute, attention, replicated)
    moved = work["memory_values"] * 2.0
    if precision == "fp8":
        moved += work["linear_inputs"] * FP8_CAST_BYTES
    seconds = (
        work["linear"] / (peak_flops * linear_ceiling)
        + work["core"] / (core_peak * core_ceiling)
        + (moved / bandwidth if bandwidth else 0.0)
    )
    value = (work["linear"] + work["core"]) / (peak_flops * seconds)
    return {
        "value": value,
        "matmul_ceiling": linear_ceiling,
        "matmul_source": linear_source,
        "memory_bytes_per_flop": moved / (work["linear"] + work["core"]),
        "memory_bandwidth": bandwidth or None,
        "formula": (
            "FLOPs / (peak · (linear FLOPs / (peak · ceiling) + attention-core FLOPs / "
            "(16-bit peak · its ceiling) + memory-bound bytes / bandwidth))"
        ),
        "note": (
            ""
            if bandwidth
            else "the device catalogue states no memory bandwidth: memory-bound work not priced"
        ),
    }


def for_inputs(inputs: Any, config: TransformerConfig | None) -> dict[str, Any]:
    """The roofline of a query's transformer on its device (1 with no device or no
    transformer: a layer table's network has no roofline model yet, said so)."""
    if config is None:
        return {"value": 1.0, "note": "no roofline for layer-table networks: the peak"}
    if not inputs.device:
        return {"value": 1.0, "note": "no catalogue device: the peak"}
    # Without sequence parallelism the pinned tensor-parallel ranks repeat the norms (a free
    # tp is searched with the same roofline: the pinned one's, else none repeated).
    replicated = 1.0 if inputs.sequence_parallel or not inputs.tp else float(inputs.tp)
    return roofline(
        config,
        inputs.device,
        inputs.precision,
        inputs.transformer_recompute,
        inputs.attention,
        inputs.flops,
        replicated,
    )
