"""The plan of a transformer: the network beside its paper (transformer_network.py), the
registry's strategies for transformers (each the fastest layout of its family in the layout
space, layouts/), and the whole layout search ranked, with why the others lose; built by
shape.build like a layer table's, plus `layouts`. Numbers in, dicts out; no ORM."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from explorer.workloads.formulas import (
    TRANSFORMER_ROLES,
    TRUSTED_STATUSES,
    Derivation,
    Formulas,
    check_complete,
    number_text,
)
from explorer.workloads.transformers.shapes import TransformerConfig, check, config_for

from ..layouts.sources import part_sources, sources_at, unconfirmed_uses
from ..layouts.space import (
    IN_FLIGHT,
    LAYOUT_FIELDS,
    MOST_LOADED_STAGE,
    SIXTEEN_BIT,
    STEP_ARRAYS,
    Layouts,
    best,
    candidates,
    factorisations,
)
from ..layouts.step import evaluate_together
from ..layouts.table import layouts_document, time_to_train
from ..layouts.variants import evaluate_variants, expert_sizes, recompute_modes, step_flops
from ..machine import MAX_P, Inputs, PlannerInputError
from ..sensitivity import sensitivity, with_layouts
from ..shape import Plan, Strategy, build, ranked
from ..strategies.base import PRECISION
from ..strategies.layout_families import TransformerStrategy
from ..strategies.registry import transformer_strategies
from .network import network_document

RANKING_NOTE = (
    "Each strategy is the fastest layout of its family that fits in memory; the layouts table "
    "ranks every factorisation P = dp × tp × pp. The data-parallel gradient exchange runs in "
    "buckets during the last micro-batch's backward pass (overlap=false: after it) and only what "
    "outlasts it counts; tensor, pipeline and expert communication is not overlapped "
    "(pessimistic); compute runs at peak × efficiency."
)


def config_of(inputs: Inputs) -> TransformerConfig:
    config = config_for(inputs.network, inputs.query())
    problem = check(config)
    if problem:
        raise PlannerInputError(*problem)
    return config


def plan(inputs: Inputs, formulas: Formulas) -> Plan:
    check_complete(formulas, TRANSFORMER_ROLES | {"allreduce.ring": ("", "")})
    config = config_of(inputs)
    if inputs.cp and inputs.cp > 1 and config.seq_len % (2 * inputs.cp):
        raise PlannerInputError(
            f"cp ({inputs.cp}) must divide half the sequence length (seq_len {config.seq_len}): "
            "the sequence is split in 2·cp chunks",
            "cp",
        )
    triples = factorisations(inputs, config)
    if not triples:
        raise PlannerInputError(
            f"tp: no layout of P = {inputs.P} with tp at most devices_per_node "
            f"({inputs.devices_per_node}) matches the pinned tp, pp, dp, cp"
        )
    model, flops = step_flops(config, inputs.batch, inputs.transformer_recompute, formulas)
    families = [
        s
        for s in transformer_strategies()
        if s.slug != "3d" and not (s.moe_only and not config.moe_layers)
    ]
    sharded = inputs.zero_free and inputs.zero < 3
    found = evaluate_variants(inputs, config, formulas, triples, families, sharded)
    search = _row_wise_better(found[0], found[1])
    if sharded:
        search = _row_wise_better(search, _row_wise_better(found[2], found[3]))
    evaluated = found[4:] if sharded else found[2:]
    by_family = {family.slug: found for family, found in zip(families, evaluated, strict=True)}
    strategies = [
        _strategy(strategy, inputs, config, formulas, search, by_family.get(strategy.slug))
        for strategy in transformer_strategies()
    ]
    network = network_document(inputs, config, formulas, flops)
    single = model.single_device_time(inputs.achieved_flops)
    for strategy in strategies:
        if strategy["applicable"] and strategy["step_time"]:
            strategy["speedup"] = single / strategy["step_time"]
            strategy["efficiency"] = strategy["speedup"] / inputs.P
    ordered = ranked(strategies)
    layouts = layouts_document(search, inputs)
    layouts["to_fit"] = None if search.out["fits"].any() else to_fit(inputs, config, formulas)
    return build(
        inputs,
        network,
        single,
        RANKING_NOTE,
        ordered,
        _sensitivity(strategies, search, inputs, formulas),
        None,
        layouts,
    )


def _changes(inputs: Inputs) -> list[tuple[str, dict[str, Any]]]:
    """The changes tried when nothing fits, smallest first: shard more (ZeRO-3), recompute
    more, both, then more devices (each doubling, within the planner's bound)."""
    found: list[tuple[str, dict[str, Any]]] = []
    if inputs.zero < 3:
        found.append(("zero=3 (parameters, gradients and optimizer state sharded)", {"zero": 3}))
    if inputs.recompute != "full":
        found.append(
            ("recompute=full (every layer's activations recomputed)", {"recompute": "full"})
        )
        if inputs.zero < 3:
            found.append(("zero=3 and recompute=full", {"zero": 3, "recompute": "full"}))
    devices = inputs.P
    for _ in range(4):
        devices *= 2
        if devices > MAX_P:
            break
        found.append((f"P={devices} devices (the batch and the pinned sizes kept)", {"P": devices}))
    return found


def to_fit(inputs: Inputs, config: TransformerConfig, formulas: Formulas) -> dict[str, Any] | None:
    """The smallest change (in _changes' order) under which some layout fits, with that layout
    and its memory per device; None when none of them makes one fit. The batch must still
    split: dp pinned by the user is dropped for a larger P (said so). The changes at the query's
    P (ZeRO-3, recomputation: per-row axes of the search) are evaluated in one pass."""
    changes = _changes(inputs)
    same_p = [change for change in changes if "P" not in change[1]]
    for group in [same_p, *([change] for change in changes[len(same_p) :])]:
        found = _first_that_fits(group, inputs, config, formulas)
        if found is not None:
            return found
    return None


def _first_that_fits(changes, inputs: Inputs, config: TransformerConfig, formulas: Formulas):
    """The first of `changes` (all at one P) under which a layout fits, as to_fit says it."""
    tried = []
    for text, change in changes:
        changed = replace(inputs, **change)
        if "P" in change and inputs.dp:
            changed = replace(changed, dp=None)
        triples = factorisations(changed, config)
        if triples:
            tried.append((text, change, changed, candidates(changed, config, triples)))
    if not tried:
        return None
    base = tried[0][2]
    flops = {
        each.transformer_recompute: step_flops(
            config, each.batch, each.transformer_recompute, formulas
        )[1]
        for each in [base] + [changed for _, _, changed, _ in tried]
    }
    sets = evaluate_together([found for *_, found in tried], base, config, formulas, flops)
    for (text, change, _, _), layouts in zip(tried, sets, strict=True):
        index = best(layouts, layouts.out["fits"])
        if index is not None and layouts.out["fits"][index]:
            return {
                "change": text,
                "query": {name: str(value) for name, value in change.items()},
                "layout": layouts.row(index),
                "memory_per_device": float(layouts.out["total"][index]),
                "step_time": float(layouts.out["step"][index]),
            }
    return None


def _strategy(
    strategy: TransformerStrategy,
    inputs: Inputs,
    config: TransformerConfig,
    formulas: Formulas,
    search: Layouts,
    evaluated: Layouts | None,
) -> Strategy:
    """A strategy's best layout: the search's for the whole 3-D family, else the best of its own
    evaluated candidates (`evaluated`, None for a mixture's family on a dense network)."""
    empty: dict[str, Any] = {
        "slug": strategy.slug,
        "name": strategy.name,
        "applicable": False,
        "step_time": None,
        "compute_time": None,
        "communication_time": None,
        "exposed_communication_time": None,
        "total_communication_time": None,
        "idle_time": None,
        "memory_per_node": None,
        "fits": False,
        "speedup": None,
        "efficiency": None,
        "time_to_train": None,
        "tokens_per_second": None,
        "achieved_flops_per_device": None,
        "mfu": None,
        "layout": None,
        "cost_models": [],
        "unconfirmed": [],
        "unconfirmed_numbers": None,
        "unconfirmed_parts": None,
        "notes": [],
        "techniques": list(strategy.techniques),
        "demos": list(strategy.demos),
        "derivations": [],
    }
    if strategy.moe_only and not config.moe_layers:
        return empty | {"reason": "a dense network: no experts to place"}
    if strategy.slug == "3d":
        layouts, index = search, best(search)
    else:
        layouts = evaluated
        mask = strategy.choose(layouts, inputs.devices_per_node)
        if strategy.moe_only:
            mask = mask & (layouts.out["expert_parallel"] > 1)
        index = best(layouts, mask)
    mask = strategy.choose(layouts, inputs.devices_per_node)
    if index is None:
        pinned = ", ".join(
            f"{n} = {getattr(inputs, n)}" for n in ("tp", "pp", "dp") if getattr(inputs, n)
        )
        why = "no layout of this family" + (f" with {pinned}" if pinned else "") + " can run"
        reasons = {r for r in layouts.out["reason"][mask] if r}
        return empty | {"reason": why + (f" ({'; '.join(sorted(reasons))})" if reasons else "")}
    return describe(strategy, layouts, index, inputs, config, formulas)


def _row_wise_better(first: Layouts, second: Layouts) -> Layouts:
    """The same candidates, each row from whichever evaluation is better: valid over invalid, one
    that fits over one that does not, then the shorter step (the first on a tie)."""
    a, b = first.out, second.out

    def key(out: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (~out["valid"], ~out["fits"], out["step"])

    (va, fa, sa), (vb, fb, sb) = key(a), key(b)
    take = (vb < va) | ((vb == va) & ((fb < fa) | ((fb == fa) & (sb < sa))))
    chosen = Layouts(
        **{f: np.where(take, getattr(second, f), getattr(first, f)) for f in LAYOUT_FIELDS}
    )
    chosen.out = {name: np.where(take, b[name], values) for name, values in a.items()}
    return chosen


def describe(
    strategy: TransformerStrategy,
    layouts: Layouts,
    index: int,
    inputs: Inputs,
    config: TransformerConfig,
    formulas: Formulas,
) -> Strategy:
    out = {name: values[index] for name, values in layouts.out.items()}
    memory = {
        part: float(out[part])
        for part in ("weights", "gradients", "optimizer_state", "activations", "buffers", "total")
    }
    fits = bool(out["fits"])
    parts = sources_at(part_sources(layouts, inputs, formulas, config.frozen), index)
    derivations = _derivations(layouts, index, inputs, config, formulas, parts)
    sources = list({id(s): s for d in derivations for s in d.sources}.values())
    unconfirmed = [s.label for s in sources if s.status not in TRUSTED_STATUSES]
    step = float(out["step"])
    tokens_per_second = float(out["tokens_per_second"])
    layout = layouts.row(index) | {"micro_batches": int(out["micro_batches"])}
    if config.moe_layers:
        layout["expert_parallel"] = int(out["expert_parallel"])
    reason = ""
    if not fits:
        reason = (
            f"does not fit: {number_text(memory['total'] / 1e9)} GB per device, "
            f"{number_text(inputs.memory_gb)} GB available"
        )
    resting = sum(any(s.status not in TRUSTED_STATUSES for s in d.sources) for d in derivations)
    return {
        "slug": strategy.slug,
        "name": strategy.name,
        "applicable": True,
        "step_time": step,
        "compute_time": float(out["compute"]),
        "communication_time": float(out["communication"]),
        "exposed_communication_time": float(out["communication"]),
        "total_communication_time": float(out["total_communication"]),
        "idle_time": float(out["bubble"]),
        "memory_per_node": memory,
        "fits": fits,
        "reason": reason,
        "speedup": None,
        "efficiency": None,
        "time_to_train": time_to_train(inputs, tokens_per_second),
        "tokens_per_second": tokens_per_second,
        "achieved_flops_per_device": float(out["achieved_flops"]),
        "mfu": float(out["mfu"]),
        "layout": layout,
        "communication": {
            part: float(out[part])
            for part in ("tensor", "pipeline", "data", "data_total", "expert", "context")
        },
        "cost_models": [s.reference() for s in sources],
        "unconfirmed": unconfirmed,
        "unconfirmed_numbers": {"unconfirmed": resting, "numbers": len(derivations)},
        "unconfirmed_parts": _unconfirmed_parts(parts),
        "notes": [
            f"Layout dp = {layout['dp']}, tp = {layout['tp']}, pp = {layout['pp']}, "
            f"cp = {layout['cp']} "
            f"({layout['schedule']}, {layout['micro_batches']} micro-batches of "
            f"{inputs.micro_batch_size}); ZeRO stage {layout['zero']}; recomputation "
            f"{layout['recompute']}{_searched(inputs, fits)}."
        ]
        + _schedule_notes(inputs, config, layout, strategy.slug == "3d"),
        "techniques": list(strategy.techniques),
        "demos": list(strategy.demos),
        "derivations": [d.as_dict() for d in derivations],
    }


def _schedule_notes(
    inputs: Inputs, config, layout: dict[str, Any], searched_schedule: bool
) -> list[str]:
    """What the layout does not honour of the request, said rather than dropped: uneven stages,
    and chunks the layout does not use (`searched_schedule`: the strategy chooses the schedule)."""
    notes = []
    pp, layers = layout["pp"], config.layers
    heaviest = -(-layers // pp)
    if pp > 1 and layers % pp:
        notes.append(
            f"Uneven stages: {layers} layers on {pp} stages, at most {heaviest} on a stage "
            f"(the pipeline runs at the pace of that stage: {heaviest * pp / layers:.3g}× the "
            "mean)."
        )
    if searched_schedule and inputs.chunks > 1 and layout["chunks"] == 1 and pp > 1:
        why = (
            f"the most loaded stage's {heaviest} layers do not split into {inputs.chunks} equal "
            "chunks"
            if heaviest % inputs.chunks
            else "plain 1F1B is faster here, or fits where interleaving does not"
        )
        notes.append(f"chunks = {inputs.chunks} not applied: {why}; the schedule is 1F1B.")
    return notes


def _derivations(layouts, index, inputs, config, formulas, parts) -> list[Derivation]:
    out = {name: values[index] for name, values in layouts.out.items()}
    row = layouts.row(index)
    tp, pp, v = row["tp"], row["pp"], row["chunks"]
    b, m = inputs.micro_batch_size, float(out["micro_batches"])
    derivations = [
        Derivation(
            "compute time",
            float(out["compute"]),
            "s",
            "training FLOPs / (P · peak · efficiency) · stage imbalance",
            f"{number_text(out['hardware_flops'])} / ({inputs.P} · {number_text(inputs.flops)} · "
            f"{number_text(inputs.efficiency)}) · {number_text(out['stage_imbalance'])}",
            parts["compute"],
            note=f"Recomputation {row['recompute']}{_searched(inputs, bool(out['fits']))}."
            + (" LoRA: the base frozen (lora-frozen-base)." if config.frozen else ""),
        ),
        Derivation(
            "bubble (idle) time",
            float(out["bubble"]),
            "s",
            "compute · (p − 1)/(v·m)",
            f"p = {pp}, v = {v}, m = {number_text(m)}",
            parts["bubble"],
        ),
        Derivation(
            "tensor-parallel communication",
            float(out["tensor"]),
            "s",
            "layers per stage · m · allreduces per layer · ring allreduce(t, b·s·h)",
            f"t = {tp}, {number_text(config.layers / pp)} layers, m = {number_text(m)}, "
            f"b·s·h = {number_text(b * config.seq_len * config.hidden)} values; intra-node link",
            parts["tensor"],
        ),
        Derivation(
            "pipeline communication",
            float(out["pipeline"]),
            "s",
            "2 · m · v · (L + b·s·h·b_a/(t if sequence parallel) · G)",
            f"p = {pp}, m = {number_text(m)}, v = {v}",
            parts["pipeline"],
        ),
        *_data_derivations(out, row, inputs, parts["data"]),
        _memory_derivation(out, inputs, row, formulas),
    ]
    if row["cp"] > 1:
        derivations.append(
            Derivation(
                "context-parallel communication (ring attention)",
                float(out["context"]),
                "s",
                "layers per stage · m · 3 · (cp − 1) · (L + 2·b·(s/cp)·kv width/t · b_a · G)",
                f"cp = {row['cp']}, t = {tp}, s/cp = {number_text(config.seq_len / row['cp'])}",
                parts["context"],
            )
        )
    if config.moe_layers:
        derivations.append(
            Derivation(
                "expert all-to-all communication",
                float(out["expert"]),
                "s",
                "MoE layers per stage · m · 4 all-to-alls of k·b·s·h/t values",
                f"expert-parallel devices {int(out['expert_parallel'])}"
                + _ep_searched(inputs, config),
                parts["expert"],
            )
        )
    derivations.append(_overlap_derivation(out, inputs))
    return derivations


def _overlap_derivation(out: dict, inputs: Inputs) -> Derivation:
    """What of the tensor, pipeline, expert and context exchanges the compute hides, by switch
    (the values above are what stays exposed)."""
    switches = {
        "tensor": inputs.overlap_tensor,
        "pipeline": inputs.overlap_pipeline,
        "expert": inputs.overlap_expert,
        "context": inputs.overlap_context,
        "ZeRO-3 gathers": inputs.overlap_zero3,
    }
    on = [name for name, value in switches.items() if value]
    off = [name for name, value in switches.items() if not value]
    return Derivation(
        "communication hidden behind compute",
        float(out["hidden"]),
        "s",
        "Σ over the overlapped exchanges of min(exchange, the compute it overlaps: the linear "
        "layers' for tensor and expert, the attention core's for the ring, all of it else)",
        f"overlapped: {', '.join(on) or 'none'}; exposed: {', '.join(off) or 'none'} "
        "(overlap_tensor, overlap_pipeline, overlap_expert, overlap_context, overlap_zero3)",
        [],
        note="Defaults as Megatron-Core's ModelParallelConfig (tp_comm_overlap and "
        "overlap_p2p_comm False), Transformer Engine's context-parallel ring (overlapped) and "
        "DeepSpeed's ZeRO-3 (overlap_comm True for stage 3). The ZeRO-3 gathers' hidden part "
        "shows in the data-parallel exchange.",
    )


def _data_derivations(out: dict, row: dict, inputs: Inputs, sources: list) -> list[Derivation]:
    """The data-parallel gradient exchange: all of it, on which links, and what is exposed."""
    dp, in_node = row["dp"], int(out["dp_in_node"])
    if dp == 1:
        where = "one replica: nothing to exchange"
    elif out["hierarchical"]:
        where = (
            f"hierarchical: ring over the {in_node} members in a node (intra-node link), then "
            f"each member's 1/{in_node} share over {math.ceil(dp / in_node)} nodes "
            f"({inputs.allreduce} allreduce, each on its own link between nodes)"
        )
    else:
        where = "inside one node" if in_node == dp else "between nodes, one member per node"
        where += f" ({inputs.allreduce} allreduce)" if in_node < dp else ""
    total = Derivation(
        "data-parallel gradient exchange (all of it)",
        float(out["data_total"]),
        "s",
        "Σ buckets two-level allreduce(dp, bucket values): ring inside a node, the reader's "
        "allreduce across nodes on each member's share (× 1.5 for ZeRO-3)",
        f"dp = {dp}, {number_text(out['parameters_per_device'])} parameters per device, "
        f"{int(out['buckets'])} bucket(s) of up to {number_text(inputs.bucket_mb)} MB; {where}",
        sources,
    )
    exposed = Derivation(
        "data-parallel gradient exchange (exposed)",
        float(out["data"]),
        "s",
        "end of the last bucket − end of the last micro-batch's backward pass"
        if inputs.overlap
        else "all of it (overlap=false)",
        f"{number_text(float(out['data_total'] - out['data']))} s hidden behind the backward pass",
        sources,
    )
    return [total, exposed]


def _memory_derivation(out: dict, inputs: Inputs, row: dict, formulas: Formulas) -> Derivation:
    return Derivation(
        "memory per device",
        float(out["total"]),
        "bytes",
        "model states of the most loaded stage (ZeRO-sharded) + activations · in flight + buffers",
        f"weights {number_text(out['weights'] / 1e9)} GB, gradients "
        f"{number_text(out['gradients'] / 1e9)} GB, optimizer state "
        f"{number_text(out['optimizer_state'] / 1e9)} GB, activations "
        f"{number_text(out['activations'] / 1e9)} GB, buffers "
        f"{number_text(out['buffers'] / 1e9)} GB",
        [
            MOST_LOADED_STAGE,
            PRECISION,
            IN_FLIGHT,
            SIXTEEN_BIT,
            _activation_role(inputs, row, formulas),
        ],
        note="Fits." if out["fits"] else "Does not fit.",
    )


def _unconfirmed_parts(parts: dict[str, list]) -> dict[str, list[str]]:
    """The strategy's step parts (sensitivity.py's compute, communication, idle) -> the labels of
    the unconfirmed sources each rests on."""
    grouped = {
        "compute": parts["compute"],
        "communication": [
            s for p in ("tensor", "pipeline", "data", "expert", "context") for s in parts[p]
        ],
        "idle": parts["bubble"],
    }
    return {
        part: sorted({s.label for s in sources if s.status not in TRUSTED_STATUSES})
        for part, sources in grouped.items()
    }


def _sensitivity(strategies, search: Layouts, inputs: Inputs, formulas: Formulas) -> dict:
    """Which unconfirmed terms change the best strategy, and the best layout of the search."""
    uses = unconfirmed_uses(part_sources(search, inputs, formulas))
    steps = {part: search.out[part] for part in STEP_ARRAYS}

    def name(index: int) -> str:
        row = search.row(index)
        cp = f" × cp {row['cp']}" if row["cp"] > 1 else ""
        return f"dp {row['dp']} × tp {row['tp']} × pp {row['pp']}{cp}"

    return with_layouts(sensitivity(strategies), steps, uses, search.out["fits"], name)


def _ep_searched(inputs: Inputs, config: TransformerConfig) -> str:
    tried = expert_sizes(inputs, config)[1:]
    if not tried:
        return ""
    return (
        f" (searched: {', '.join(map(str, tried))} and the divisor of dp leaving the fewest "
        "experts on a device; the fastest that fits; ep= pins it)"
    )


def _searched(inputs: Inputs, fits: bool) -> str:
    """What the notes say of a recomputation the search chose."""
    tried = recompute_modes(inputs)
    if len(tried) == 1:
        return ""
    why = "the fastest that fits" if fits else "none fits: the one needing the least memory"
    return f" (searched among {', '.join(tried)}: {why} for this layout; give recompute to pin it)"


def _activation_role(inputs: Inputs, row: dict, formulas: Formulas):
    inputs = replace(inputs, recompute=row["recompute"])
    if inputs.recompute == "full":
        return formulas["activations.full"]
    suffix = ".selective" if inputs.transformer_recompute == "selective" else ""
    if row["tp"] == 1 or row["sequence_parallel"]:
        return formulas[f"activations.sequence{suffix}"]
    return formulas[f"activations.tensor{suffix}"]
