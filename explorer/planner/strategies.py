"""Scaling strategies, each a composition of the catalogue's cost models, for one network on one
machine: time per step split into compute, exposed communication and idle time, and memory per
node split into weights, gradients, optimizer state and activations.

The model, stated once (each step is also a shown `Assumption` or a catalogue formula):
- compute: the FLOPs a node runs per step (catalogue work formulas, see networks.py) divided by
  its throughput; one node alone takes T1 = all FLOPs of a minibatch / throughput;
- communication is not overlapped with computation, so all of it is exposed;
- idle: time a node waits in a step (the pipeline bubble and the imbalance of a layer split).
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .formulas import (
    TRUSTED_STATUSES,
    Assumption,
    CatalogueFormula,
    Derivation,
    Formulas,
    Source,
    evaluate,
    number_text,
    substitute,
)
from .machine import Inputs
from .networks import (
    FLOP_ASSUMPTION,
    LayerCosts,
    Network,
    activations_per_sample,
    layer_costs_many,
)

NO_OVERLAP = Assumption(
    "no-overlap",
    "Communication is not overlapped with computation",
    "exposed communication = communication time",
    "A pessimistic, simple bound: real systems hide part of the exchange behind the backward "
    "pass. The catalogue has no overlap model.",
)
POINT_TO_POINT = Assumption(
    "point-to-point",
    "One message of b bytes costs L + b·G",
    "L + b*G",
    "The LogP model without o and g that the catalogue's allreduce formulas use [53]; here for "
    "single messages between pipeline stages and the activation exchanges of the hybrid.",
)
GPIPE = Assumption(
    "gpipe-makespan",
    "Makespan of a GPipe schedule with unequal stages",
    "sum(f) + (M - 1)*max(f) + sum(b) + (M - 1)*max(b)",
    "M equal micro-batches flow forward through the stages (times f), then backward (times b) "
    "after a flush: a flow shop of identical jobs, whose makespan is the sum of the stage times "
    "plus M−1 times the slowest stage. With equal stages its idle fraction is the catalogue's "
    "(P−1)/(M+P−1); tests check it against the pipeline demo's event simulation.",
)
REDUCTION = Assumption(
    "communication-reduction",
    "Gradient compression as a modifier on the gradient exchange",
    "m' = density*m, gamma' = bits/8 (+ 4 bytes of index per value when density < 1)",
    "Quantization sends `bits` per value instead of 8·gamma; sparsification sends the largest "
    "`density`·m values with a 4-byte index each. The exchange keeps its algorithm and the "
    "compressed size on every step: optimistic, since summing sparse vectors fills them in. "
    "Effects on convergence are not modelled (see the quantization and sparsification demos).",
)
STRIDED_GRADIENT_NOTE = (
    "The catalogue's input-gradient work row for convolutions (recalled) multiplies by the input "
    "size H·W: for a strided layer (AlexNet conv1, stride 4) that is stride² times the forward "
    "work, more than an implementation does. The backward work here is the row as catalogued."
)


@dataclass
class Context:
    """What every strategy needs: the inputs, the network, its formulas and per-batch costs."""

    inputs: Inputs
    network: Network
    formulas: Formulas
    _costs: dict[float, LayerCosts] = field(default_factory=dict)  # may be shared by a sweep
    _stages: dict[int, list[np.ndarray]] = field(default_factory=dict)
    memo: dict[tuple, float] = field(default_factory=dict)  # scalar evaluations, see sweep

    def costs(self, batch: float) -> LayerCosts:
        if batch not in self._costs:
            self.prime([batch])
        return self._costs[batch]

    def prime(self, batches) -> None:
        """Compute the layer costs of several minibatch sizes in one vectorised pass."""
        missing = sorted({float(b) for b in batches} - self._costs.keys())
        if missing:
            computed = layer_costs_many(self.network, self.formulas, missing)
            self._costs.update(zip(missing, computed, strict=True))

    def stages(self) -> list[np.ndarray]:
        """The best contiguous split of the layers over the P nodes (by FLOPs)."""
        p = self.inputs.P
        if p not in self._stages:
            self._stages[p] = partition(self.costs(self.inputs.batch).flops, p)
        return self._stages[p]

    @property
    def single_node_time(self) -> float:
        return float(self.costs(self.inputs.batch).flops.sum()) / self.inputs.flops

    @functools.cached_property
    def activations(self) -> np.ndarray:
        return activations_per_sample(self.network)

    @functools.cached_property
    def parameters(self) -> np.ndarray:
        return self.network.column("parameters")

    def compute_sources(self) -> list[Source]:
        return list(self.costs(self.inputs.batch).used.values()) + [FLOP_ASSUMPTION]


@dataclass
class Outcome:
    slug: str
    name: str
    techniques: tuple[str, ...]
    demos: tuple[str, ...]
    compute: float = 0.0
    communication: float = 0.0
    idle: float = 0.0
    memory: dict[str, float] = field(default_factory=dict)
    applicable: bool = True
    reason: str = ""
    sources: list[Source] = field(default_factory=list)
    derivations: list[Derivation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def step(self) -> float:
        return self.compute + self.communication + self.idle

    def not_applicable(self, reason: str) -> Outcome:
        self.applicable, self.reason = False, reason
        return self


# Shared pieces ---------------------------------------------------------------------------------


def memory_split(
    inputs: Inputs, parameters: float, activation_values: float, gradients: float | None = None
) -> dict[str, float]:
    gamma = inputs.gamma
    weights = parameters * gamma
    split = {
        "weights": weights,
        "gradients": (parameters if gradients is None else gradients) * gamma,
        "optimizer_state": inputs.optimizer_values * parameters * gamma,
        "activations": activation_values * gamma,
    }
    split["total"] = sum(split.values())
    return split


def memory_derivation(inputs: Inputs, memory: dict[str, float], what: str) -> Derivation:
    return Derivation(
        "memory per node",
        memory["total"],
        "bytes",
        "γ·(weights + gradients + optimizer values·weights + stored activations)",
        f"γ = {inputs.gamma}, optimizer values = {inputs.optimizer_values}; {what}; "
        f"{number_text(memory['total'] / 1e9)} GB of {number_text(inputs.memory_gb)} GB",
        note="Does not fit." if memory["total"] > inputs.memory else "Fits.",
    )


def compute_derivation(ctx: Context, flops: float, what: str) -> Derivation:
    return Derivation(
        "compute time",
        flops / ctx.inputs.flops,
        "s",
        "FLOPs per node / throughput",
        f"{number_text(flops)} FLOPs ({what}) / {number_text(ctx.inputs.flops)} FLOP/s",
        ctx.compute_sources(),
        note=STRIDED_GRADIENT_NOTE,
    )


def gradient_exchange_values(inputs: Inputs, elements: float) -> tuple[dict[str, float], list]:
    """The allreduce variables for a gradient of `elements` values, with the reduction applied."""
    reduced = inputs.value_bits < 8 * inputs.gamma or inputs.density < 1
    gamma = inputs.value_bits / 8 + (4 if inputs.density < 1 else 0)
    values = {
        "P": float(inputs.P),
        "L": inputs.latency,
        "G": inputs.G,
        "gamma": gamma if reduced else float(inputs.gamma),
        "m": elements * inputs.density,
        "S": float(inputs.servers),
    }
    return values, [REDUCTION] if reduced else []


def memo_key(record: CatalogueFormula, values: dict[str, float]) -> tuple:
    return (record.formula, tuple(sorted(values.items())))


def evaluated(
    record: CatalogueFormula,
    values: dict[str, float],
    quantity: str,
    unit: str,
    memo: dict[tuple, float] | None = None,
):
    """The formula at scalar `values` with its derivation; a sweep may have evaluated it already,
    for all its P at once (`memo`)."""
    value = (memo or {}).get(memo_key(record, values))
    if value is None:
        value = float(evaluate(record, values))
    derivation = Derivation(quantity, value, unit, record.formula, "", [record], values=values)
    return value, derivation


ALLREDUCE_NAMES = {
    "ring": "pipelined ring",
    "tree": "tree",
    "butterfly": "butterfly",
    "rabenseifner": "Rabenseifner",
}


# Data parallelism ------------------------------------------------------------------------------


def data_parallel(ctx: Context, exchange: str) -> Outcome:
    """Each node holds the whole model, runs N/P samples and exchanges the gradient."""
    inputs = ctx.inputs
    if exchange == "ps":
        outcome = Outcome(
            "data-ps",
            "Data parallelism, parameter server",
            ("data-parallelism", "parameter-server"),
            ("allreduce-vs-ps", "data-parallel"),
        )
        role = "parameter_server.time"
    else:
        outcome = Outcome(
            f"data-{exchange}",
            f"Data parallelism, {ALLREDUCE_NAMES[exchange]} allreduce",
            ("data-parallelism", f"allreduce-{exchange}"),
            ("allreduce-vs-ps", "data-parallel"),
        )
        role = f"allreduce.{exchange}"
    if inputs.batch < inputs.P:
        return outcome.not_applicable(
            f"fewer samples (N = {inputs.batch}) than nodes (P = {inputs.P})"
        )
    per_node = ctx.costs(inputs.batch / inputs.P)
    flops = float(per_node.flops.sum())
    compute = compute_derivation(ctx, flops, f"N/P = {number_text(inputs.batch / inputs.P)}")
    outcome.compute = compute.value
    outcome.derivations.append(compute)
    outcome.sources += compute.sources + [NO_OVERLAP]
    values, reduction = gradient_exchange_values(inputs, float(ctx.parameters.sum()))
    outcome.communication = _exchange(outcome, ctx.formulas[role], values, reduction, ctx)
    if exchange == "ps":
        outcome.notes.append(
            f"S = {inputs.servers} server shards, not counted among the P nodes; the servers' "
            "memory is not counted."
        )
    activations = float(ctx.activations.sum()) * inputs.batch / inputs.P
    outcome.memory = memory_split(inputs, float(ctx.parameters.sum()), activations)
    outcome.derivations.append(
        memory_derivation(inputs, outcome.memory, "whole model, activations of N/P samples")
    )
    return outcome


def _exchange(outcome, record, values, reduction, ctx: Context) -> float:
    if ctx.inputs.P == 1:
        outcome.derivations.append(
            Derivation("communication time", 0.0, "s", "0", "one node: nothing to exchange")
        )
        return 0.0
    time, derivation = evaluated(record, values, "communication time", "s", ctx.memo)
    derivation.sources += reduction + [NO_OVERLAP]
    outcome.derivations.append(derivation)
    outcome.sources += [record, *reduction]
    return time


# Model parallelism and pipelining --------------------------------------------------------------


def partition(weights: np.ndarray, parts: int) -> list[np.ndarray]:
    """A split of the layers into at most `parts` contiguous stages with the least largest stage."""
    if parts >= len(weights):
        return [np.array([i]) for i in range(len(weights))]
    total = [0.0, *np.cumsum(weights).tolist()]
    low, high = float(weights.max()), total[-1]
    while high - low > 1e-9 * high:  # bisection on the largest stage's weight
        cap = (low + high) / 2
        if len(_greedy(total, cap)) <= parts:
            high = cap
        else:
            low = cap
    return [np.arange(start, end) for start, end in _greedy(total, high)]


def _greedy(total: list[float], cap: float) -> list[tuple[int, int]]:
    """Stages filled in order up to `cap`; `total` is the running sum of the weights from 0."""
    stages, start, layers = [], 0, len(total) - 1
    while start < layers:
        # the furthest end whose stage weight stays within the cap (at least one layer)
        end = max(bisect.bisect_right(total, total[start] + cap * (1 + 1e-12)) - 1, start + 1)
        stages.append((start, end))
        start = end
    return stages


def gpipe_makespan(forward: np.ndarray, backward: np.ndarray, micro_batches: int) -> float:
    """Σf + (M−1)·max f + Σb + (M−1)·max b: forward flow shop, flush, backward flow shop."""
    m = micro_batches - 1
    return float(forward.sum() + m * forward.max() + backward.sum() + m * backward.max())


def layer_split(ctx: Context, micro_batches: int) -> Outcome:
    """Layers split into contiguous stages, one per node; M micro-batches pipeline them."""
    inputs = ctx.inputs
    if micro_batches == 1:
        outcome = Outcome(
            "model-layer-split",
            "Model parallelism (layer split)",
            ("model-parallelism",),
            ("model-parallel",),
        )
    else:
        outcome = Outcome(
            "pipeline",
            f"Pipelining (layer split, M = {micro_batches} micro-batches)",
            ("pipelining", "model-parallelism"),
            ("pipeline-bubble",),
        )
    layers = len(ctx.network.layers)
    if inputs.P > layers:
        return outcome.not_applicable(f"more nodes (P = {inputs.P}) than layers ({layers})")
    whole = ctx.costs(inputs.batch)
    stages = ctx.stages()
    micro = ctx.costs(inputs.batch / micro_batches)
    forward = np.array([micro.forward_flops[s].sum() for s in stages]) / inputs.flops
    backward = np.array([micro.backward_flops[s].sum() for s in stages]) / inputs.flops
    bare = gpipe_makespan(forward, backward, micro_batches)
    transfer, derivation = _boundary_transfers(ctx, stages, micro_batches)
    forward[:-1] += transfer
    backward[1:] += transfer
    makespan = gpipe_makespan(forward, backward, micro_batches)
    compute = compute_derivation(ctx, float(whole.flops.sum()) / inputs.P, "all FLOPs / P")
    outcome.compute = compute.value
    outcome.communication = makespan - bare
    outcome.idle = max(bare - outcome.compute, 0.0)
    outcome.derivations += [compute, *derivation]
    outcome.derivations += _idle_derivations(ctx, outcome, bare, len(stages), micro_batches)
    outcome.sources += compute.sources + [GPIPE, POINT_TO_POINT, NO_OVERLAP]
    outcome.sources += [ctx.formulas["model_parallel.bytes"], ctx.formulas["pipeline.bubble"]]
    if len(stages) < inputs.P:
        outcome.notes.append(f"The best split uses {len(stages)} of the {inputs.P} nodes.")
    outcome.memory = _stage_memory(ctx, stages)
    outcome.derivations.append(
        memory_derivation(
            inputs, outcome.memory, "the largest stage: its layers, activations of all N samples"
        )
    )
    return outcome


def _boundary_transfers(ctx: Context, stages, micro_batches: int):
    """Per micro-batch, the time to send a stage's output to the next stage (and its gradient
    back): the catalogue's model-parallelism bytes, as one message each way."""
    inputs = ctx.inputs
    record = ctx.formulas["model_parallel.bytes"]
    if len(stages) == 1:
        return 0.0, []
    widths = ctx.activations[[int(s[-1]) for s in stages[:-1]]]
    values = {"N": inputs.batch / micro_batches, "C_boundary": widths, "gamma": inputs.gamma}
    both_ways = np.asarray(evaluate(record, values), dtype=float)
    transfer = inputs.latency + both_ways / 2 * inputs.G
    total = float(both_ways.sum()) * micro_batches
    derivation = Derivation(
        "bytes across the stage boundaries per step",
        total,
        "bytes",
        f"M · Σ boundaries {record.formula}",
        f"M = {micro_batches}; " + substitute(record.formula, {**values, "C_boundary": widths}),
        [record, POINT_TO_POINT],
        note="Each boundary's activations go forward and their gradients back, one message "
        "each way per micro-batch (L + bytes·G), added to the sending stage's time.",
    )
    return transfer, [derivation]


