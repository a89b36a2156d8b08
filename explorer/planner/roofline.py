"""The roofline of a transformer's training step on one device: the fraction of the device's
peak that the step's work can reach at best, from what the hardware allows. Pure.

Two bounds, composed:
- matrix products run at most at the device's measured matmul ceiling (the best throughput a
  brute-force search over GEMM shapes reached, as a fraction of the vendor's peak; 1 where no
  measurement is recorded, said so);
- the memory-bound work of a layer (normalisations, activations, dropout and residual adds,
  and with standard attention the s × s softmax and its dropout) moves its bytes at the
  device's memory bandwidth.

roofline = F / (F / ceiling + M · peak / bandwidth) / F = 1 / (1 / ceiling + (M / F) · peak /
bandwidth), F the step's FLOPs and M its memory-bound bytes. It never exceeds the ceiling, so
never exceeds 1. Calibration on measured runs then scales it down (never up): the fraction of
the roofline a software stack reaches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .devices import devices
from .transformer_config import TransformerConfig

MAMF_COMMIT = "b9e29720eebd4aa946fa9678975385efbc90a777"
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
# (device slug, "16" for bf16/fp16 or "fp8") -> the measured ceiling. The table names "A100 SXM"
# without its memory: the 40 GB and 80 GB parts share the compute, so both take the row.
CEILINGS: dict[tuple[str, str], Ceiling] = {
    ("a100-sxm4-40gb", "16"): A100_SXM,
    ("a100-sxm4-80gb", "16"): A100_SXM,
    ("a100-pcie-40gb", "16"): A100_PCIE,
    ("a100-pcie-80gb", "16"): A100_PCIE,
    ("h100-sxm", "16"): _row(794.5, 989, "NVIDIA H100 SXM, BF16, torch 2.7.0+cu126"),
    ("h100-sxm", "fp8"): _row(1402.6, 1979, "NVIDIA H100 SXM, FP8 e4m3, torch 2.7.0+cu126"),
    ("mi300x", "16"): _row(668.4, 1300, "AMD MI300X, BF16, torch 2.5.1 ROCm 6.3, TunableOp"),
    ("mi325x", "16"): _row(784.9, 1300, "AMD MI325X, BF16, torch 2.6.0 ROCm 6.2.4, TunableOp"),
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
SOFTMAX_VALUES = 4.5
# The backward pass moves about twice the forward's bytes; recomputation replays the forward
# (full) or the attention core (selective).
BACKWARD = 2.0


def ceiling(device_slug: str, precision: str) -> tuple[float, str]:
    """The matmul ceiling (fraction of the peak) of a device at a precision, and its source."""
    key = (device_slug, "fp8" if precision == "fp8" else "16")
    found = CEILINGS.get(key)
    if found is None:
        return 1.0, NO_CEILING
    return found.fraction, found.text


def memory_bytes_per_flop(
    config: TransformerConfig, recompute: str, attention: str, activation_bytes: float
) -> float:
    """M / F of a training step: memory-bound bytes over the matrix products' FLOPs, per token
    and layer (both scale alike with the tokens, the layers and the devices)."""
    h, f, s, a = float(config.hidden), float(config.ffn), float(config.seq_len), config.heads
    width = 3 * f if config.gated else 2 * f
    dense = LAYER_VALUES_PER_H * h + width
    scores = SOFTMAX_VALUES * a * s if attention != "flash" else 0.0
    replayed = {"full": dense + scores, "selective": scores}.get(recompute, 0.0)
    values = (dense + scores) * (1 + BACKWARD) + replayed
    matrices = 3 if config.gated else 2
    kv_width = 2 * h * config.kv / config.heads
    weights = h * (h + kv_width) + h * h + matrices * h * f  # qkv, output, MLP
    passes = 3 + (1 if recompute == "full" else 0)
    flops = passes * 2 * weights + passes * 4 * s * h  # the products and QK^T, AV
    return values * activation_bytes / flops


def roofline(
    config: TransformerConfig,
    device_slug: str,
    precision: str,
    recompute: str,
    attention: str,
    peak_flops: float,
) -> dict[str, Any]:
    """The roofline fraction of the peak for a transformer's step, with its parts."""
    matmul, matmul_source = ceiling(device_slug, precision)
    device = devices().get(device_slug)
    bandwidth = (device.memory_bandwidth_gbs or 0) * 1e9 if device else 0
    ratio = memory_bytes_per_flop(config, recompute, attention, 2.0)
    memory_term = ratio * peak_flops / bandwidth if bandwidth else 0.0
    value = 1 / (1 / matmul + memory_term)
    return {
        "value": value,
        "matmul_ceiling": matmul,
        "matmul_source": matmul_source,
        "memory_bytes_per_flop": ratio,
        "memory_bandwidth": bandwidth or None,
        "formula": "1 / (1 / matmul ceiling + (memory-bound bytes / FLOPs) · peak / bandwidth)",
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
    return roofline(
        config,
        inputs.device,
        inputs.precision,
        inputs.transformer_recompute,
        inputs.attention,
        inputs.flops,
    )
