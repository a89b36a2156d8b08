"""The search's variants of every candidate set (layouts/space.py), evaluated together: the
recomputation and the expert-parallel size, where the query leaves them free, each row keeping
its best variant (issue 46). Pure: numbers in, arrays out."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from explorer.workloads.formulas import Formulas
from explorer.workloads.network_model import transformer_step
from explorer.workloads.transformers.shapes import TransformerConfig

from ..machine import RECOMPUTE, Inputs, recompute_effect
from .space import LAYOUT_FIELDS, Layouts, candidates, concatenate
from .step import evaluate_together


def evaluate_variants(inputs, config, formulas, triples, families, sharded) -> list[Layouts]:
    """Every candidate set (_candidate_sets) evaluated in one vectorised pass under each
    recomputation that changes something (recomputation left free), and the search's sets (they
    come first) at each expert-parallel size too (ep left free: each family keeps the default
    choice); each row the best of its variants, the query's own first on a tie."""
    modes = [replace(inputs, recompute=mode) for mode in recompute_modes(inputs)]
    by_mode = {
        each.transformer_recompute: step_flops(
            config, inputs.batch, each.transformer_recompute, formulas
        )[1]
        for each in modes
    }
    sets = [
        _candidate_sets(each, config, triples, families if ep == 0 else [], sharded, ep)
        for each in modes
        for ep in expert_sizes(inputs, config)
    ]
    variants = evaluate_together([concatenate(s) for s in sets], inputs, config, formulas, by_mode)
    full = len(variants[0])
    merged = _best_of([v for v in variants if len(v) == full])
    searched = len(variants[-1])
    if searched < full:
        prefix = [merged.rows(0, searched)] + [v for v in variants if len(v) == searched]
        merged = _joined(_best_of(prefix), merged.rows(searched, full))
    return _split(merged, sets[0])


# transformer_step's answers by (configuration, batch, recomputation), for the formulas they were
# computed with (held, so that the check by identity stays sound); a few hundred at most.
_STEPS: dict[tuple, tuple[Formulas, Any]] = {}


def step_flops(config: TransformerConfig, batch: int, recompute: str, formulas: Formulas):
    """transformer_step, remembered: the search evaluates up to three recomputations."""
    key = (config, batch, recompute)
    held = _STEPS.get(key)
    if held is None or held[0] is not formulas:
        if len(_STEPS) > 256:
            _STEPS.clear()
        held = _STEPS[key] = (formulas, transformer_step(config, batch, recompute, formulas))
    return held[1]


def recompute_modes(inputs: Inputs) -> list[str]:
    """The recomputations the search tries: the query's, then (left free) each other one that
    differs in effect (with FlashAttention's kernels none and selective are the same)."""
    modes = [inputs.recompute]
    if not inputs.recompute_free:
        return modes
    effects = {inputs.transformer_recompute}
    for mode in RECOMPUTE:
        effect = recompute_effect(mode, inputs.attention)
        if effect not in effects:
            modes.append(mode)
            effects.add(effect)
    return modes


def _best_of(variants: list[Layouts]) -> Layouts:
    """The same candidates evaluated several ways (recomputation, expert-parallel size), each
    row from the best: valid over invalid, one that fits over one that does not, then the
    shorter step, or of those that do not fit the least memory; the first on a tie."""
    if len(variants) == 1:
        return variants[0]
    outs = [variant.out for variant in variants]
    valid = np.stack([out["valid"] for out in outs])
    fits = np.stack([out["fits"] for out in outs])
    last = np.stack([np.where(out["fits"], out["step"], out["total"]) for out in outs])
    first = np.broadcast_to(np.arange(len(variants))[:, None], last.shape)
    choice = np.lexsort((first, last, ~fits, ~valid), axis=0)[0]
    rows = np.arange(last.shape[1])

    def pick(arrays: list[np.ndarray]) -> np.ndarray:
        return np.stack(arrays)[choice, rows]

    chosen = Layouts(**{f: pick([getattr(v, f) for v in variants]) for f in LAYOUT_FIELDS})
    chosen.out = {name: pick([out[name] for out in outs]) for name in outs[0]}
    return chosen


def _joined(first: Layouts, second: Layouts) -> Layouts:
    """Two evaluated sets as one, in order."""
    joined = concatenate([first, second])
    joined.out = {n: np.concatenate([v, second.out[n]]) for n, v in first.out.items()}
    return joined


def _split(evaluated: Layouts, sets: list[Layouts]) -> list[Layouts]:
    """The evaluated concatenation of `sets`, as the sets again."""
    found, start = [], 0
    for part in sets:
        found.append(evaluated.rows(start, start + len(part)))
        start += len(part)
    return found


def expert_sizes(inputs: Inputs, config: TransformerConfig) -> list[int]:
    """0 (the query's ep, else the default choice), then, for a mixture of experts whose ep
    the query leaves free, 1, 2, 4... up to the experts and P."""
    if not config.moe_layers or inputs.ep:
        return [0]
    largest = min(config.experts, inputs.P)
    return [0] + [2**k for k in range(largest.bit_length()) if 2**k <= largest]


def _candidate_sets(inputs, config, triples, families, sharded, ep=0) -> list[Layouts]:
    """Every candidate set at the inputs' recomputation and the expert-parallel size `ep` (all
    evaluated in one vectorised pass: a layout's row depends on its own values alone): the
    search interleaved and plain 1F1B (each row keeps the better, so the table and the
    strategies rank the same layouts), each at ZeRO-3 too where the stage is free (`sharded`),
    then each family's."""
    sets = [
        candidates(inputs, config, triples, ep=ep),
        candidates(inputs, config, triples, chunks=1, ep=ep),
    ]
    if sharded:
        sets += [candidates(inputs, config, triples, zero=3, chunks=c, ep=ep) for c in (None, 1)]
    sets += [candidates(inputs, config, triples, ep=ep, **family.options) for family in families]
    return sets