def _idle_derivations(ctx, outcome, bare, stage_count, micro_batches) -> list[Derivation]:
    record = ctx.formulas["pipeline.bubble"]
    values = {"P": float(stage_count), "M": float(micro_batches)}
    fraction, bubble = evaluated(record, values, "bubble fraction (balanced stages)", "", ctx.memo)
    bubble.note = (
        f"With equal stages the idle time would be {number_text(fraction)} of the step; the "
        f"layer split's measured idle fraction is {number_text(outcome.idle / bare if bare else 0)}"
        " (the rest is the imbalance of the best contiguous split)."
    )
    idle = Derivation(
        "idle time",
        outcome.idle,
        "s",
        GPIPE.formula + " − compute",
        f"{number_text(bare)} s − {number_text(outcome.compute)} s",
        [GPIPE],
    )
    return [bubble, idle]


def _stage_memory(ctx: Context, stages) -> dict[str, float]:
    inputs = ctx.inputs
    best: dict[str, float] = {}
    for stage in stages:
        activations = float(ctx.activations[stage].sum()) * inputs.batch
        memory = memory_split(inputs, float(ctx.parameters[stage].sum()), activations)
        if not best or memory["total"] > best["total"]:
            best = memory
    return best


# Hybrid ----------------------------------------------------------------------------------------


