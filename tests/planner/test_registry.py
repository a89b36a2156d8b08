"""The one registry of strategies: every strategy once, for the kinds of network it applies to,
with its reason for the others; the form and the API offer exactly its slugs."""

from explorer.planner.forms import PlannerForm
from explorer.planner.strategies.registry import REGISTRY, transformer_strategies
from explorer.workloads.network_model import KINDS, LAYER_TABLE, TRANSFORMER


def test_every_strategy_is_one_entry_that_applies_somewhere_with_a_reason_elsewhere():
    slugs = [entry.slug for entry in REGISTRY]
    assert len(slugs) == len(set(slugs))
    for entry in REGISTRY:
        applies = [kind for kind in KINDS if entry.applies(kind)]
        assert applies, entry.slug
        for kind in KINDS:
            assert (entry.reason(kind) == "") == (kind in applies)


def test_zero_and_the_1f1b_pipelines_are_one_entry_for_both_kinds():
    both = {e.slug for e in REGISTRY if e.applies(LAYER_TABLE) and e.applies(TRANSFORMER)}
    assert both == {"zero-1", "zero-3", "pipeline-1f1b", "pipeline-interleaved"}
    assert [s.slug for s in transformer_strategies()][:3] == ["data", "zero-1", "zero-3"]


def test_the_form_offers_the_registrys_slugs():
    choices = [slug for slug, _ in PlannerForm().fields["strategy"].choices]
    assert choices == [entry.slug for entry in REGISTRY]
