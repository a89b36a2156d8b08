"""Whole networks as layer tables (fixtures/networks.json) and their totals under the catalogue's
operator formulas (Table 4 and Table 6 of the survey).

Work is counted in the formulas' own unit: one operation per multiply-add for convolutions and
fully connected layers (their formulas are products of sizes, i.e. multiply-adds), one per value
for pooling, activations and batch normalisation. To turn work into time the planner needs
floating-point operations: a multiply-add is two (a multiplication and an addition), every other
operation one (`FLOPS_PER_OPERATION`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer.workloads.agreement import within_tolerance

from .formulas import Assumption, Derivation, Formulas, evaluate, number_text

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "networks.json"
FLOPS_PER_OPERATION = {"conv": 2, "fc": 2, "pool": 1, "relu": 1, "bn": 1}

FLOP_ASSUMPTION = Assumption(
    "flops-per-operation",
    "Floating-point operations per counted operation",
    "2 per multiply-add (convolution, fully connected); 1 otherwise",
    "A multiply-add is a multiplication and an addition. The catalogue's work formulas count "
    "multiply-adds for convolutions and fully connected layers, one operation per value for "
    "pooling, activations and batch normalisation.",
)


@dataclass(frozen=True)
class Network:
    slug: str
    name: str
    ref: int
    key: str
    paper_url: str
    batch: int
    layers: tuple[dict[str, Any], ...]
    layers_source: dict[str, str]
    paper_figures: dict[str, Any]

    def column(self, name: str, kind: str | None = None) -> np.ndarray:
        return np.array([row[name] for row in self.rows(kind)], dtype=float)

    def rows(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [row for row in self.layers if kind is None or row["kind"] == kind]

    @property
    def parameters(self) -> int:
        return sum(row["parameters"] for row in self.layers)

    @functools.cached_property
    def layer_arrays(self) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
        """Each layer's name, parameters and output values per sample, read from the table
        once (a sweep builds the network model at every P)."""
        names = tuple(row["name"] for row in self.layers)
        return names, self.column("parameters"), activations_per_sample(self)


@functools.cache
def networks() -> dict[str, Network]:
    items = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return {
        item["slug"]: Network(
            slug=item["slug"],
            name=item["name"],
            ref=item["ref"],
            key=item["key"],
            paper_url=item["paper_url"],
            batch=item["batch"],
            layers=tuple(item["layers"]),
            layers_source=item["layers_source"],
            paper_figures=item["paper_figures"],
        )
        for item in items
    }


@dataclass
class LayerCosts:
    """Per-layer arrays (one entry per row of the layer table) for a minibatch of N samples."""

    forward_work: np.ndarray
    backward_work: np.ndarray
    forward_flops: np.ndarray
    backward_flops: np.ndarray
    forward_depth: np.ndarray
    backward_depth: np.ndarray
    multiply_adds: np.ndarray  # forward multiply-adds (conv and fc only), per minibatch
    used: dict[str, Any]  # role -> formula record, for the derivations

    @property
    def flops(self) -> np.ndarray:
        return self.forward_flops + self.backward_flops


def _sizes(network: Network, kind: str, batches: np.ndarray) -> dict[str, np.ndarray]:
    rows = network.rows(kind)
    groups = np.array([row["groups"] for row in rows], dtype=float)
    values = {
        "N": batches,
        "C_out": np.array([row["C_out"] for row in rows], dtype=float),
        "C_in": np.array([row["C_in"] for row in rows], dtype=float) / groups,
        "H": np.array([row["H"] for row in rows], dtype=float),
        "W": np.array([row["W"] for row in rows], dtype=float),
        "H_out": np.array([row["H_out"] for row in rows], dtype=float),
        "W_out": np.array([row["W_out"] for row in rows], dtype=float),
        "K_y": np.array([row["K"] for row in rows], dtype=float),
        "K_x": np.array([row["K"] for row in rows], dtype=float),
    }
    if kind == "pool":
        values["C"] = values["C_out"]
    return values


def _output_sizes(network: Network, flag: str, batches: np.ndarray) -> tuple[np.ndarray, dict]:
    """Rows followed by a ReLU or batch normalisation, and the sizes of the values they touch."""
    mask = np.array([bool(row[flag]) for row in network.layers])
    rows = [row for row in network.layers if row[flag]]
    values = {
        "N": batches,
        "C": np.array([row["C_out"] for row in rows], dtype=float),
        "H": np.array([row["H_out"] for row in rows], dtype=float),
        "W": np.array([row["W_out"] for row in rows], dtype=float),
    }
    return mask, values


def layer_costs(network: Network, formulas: Formulas, batch: float) -> LayerCosts:
    """Every layer's forward and backward work, FLOPs and depth for a minibatch of `batch`."""
    return layer_costs_many(network, formulas, [batch])[0]