def fc_boundary_width(network: Network, p: int) -> float:
    """Values per sample exchanged by the model-parallel FC layers (the catalogue's C_fc): every FC
    layer's input is gathered from all nodes, and the logits go back to each sample's node."""
    fc = network.rows("fc")
    return sum(row["C_in"] for row in fc) + fc[-1]["C_out"] / p


def hybrid(ctx: Context) -> Outcome:
    """Convolutional layers data-parallel, fully connected layers model-parallel [135]."""
    inputs, network = ctx.inputs, ctx.network
    algorithm = inputs.allreduce
    outcome = Outcome(
        "hybrid",
        f"Hybrid: conv data-parallel ({ALLREDUCE_NAMES[algorithm]} allreduce), FC model-parallel",
        ("hybrid-parallelism", f"allreduce-{algorithm}"),
        ("hybrid-one-weird-trick",),
    )
    if inputs.batch < inputs.P:
        return outcome.not_applicable(
            f"fewer samples (N = {inputs.batch}) than nodes (P = {inputs.P})"
        )
    is_fc = np.array([row["kind"] == "fc" for row in network.layers])
    m_conv = float(ctx.parameters[~is_fc].sum())
    m_fc = float(ctx.parameters[is_fc].sum())
    whole = ctx.costs(inputs.batch)
    compute = compute_derivation(ctx, float(whole.flops.sum()) / inputs.P, "all FLOPs / P")
    outcome.compute = compute.value
    outcome.derivations.append(compute)
    outcome.sources += compute.sources + [NO_OVERLAP]
    values, reduction = gradient_exchange_values(inputs, m_conv)
    gradients = _exchange(outcome, ctx.formulas[f"allreduce.{algorithm}"], values, reduction, ctx)
    outcome.communication = gradients + _activation_exchange(ctx, outcome, m_conv, is_fc)
    conv_activations = float(ctx.activations[~is_fc].sum()) * inputs.batch / inputs.P
    fc_activations = float(ctx.activations[is_fc].sum()) * inputs.batch / inputs.P
    outcome.memory = memory_split(
        inputs, m_conv + m_fc / inputs.P, conv_activations + fc_activations
    )
    outcome.derivations.append(
        memory_derivation(
            inputs,
            outcome.memory,
            "conv weights whole, FC weights / P; activations of N/P samples, FC outputs / P",
        )
    )
    return outcome


