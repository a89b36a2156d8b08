"""The planner's one registry of strategies: every strategy once, by slug, with how it is
evaluated for each kind of network it applies to and why it does not apply to the others.

Two kinds of network produce the planner's network model (network_model.py): a layer table (the
survey's CNNs, networks.py) and a transformer configuration (transformer.py). A strategy applies
to a kind when it has an evaluator for it: a `Family` composition over the layer table's costs
(one module of this package per family), or a `TransformerStrategy`, a family of the layout
space dp × tp × pp with its ZeRO stage, sequence parallelism and schedule (layout_families.py,
layouts/). ZeRO and the 1F1B and interleaved pipelines are one entry each, for both kinds.

Adding a strategy: its evaluator (a family module appended to FAMILIES, or a TransformerStrategy
appended to tensor.STRATEGIES); the registry, the form's choices and the API's schema follow.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.workloads.network_model import LAYER_TABLE, TRANSFORMER

from . import data, hybrid, model, pipeline, sharded
from .base import Family
from .layout_families import STRATEGIES, TransformerStrategy

FAMILIES: tuple[Family, ...] = (
    data.FAMILY,
    model.FAMILY,
    pipeline.FAMILY,
    hybrid.FAMILY,
    sharded.FAMILY,
    pipeline.INTERLEAVED_FAMILY,
)

# Why a strategy of one kind says nothing about a network of the other.
NOT_FOR = {
    LAYER_TABLE: "a transformer's strategy: it splits attention heads, the sequence or experts, "
    "which a CNN's layer table does not have",
    TRANSFORMER: "a strategy of the survey's layer-table model (a CNN's layers split whole, a "
    "parameter server or an allreduce algorithm per exchange); a transformer's layers are "
    "searched in the layout space instead",
}


@dataclass(frozen=True)
class Entry:
    slug: str
    layer_table: Family | None = None  # the family whose composition yields it
    transformer: TransformerStrategy | None = None

    def applies(self, kind: str) -> bool:
        return (self.layer_table if kind == LAYER_TABLE else self.transformer) is not None

    def reason(self, kind: str) -> str:
        """Why it does not apply to this kind of network ("" where it does)."""
        return "" if self.applies(kind) else NOT_FOR[kind]


def _registry() -> tuple[Entry, ...]:
    entries: dict[str, Entry] = {}
    for family in FAMILIES:
        for slug in family.strategies:
            entries[slug] = Entry(slug, layer_table=family)
    for strategy in STRATEGIES:
        known = entries.get(strategy.slug, Entry(strategy.slug))
        entries[strategy.slug] = Entry(strategy.slug, known.layer_table, strategy)
    return tuple(entries.values())


REGISTRY: tuple[Entry, ...] = _registry()
ALL_STRATEGY_SLUGS: tuple[str, ...] = tuple(entry.slug for entry in REGISTRY)


def families_for_layer_tables() -> tuple[Family, ...]:
    """The families a layer-table network's strategies come from, in display order."""
    found = (entry.layer_table for entry in REGISTRY if entry.layer_table is not None)
    return tuple(dict.fromkeys(found))


def transformer_strategies() -> tuple[TransformerStrategy, ...]:
    """The strategies a transformer is planned with, in their module's order (the layout
    families from the simplest to the whole search)."""
    return tuple(s for s in STRATEGIES if any(e.transformer is s for e in REGISTRY))