def layer_costs_many(network: Network, formulas: Formulas, batches) -> list[LayerCosts]:
    """`layer_costs` for several minibatch sizes at once: each formula is evaluated once, on a
    (batches × layers) grid, which keeps a sweep over P fast."""
    sizes = np.array(batches, dtype=float)[:, None]
    shape = (len(sizes), len(network.layers))
    out = {name: np.zeros(shape) for name in ("fw", "bw", "ff", "bf", "fd", "bd", "ma")}
    kinds = np.array([row["kind"] for row in network.layers])
    used: dict[str, Any] = {}
    for kind in ("conv", "fc", "pool"):
        mask = kinds == kind
        if not mask.any():
            continue
        values = _sizes(network, kind, sizes)
        _add(out, mask, kind, values, formulas, used)
        if kind in ("conv", "fc"):
            out["ma"][:, mask] = evaluate(formulas[f"{kind}.forward.work"], values)
    for flag in ("relu", "bn"):
        mask, values = _output_sizes(network, flag, sizes)
        if mask.any():
            _add(out, mask, flag, values, formulas, used)
    shortcut = np.array([row["branch"] != "main" for row in network.layers])
    out["fd"][:, shortcut] = 0.0  # a projection shortcut runs beside the main chain: no depth
    out["bd"][:, shortcut] = 0.0
    return [
        LayerCosts(*(out[name][index] for name in ("fw", "bw", "ff", "bf", "fd", "bd", "ma")), used)
        for index in range(len(sizes))
    ]


def _add(out, mask, kind, values, formulas, used) -> None:
    flops = FLOPS_PER_OPERATION[kind]
    forward = evaluate(formulas[f"{kind}.forward.work"], values)
    backward = evaluate(formulas[f"{kind}.input_gradient.work"], values)
    if f"{kind}.weight_gradient.work" in _weighted(kind):
        backward = backward + evaluate(formulas[f"{kind}.weight_gradient.work"], values)
    out["fw"][:, mask] += forward
    out["bw"][:, mask] += backward
    out["ff"][:, mask] += flops * forward
    out["bf"][:, mask] += flops * backward
    out["fd"][:, mask] += evaluate(formulas[f"{kind}.forward.depth"], values)
    out["bd"][:, mask] += evaluate(formulas[f"{kind}.input_gradient.depth"], values)
    for role in _roles(kind):
        used[role] = formulas[role]


def _weighted(kind: str) -> set[str]:
    return {f"{kind}.weight_gradient.work"} if kind in ("conv", "fc", "bn") else set()


def _roles(kind: str) -> list[str]:
    roles = [f"{kind}.forward.work", f"{kind}.input_gradient.work", f"{kind}.forward.depth"]
    roles.append(f"{kind}.input_gradient.depth")
    return roles + sorted(_weighted(kind))


def activations_per_sample(network: Network) -> np.ndarray:
    """Values each layer outputs for one sample: what training keeps for the backward pass."""
    return network.column("C_out") * network.column("H_out") * network.column("W_out")


def totals(
    network: Network,
    formulas: Formulas,
    batch: int,
    computed: tuple[LayerCosts, LayerCosts] | None = None,
) -> dict[str, Any]:
    """The network's totals for a minibatch, each with its derivation, beside the paper's.
    `computed`: the layer costs at `batch` and at 1, when the caller has them already."""
    costs, one = computed or layer_costs_many(network, formulas, [batch, 1])
    sources = list(costs.used.values())
    figures = {
        "forward_work": float(costs.forward_work.sum()),
        "backward_work": float(costs.backward_work.sum()),
        "forward_depth": float(costs.forward_depth.sum()),
        "backward_depth": float(costs.backward_depth.sum()),
        "forward_multiply_adds": float(one.multiply_adds.sum()),
        "activations_per_sample": float(activations_per_sample(network).sum()),
    }
    depth = figures["forward_depth"] + figures["backward_depth"]
    return {
        "forward_work": figures["forward_work"],
        "backward_work": figures["backward_work"],
        "forward_multiply_adds": figures["forward_multiply_adds"],
        "depth": depth,
        "forward_depth": figures["forward_depth"],
        "backward_depth": figures["backward_depth"],
        "average_parallelism": (figures["forward_work"] + figures["backward_work"]) / depth,
        "activations_per_sample": figures["activations_per_sample"],
        "parameters": network.parameters,
        "flops_per_step": float(costs.flops.sum()),
        "derivations": [d.as_dict() for d in _derivations(network, costs, one, batch, figures)],
        "cost_models": [s.reference() for s in sources] + [FLOP_ASSUMPTION.reference()],
    }


