"""Each round's scoring rule (catalogue.mlperf.scoring), without the database."""

import math

import pytest

from catalogue.mlperf.scoring import ROUNDS, Run, olympic, score


def runs(*minutes, starts=None):
    return [Run(i, m, None if starts is None else starts[i]) for i, m in enumerate(minutes)]


def test_it_drops_the_fastest_and_slowest():
    assert olympic([5.0, 1.0, 3.0, 4.0, 2.0], 1, 0) == 3.0


def test_it_counts_a_failure_as_slowest_only_when_allowed():
    assert olympic([1.0, 2.0, 3.0, 4.0, math.inf], 1, 1) == 3.0
    assert olympic([1.0, 2.0, 3.0, 4.0, math.inf], 1, 0) is None
    assert olympic([1.0, 2.0, 3.0, math.inf, math.inf], 1, 1) is None


def test_it_scores_a_v10_resnet_by_the_olympic_mean_and_names_its_rule():
    result = score("v1.0", "resnet", runs(30.0, 31.0, 29.0, 32.0, 28.0))
    assert result.minutes == 30.0
    assert (result.runs_successful, result.runs_required) == (5, 5)
    assert result.rule == "v1.0-olympic-5-drop-1"
    assert result.rule_url == (
        "https://github.com/mlcommons/training_policies/blob/"
        "47ef1fdc352b1b9f275d474b30fdf30109be4e1b/training_rules.adoc"
    )
    assert (result.rcp, result.scaling_factor) == ("not_in_rules", None)


def test_it_drops_four_of_each_side_of_forty_unet3d_runs():
    minutes = [10.0] * 32 + [1.0] * 4 + [100.0, 100.0, None, None]
    result = score("v2.0", "unet3d", runs(*minutes))
    assert result.minutes == 10.0
    assert result.rule == "v2.0-olympic-40-drop-4"


def test_it_refuses_a_result_with_two_failures_from_v07():
    result = score("v0.7", "bert", runs(*([5.0] * 8 + [None, None])))
    assert result.minutes is None
    assert result.note == "more non-converging runs than the rule allows"


def test_it_scores_only_converged_runs_in_v05_and_ncf_takes_the_first_fifty():
    ncf = [None if i % 10 == 0 else float(i) for i in range(60)]
    result = score("v0.5", "ncf", runs(*ncf))
    converged = [m for m in ncf if m is not None][:50]
    assert result.minutes == pytest.approx(sum(sorted(converged)[1:-1]) / 48)
    assert result.used == [i for i, m in enumerate(ncf) if m is not None][:50]


def test_it_leaves_a_score_blank_when_logs_are_absent_or_too_few():
    assert score("v1.0", "resnet", runs(1.0, 2.0, 3.0, 4.0), absent=1).note == (
        "1 of the logs are absent from the snapshot: not scored"
    )
    assert score("v1.0", "resnet", runs(1.0, 2.0, 3.0, 4.0)).note == "4 runs, the rule needs 5"
    assert score("v1.0", "gpt3", runs(1.0, 2.0, 3.0)).note == (
        "gpt3 is not in the v1.0 rules' table of runs"
    )


def test_it_takes_the_median_window_of_more_runs_from_v11():
    # Seven runs by start time: windows of five score 3.0, 4.0 and 5.0; the median is 4.0.
    minutes = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)
    result = score("v1.1", "resnet", runs(*minutes, starts=list(range(7))))
    assert result.minutes == 4.0
    assert result.used == [1, 2, 3, 4, 5]


def test_it_applies_the_scaling_factor_from_v20_only():
    scaled = score("v3.0", "resnet", runs(10.0, 10.0, 10.0, 10.0, 10.0), scaling_factor=1.1)
    assert (scaled.olympic_minutes, scaled.minutes, scaled.rcp) == (10.0, 11.0, "applied")
    unscaled = score("v3.0", "resnet", runs(10.0, 10.0, 10.0, 10.0, 10.0))
    assert (unscaled.minutes, unscaled.rcp) == (10.0, "not_applied")
    before = score("v1.1", "resnet", runs(10.0, 10.0, 10.0, 10.0, 10.0), scaling_factor=1.1)
    assert (before.minutes, before.rcp) == (10.0, "not_in_rules")


def test_it_has_a_rule_for_every_round_with_the_runs_of_each_new_benchmark():
    assert list(ROUNDS) == [
        "v0.5", "v0.6", "v0.7", "v1.0", "v1.1", "v2.0", "v2.1",
        "v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1",
    ]  # fmt: skip
    assert ROUNDS["v3.0"].runs["gpt3"] == 3
    assert ROUNDS["v5.1"].runs["llama31_8b"] == 10
    assert ROUNDS["v0.5"].runs["minigo"] == 20


def test_it_says_when_more_runs_than_required_were_scored():
    assert score("v1.0", "resnet", runs(*[10.0] * 6)).note == "6 runs scored, the rule asks for 5"
    note = score("v1.1", "resnet", runs(*[10.0] * 6, starts=list(range(6)))).note
    assert note == "the median window of 5 of 6 runs"
    assert score("v0.6", "resnet", runs(*[10.0] * 5, None)).note == "5 converged runs scored of 6"