def hybrid_bytes(ctx: Context, m_conv: float) -> tuple[float, dict[str, float]]:
    """Bytes per worker per step: the catalogue's hybrid formula at this network's sizes."""
    inputs = ctx.inputs
    values = {
        "gamma": float(inputs.gamma),
        "m_conv": m_conv,
        "N": float(inputs.batch),
        "C_fc": fc_boundary_width(ctx.network, inputs.P),
        "P": float(inputs.P),
    }
    return float(evaluate(ctx.formulas["hybrid.bytes"], values)), values


def _activation_exchange(ctx: Context, outcome: Outcome, m_conv: float, is_fc) -> float:
    inputs = ctx.inputs
    if inputs.P == 1:
        return 0.0
    total, values = hybrid_bytes(ctx, m_conv)
    gradient_part = float(evaluate(ctx.formulas["data_parallel.bytes"], {**values, "m": m_conv}))
    exchanges = int(is_fc.sum()) + 1
    messages = 2 * exchanges * (inputs.P - 1)
    activation_bytes = total - gradient_part
    time = messages * inputs.latency + activation_bytes * inputs.G
    hybrid_record = ctx.formulas["hybrid.bytes"]
    outcome.derivations.append(
        Derivation(
            "bytes per worker per step (hybrid)",
            total,
            "bytes",
            hybrid_record.formula,
            substitute(hybrid_record.formula, values),
            [hybrid_record],
            note=f"C_fc = Σ FC inputs + last FC outputs / P = {number_text(values['C_fc'])}.",
        )
    )
    outcome.derivations.append(
        Derivation(
            "activation exchange time",
            time,
            "s",
            "messages·L + (hybrid bytes − gradient bytes)·G",
            f"{messages}·{number_text(inputs.latency)} + ({number_text(total)} − "
            f"{number_text(gradient_part)})·{number_text(inputs.G)}",
            [hybrid_record, ctx.formulas["data_parallel.bytes"], POINT_TO_POINT],
            note=f"{exchanges} exchanges (into each FC layer, logits back), each forward and "
            "backward, P−1 messages per node each.",
        )
    )
    outcome.sources += [hybrid_record, ctx.formulas["data_parallel.bytes"], POINT_TO_POINT]
    return time


