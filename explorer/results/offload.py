"""ZeRO-Offload's host term for a result's prediction: the planner models the devices only, so a
run that keeps its optimizer state on the host CPU and updates it there (ZeRO-Offload, Ren et
al. 2021) is planned as the same layout on the GPUs, and this term adds what the GPU waits for
at the end of each step:

    t_offload = Ψ · c_adam / B_host + w · Ψ / B_pcie

Ψ the parameters whose update one GPU's host process runs (its ZeRO partition: parameters /
(tp · pp · dp)); c_adam the bytes Adam's update moves in host memory per parameter (read the
fp32 parameter, gradient and two moments, write the parameter and moments, write the fp16
copy: 16 + 12 + 2 = 30 B), taken as memory-bound at the host's bandwidth B_host shared by the
node's GPUs; w = 2 bytes, the updated fp16 parameters copied back over the GPU's PCIe link.
The fp16 gradients' copy to the host overlaps the backward pass (ZeRO-Offload's design), so it
is not charged; nor is any overlap of the update with the next step's compute (no delayed
parameter update). Only the GPU's share of the memory is checked: fp16 weights, activations and
buffers (the gradients and optimizer state live on the host).

Every value is stated with where it comes from; the formula is ours.
"""

from __future__ import annotations

from typing import Any

PCIE3_X16_GBS = 8 * 16 * 128 / 130 / 8  # GT/s x lanes x 128b/130b encoding / 8 bits: 15.75
DDR4_2666_CHANNEL_GBS = 2666e6 * 8 / 1e9  # 8 bytes per transfer: 21.3 GB/s a channel
HOST_GBS = 2 * 6 * DDR4_2666_CHANNEL_GBS  # two sockets of six channels: 256 GB/s
ADAM_BYTES = 16 + 12 + 2
PARAMETER_BYTES = 2

DGX2_MLPERF = (
    "https://github.com/mlcommons/training_results_v0.7/blob/"
    "c66406115bb3c60cb9c49889b076727ccecba31e/NVIDIA/systems/dgx2_ngc20.06_tensorflow.json"
)
SOURCES = (
    f"host: a DGX-2's two Xeon Platinum 8186 and 1.5 TB ({DGX2_MLPERF}); their memory bandwidth "
    f"recalled (not read on a stored page): six DDR4-2666 channels a socket, 2 x 6 x 21.3 = "
    f"{HOST_GBS:.0f} GB/s; PCIe 3.0 x16 between a V100 and its host recalled: 8 GT/s x 16 "
    f"lanes x 128/130 / 8 = {PCIE3_X16_GBS:.2f} GB/s one way; Adam's {ADAM_BYTES} bytes a "
    "parameter derived from its update (16 read, 12 + 2 written)"
)


def offload_time(parameters: float, layout: dict[str, Any], gpus_per_host: int) -> dict:
    """The host's share of a step for the GPU's partition of `parameters`, with its parts and
    the formula with the values put in."""
    shards = layout.get("tp", 1) * layout.get("pp", 1) * layout.get("dp", 1)
    psi = parameters / shards
    host_gbs = HOST_GBS / gpus_per_host
    update = psi * ADAM_BYTES / (host_gbs * 1e9)
    upload = psi * PARAMETER_BYTES / (PCIE3_X16_GBS * 1e9)
    return {
        "seconds": update + upload,
        "update_s": update,
        "upload_s": upload,
        "formula": (
            f"t_offload = Ψ·{ADAM_BYTES} B / B_host + {PARAMETER_BYTES} B·Ψ / B_pcie = "
            f"{psi:.4g}·{ADAM_BYTES} / {host_gbs:.4g} GB/s + {PARAMETER_BYTES}·{psi:.4g} / "
            f"{PCIE3_X16_GBS:.2f} GB/s = {update:.3g} s + {upload:.3g} s (Ψ = parameters / "
            f"(tp·pp·dp) = {parameters:.4g} / {shards:g}; {SOURCES})"
        ),
    }


def gpu_memory(strategy: dict) -> float:
    """Bytes on the GPU when the gradients and optimizer state live on the host."""
    memory = strategy["memory_per_node"]
    return memory["weights"] + memory["activations"] + memory["buffers"]
