"""The planner's network model: a network is a sequence of layers, each with its parameters, its
FLOPs forward and backward for the step's minibatch, the activations it keeps per sample and the
values per sample it sends on when the network is split after it. Two producers: a CNN's layer
table under the catalogue's operator formulas (networks.py), and a transformer's configuration
(embedding, blocks dense, grouped-query or mixture-of-experts, output) under the catalogue's
transformer FLOPs formula. Both plans read their network's totals and single-device time here.
Pure: numbers in, arrays out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .formulas import Formulas, evaluate
from .networks import LayerCosts, Network
from .transformers.shapes import TransformerConfig, adapter_layer, flops_values, parameter_parts

LAYER_TABLE = "layer-table"  # the kinds of network, each with its strategies in the registry
TRANSFORMER = "transformer"
KINDS = (LAYER_TABLE, TRANSFORMER)


@dataclass(frozen=True)
class Totals:
    """The network's totals for one training step."""

    parameters: float
    forward_flops: float
    backward_flops: float
    flops_per_step: float
    activations_per_sample: float


@dataclass(frozen=True)
class NetworkModel:
    """A network as a sequence of layers (arrays, one entry per layer)."""

    kind: str  # LAYER_TABLE or TRANSFORMER: which strategies of the registry apply
    names: tuple[str, ...]
    parameters: np.ndarray
    forward_flops: np.ndarray  # for the step's minibatch
    backward_flops: np.ndarray
    activations: np.ndarray  # values per sample kept for the backward pass
    exchanged: np.ndarray  # values per sample sent to the next layer when split after this one

    @property
    def totals(self) -> Totals:
        return Totals(
            parameters=float(self.parameters.sum()),
            forward_flops=float(self.forward_flops.sum()),
            backward_flops=float(self.backward_flops.sum()),
            flops_per_step=float((self.forward_flops + self.backward_flops).sum()),
            activations_per_sample=float(self.activations.sum()),
        )

    def single_device_time(self, achieved_flops: float) -> float:
        """One device alone: all the step's FLOPs at the achieved throughput."""
        return self.totals.flops_per_step / achieved_flops


def from_layer_table(network: Network, costs: LayerCosts) -> NetworkModel:
    """A CNN: one layer per row of its table; a layer's output is what it keeps and what it
    sends to the next stage."""
    names, parameters, activations = network.layer_arrays
    return NetworkModel(
        kind=LAYER_TABLE,
        names=names,
        parameters=parameters,
        forward_flops=costs.forward_flops,
        backward_flops=costs.backward_flops,
        activations=activations,
        exchanged=activations,
    )


def _moe_blocks(config: TransformerConfig) -> np.ndarray:
    """Which blocks are mixture-of-experts layers: every expert_interval-th after the first
    dense_layers."""
    is_moe = np.zeros(config.layers, bool)
    if config.moe_layers:
        first = config.dense_layers + config.expert_interval - 1
        is_moe[first :: config.expert_interval] = True
    return is_moe


def _block_parameters(config: TransformerConfig, active: bool) -> np.ndarray:
    """Each block's parameters: attention and norms, and a dense MLP or the experts with their
    router (and the shared experts). `active`: those a token's matrix products go through (the
    FLOPs formula's p: no norms, top_k of the routed experts, no LoRA adapter)."""
    parts = parameter_parts(config)
    layers, moe = config.layers, config.moe_layers
    final_norm = (2 if config.bias else 1) * config.hidden
    norms = 0.0 if active else (parts["norms"] - final_norm) / layers
    mlp = parts["mlp"] / max(layers - moe, 1)
    experts = parts["experts"] / max(moe, 1)
    if active:
        experts = experts / config.experts * config.top_k
    experts = experts + parts.get("shared_experts", 0.0) / max(moe, 1)
    adapters = 0.0 if active else parts.get("adapters", 0.0) / layers
    block = parts["attention"] / layers + norms + adapters
    return block + np.where(_moe_blocks(config), experts, mlp)


def _kept_per_sample(config: TransformerConfig, recompute: str, formulas: Formulas) -> float:
    """Values one block keeps per sample: Korthikanti et al.'s bytes (16-bit) over 2."""
    values = {"s": float(config.seq_len), "b": 1.0, "h": float(config.hidden)}
    values |= {"a": float(config.heads), "t": 1.0}
    if recompute == "full":
        return float(evaluate(formulas["activations.full"], values)) / 2
    suffix = ".selective" if recompute == "selective" else ""
    return float(evaluate(formulas[f"activations.sequence{suffix}"], values)) / 2


def from_transformer(
    config: TransformerConfig, batch: float, recompute: str, formulas: Formulas
) -> NetworkModel:
    """A transformer: the embedding, its blocks and the output layer. The catalogue's FLOPs
    formula (2·B·s·l·p·m + 4·B·s²·h·l·n + 6·B·s·h·V) is linear in its layers, so each block's
    FLOPs are the formula at l = 1, V = 0 with the block's own active parameters, and the
    output's at l = 0 (its 6 = 2 FLOPs per multiply-add × 3 passes: one forward, two backward)."""
    record = formulas["transformer.flops"]
    values = flops_values(config, batch, recompute)
    block_values = values | {"l": 1.0, "V": 0.0, "p": _block_parameters(config, active=True)}
    if config.frozen:  # LoRA (FROZEN_BASE): no weight gradient of the base's matrices
        block_values["m"] -= 1.0
    all_passes = evaluate(record, block_values) * np.ones(config.layers)
    one_pass = evaluate(record, block_values | {"m": 1.0, "n": 1.0}) * np.ones(config.layers)
    output = float(evaluate(record, values | {"l": 0.0}))
    if config.frozen:  # the adapters train in every pass: 2·B·s·p_a per pass, m passes
        adapter = 2.0 * values["B"] * values["s"] * adapter_layer(config)
        all_passes = all_passes + adapter * values["m"]
        one_pass = one_pass + adapter
        output = output * 2 / 3  # the frozen output layer: forward and its input gradient
    forward_output = output / (2 if config.frozen else 3)
    between = float(config.seq_len) * config.hidden  # one sample's values between blocks
    kept = _kept_per_sample(config, recompute, formulas)
    return NetworkModel(
        kind=TRANSFORMER,
        names=("embedding", *(f"block {i + 1}" for i in range(config.layers)), "output"),
        parameters=np.concatenate(
            [
                [parameter_parts(config)["embedding"]],
                _block_parameters(config, active=False),
                [(2 if config.bias else 1) * config.hidden],  # the final norm
            ]
        ),
        forward_flops=np.concatenate([[0.0], one_pass, [forward_output]]),
        backward_flops=np.concatenate([[0.0], all_passes - one_pass, [output - forward_output]]),
        activations=np.concatenate([[between], np.full(config.layers, kept), [0.0]]),
        exchanged=np.concatenate([[between], np.full(config.layers, between), [0.0]]),
    )


@dataclass(frozen=True)
class StepFlops:
    """A transformer step's FLOPs: as the devices run them (recomputation included) and as the
    network needs them (no recomputation: what MFU counts)."""

    hardware: float
    model: float


def transformer_step(
    config: TransformerConfig, batch: float, recompute: str, formulas: Formulas
) -> tuple[NetworkModel, StepFlops]:
    """The transformer's model for this recomputation, and its step's FLOPs both ways."""
    network = from_transformer(config, batch, recompute, formulas)
    plain = network if recompute == "none" else from_transformer(config, batch, "none", formulas)
    return network, StepFlops(network.totals.flops_per_step, plain.totals.flops_per_step)