ZERO = Assumption(
    "zero-sharding",
    "ZeRO-DP: optimizer state, gradients, then parameters sharded over the P nodes",
    "stage 1: W + G + O/P; stage 2: W + (G + O)/P; stage 3: (W + G + O)/P; "
    "stage 3 exchanges 1.5 times data parallelism's volume",
    "After the survey: Rajbhandari et al., ZeRO (SC 2020). Its three stages partition, "
    "cumulatively, the optimizer states, the gradients and the parameters over the N_d "
    "data-parallel devices (transcribed at https://junaidaliop.github.io/zij/math/zero/); "
    "partitioning the parameters costs 3Ψ of communication against 2Ψ for data parallelism "
    "(https://vuink.com/post/aa-d-dynozy-d-dnv/scaling/zero3/index-d-dhtml), the first two "
    "stages keep its volume (https://lelepado01.github.io/FoundationModel4ClimateNotes/zero.html). "
    "The memory per stage is what the stages' definition implies; not a catalogue cost model.",
    status="after the survey",
    works=("rajbhandari2020zero",),
)


def zero(ctx: Context, stage: int) -> Outcome:
    """Data parallelism with a ring allreduce, its model state sharded as ZeRO's `stage` says."""
    outcome = data_parallel(ctx, "ring")
    outcome.slug = f"zero-{stage}"
    outcome.name = f"ZeRO stage {stage} (after the survey): sharded data parallelism"
    outcome.sources.append(ZERO)
    if not outcome.applicable:
        return outcome
    inputs = ctx.inputs
    if stage == 3 and inputs.P > 1:
        outcome.communication *= 1.5
        outcome.derivations.append(
            Derivation(
                "communication time (stage 3)",
                outcome.communication,
                "s",
                "1.5 · ring allreduce time",
                "3Ψ instead of 2Ψ: the parameters are gathered before use",
                [ZERO],
            )
        )
    parameters = float(ctx.parameters.sum())
    shards = {1: ("optimizer_state",), 2: ("optimizer_state", "gradients")}.get(
        stage, ("optimizer_state", "gradients", "weights")
    )
    memory = dict(outcome.memory)
    for part in shards:
        memory[part] /= inputs.P
    memory["total"] = sum(
        memory[p] for p in ("weights", "gradients", "optimizer_state", "activations")
    )
    outcome.memory = memory
    outcome.derivations = [d for d in outcome.derivations if d.quantity != "memory per node"]
    outcome.derivations.append(
        memory_derivation(
            inputs, memory, f"stage {stage}: {', '.join(shards)} divided by P = {inputs.P}"
        )
    )
    outcome.notes.append(
        f"After the survey ({parameters:,.0f} parameters): ZeRO [rajbhandari2020zero]."
    )
    return outcome