def _derivations(
    network: Network, costs: LayerCosts, one: LayerCosts, batch: int, figures: dict[str, float]
) -> list[Derivation]:
    """How each total was obtained: the table's sums under the catalogue's formulas."""
    layers = len(network.layers)

    def used(part: str) -> list:
        return [s for s in costs.used.values() if part in _role_of(s, costs.used)]

    return [
        Derivation(
            "parameters",
            network.parameters,
            "values",
            "Σ layers (C_out·(C_in/groups)·K² + C_out biases, or 2·C_out with batch norm)",
            f"Σ over {layers} layers of the table",
            note="Counted from the layer table (not a cost model).",
        ),
        Derivation(
            "forward multiply-adds per sample",
            figures["forward_multiply_adds"],
            "multiply-adds",
            "Σ conv/fc layers of the forward work formula at N = 1",
            f"Σ over {int((one.multiply_adds > 0).sum())} conv and fc layers",
            # Network-in-Network has no fc layer: only the work formulas its layers use.
            [
                costs.used[role]
                for role in ("conv.forward.work", "fc.forward.work")
                if role in costs.used
            ],
        ),
        Derivation(
            "forward work per minibatch",
            figures["forward_work"],
            "operations",
            "Σ layers of the forward work formulas (conv, fc, pooling, activation, batch norm)",
            f"N = {batch}; Σ over {layers} layers",
            used(".forward.work"),
        ),
        Derivation(
            "backward work per minibatch",
            figures["backward_work"],
            "operations",
            "Σ layers of the input-gradient and weight-gradient work formulas",
            f"N = {batch}; Σ over {layers} layers",
            used("gradient.work"),
        ),
        Derivation(
            "forward depth",
            figures["forward_depth"],
            "steps",
            "Σ main-chain layers of the forward depth formulas (layers run one after another)",
            f"N = {batch}; Σ over the main chain",
            used(".forward.depth"),
            note="Projection shortcuts run beside the main chain and add no depth.",
        ),
        Derivation(
            "backward depth",
            figures["backward_depth"],
            "steps",
            "Σ main-chain layers of the input-gradient depth formulas",
            f"N = {batch}; Σ over the main chain",
            used("input_gradient.depth"),
            note="The weight gradients branch off the input-gradient chain, so they add no depth.",
        ),
        Derivation(
            "activations per sample",
            figures["activations_per_sample"],
            "values",
            "Σ layers C_out·H_out·W_out",
            f"Σ over {layers} layers",
            note="One stored output per layer (ReLU and batch-norm outputs are not counted "
            "separately): a lower bound on what a framework keeps.",
        ),
    ]


def _role_of(source: Any, used: dict[str, Any]) -> str:
    return next(role for role, record in used.items() if record is source)


def paper_comparison(network: Network, computed: dict[str, Any]) -> list[dict[str, Any]]:
    """Each figure the paper states beside ours, with the difference and its reason."""
    figures = network.paper_figures
    rows = []
    for name, ours, reason in (
        (
            "parameters",
            computed["parameters"],
            "Ours counts every weight and bias of the table (and batch-norm scale and shift); "
            "the paper rounds.",
        ),
        (
            "multiply_adds",
            computed["forward_multiply_adds"],
            "Ours counts the forward multiply-adds of convolutions and fully connected layers "
            "for one sample (the catalogue's conv and fc work formulas at N = 1); pooling, "
            "activations, normalisation and biases are not multiply-adds. The paper's FLOPs "
            "figure is compared as multiply-adds and is rounded.",
        ),
    ):
        stated = figures.get(name)
        difference = None if stated is None else (ours - stated) / stated
        rows.append(
            {
                "quantity": name,
                "computed": ours,
                "paper": stated,
                "paper_text": figures.get(f"{name}_text", ""),
                "source": figures.get(f"{name}_url") or figures.get("parameters_url", ""),
                "relative_difference": difference,
                "within_tolerance": within_tolerance(difference),
                "reason": reason if stated is not None else "The paper's figure is unknown to us.",
                "computed_text": number_text(ours),
            }
        )
    return rows