INTERLEAVED = Assumption(
    "interleaved-pipeline",
    "Interleaved pipeline schedule: v model chunks per node",
    "idle / v, stage-boundary communication × v",
    "After the survey: the interleaved schedule of Narayanan et al. (SC 2021, arXiv 2104.04473, "
    "§2.2.2; the schedule is described at https://developer.sourcefind.cn/codes/OpenDAS/"
    "megatron-lm/-/commit/ab9a79791de91a2fa99d0d52379e23bcd652c61f). Each node holds v "
    "non-contiguous chunks of layers, which divides the bubble by v and multiplies the messages "
    "between stages by v. UNCONFIRMED: this reduction is the issue's statement of the paper's "
    "result; we could not cite the paper's formula.",
    status="after the survey (unconfirmed)",
    works=("narayanan2021efficient",),
)


def interleaved(ctx: Context) -> Outcome:
    """GPipe-style pipelining with v chunks per node: the bubble shrinks v times (unconfirmed)."""
    inputs = ctx.inputs
    chunks = inputs.chunks
    outcome = layer_split(ctx, inputs.micro_batches)
    outcome.slug = "pipeline-interleaved"
    outcome.name = (
        f"Interleaved pipeline (after the survey), v = {chunks} chunks, M = {inputs.micro_batches}"
    )
    outcome.sources.append(INTERLEAVED)
    layers = len(ctx.network.layers)
    if outcome.applicable and inputs.P * chunks > layers:
        return outcome.not_applicable(
            f"P·v = {inputs.P * chunks} chunks, more than the {layers} layers"
        )
    if not outcome.applicable:
        return outcome
    idle, communication = outcome.idle / chunks, outcome.communication * chunks
    outcome.derivations.append(
        Derivation(
            "idle and communication time (interleaved)",
            idle + communication,
            "s",
            INTERLEAVED.formula,
            f"idle {number_text(outcome.idle)} / {chunks} + communication "
            f"{number_text(outcome.communication)} × {chunks}",
            [INTERLEAVED],
        )
    )
    outcome.idle, outcome.communication = idle, communication
    return outcome


EXCHANGE_ROLES = (
    "parameter_server.time",
    "allreduce.ring",
    "allreduce.tree",
    "allreduce.butterfly",
    "allreduce.rabenseifner",
)


def prime_exchanges(ctx: Context, points: list[int]) -> None:
    """Evaluate the gradient-exchange formulas for every P of a sweep at once (P an array) and
    keep each value under the key its scalar evaluation would have: the same numbers, one
    evaluation per formula instead of one per P."""
    is_fc = np.array([row["kind"] == "fc" for row in ctx.network.layers])
    sizes = {float(ctx.parameters.sum()), float(ctx.parameters[~is_fc].sum())}
    for role in EXCHANGE_ROLES:
        record = ctx.formulas[role]
        for elements in sizes:
            per_p = [gradient_exchange_values(ctx.inputs.with_p(p), elements)[0] for p in points]
            arrays = {name: np.array([v[name] for v in per_p]) for name in per_p[0]}
            results = np.broadcast_to(evaluate(record, arrays), (len(points),))
            for values, result in zip(per_p, results, strict=True):
                ctx.memo[memo_key(record, values)] = float(result)
    bubble = ctx.formulas["pipeline.bubble"]
    stage_counts = sorted({float(min(p, len(ctx.network.layers))) for p in points})
    for m in {1.0, float(ctx.inputs.micro_batches)}:
        counts = {"P": np.array(stage_counts), "M": np.full(len(stage_counts), m)}
        results = np.broadcast_to(evaluate(bubble, counts), (len(stage_counts),))
        for count, result in zip(stage_counts, results, strict=True):
            ctx.memo[memo_key(bubble, {"P": count, "M": m})] = float(result)


def all_outcomes(ctx: Context) -> list[Outcome]:
    inputs = ctx.inputs
    ctx.prime([inputs.batch, inputs.batch / inputs.P, inputs.batch / inputs.micro_batches])
    outcomes = [data_parallel(ctx, "ps")]
    outcomes += [data_parallel(ctx, name) for name in ("ring", "tree", "butterfly", "rabenseifner")]
    outcomes += [layer_split(ctx, 1), layer_split(ctx, ctx.inputs.micro_batches)]
    outcomes.append(hybrid(ctx))
    outcomes += [zero(ctx, stage) for stage in (1, 2, 3)]
    outcomes.append(interleaved(ctx))
    return outcomes


def describe(outcome: Outcome, ctx: Context, detailed: bool = True) -> dict[str, Any]:
    """An outcome as the API shows it (before ranking); a sweep point needs no derivations."""
    single = ctx.single_node_time
    fits = outcome.applicable and outcome.memory.get("total", 0.0) <= ctx.inputs.memory
    speedup = single / outcome.step if outcome.applicable and outcome.step > 0 else None
    unique = list({id(s): s for s in outcome.sources}.values()) if detailed else []
    unconfirmed = [s.label for s in unique if s.status not in TRUSTED_STATUSES]
    reason = outcome.reason
    if outcome.applicable and not fits:
        reason = (
            f"does not fit: {number_text(outcome.memory['total'] / 1e9)} GB per node, "
            f"{number_text(ctx.inputs.memory_gb)} GB available"
        )
    return {
        "slug": outcome.slug,
        "name": outcome.name,
        "applicable": outcome.applicable,
        "step_time": outcome.step if outcome.applicable else None,
        "compute_time": outcome.compute if outcome.applicable else None,
        "communication_time": outcome.communication if outcome.applicable else None,
        "idle_time": outcome.idle if outcome.applicable else None,
        "memory_per_node": outcome.memory or None,
        "fits": fits,
        "reason": reason,
        "speedup": speedup,
        "efficiency": speedup / ctx.inputs.P if speedup is not None else None,
        "cost_models": [s.reference() for s in unique],
        "unconfirmed": unconfirmed,
        "notes": outcome.notes,
        "techniques": list(outcome.techniques),
        "demos": list(outcome.demos),
        "derivations": [d.as_dict() for d in outcome.derivations] if detailed else [],
    }


STRATEGY_SLUGS = (
    "data-ps",
    "data-ring",
    "data-tree",
    "data-butterfly",
    "data-rabenseifner",
    "model-layer-split",
    "pipeline",
    "hybrid",
    "zero-1",
    "zero-2",
    "zero-3",
    "pipeline-interleaved",
)
