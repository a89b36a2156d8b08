"""MLPerf Training scores: each round's rule for turning a system's runs of one benchmark into its
time to train. Pure (no ORM): runs in, a `Score` out.

The rules are read first-hand in mlcommons/training_policies, training_rules.adoc, at the last
commit before the round's results were published (the first commit of its result_0.txt files in
mlcommons/training_results_v*); `ROUNDS` names that commit. What each text says:
- all rounds: "dropping the fastest and slowest runs, then taking the mean of the remaining times",
  with a minimum number of runs per benchmark (the "Number of Runs" table);
- v0.5, v0.6: no word on runs that do not converge; Recommendation "Run 100, use first 50 that
  converge": only converged runs are scored;
- from v0.7: "a single non-converging run may be treated as the slowest run and dropped. A
  benchmark result is invalid if there is more than one non-converging run";
- from v1.0: UNET3D needs 40 runs, drops the 4 fastest and 4 slowest, allows 4 non-converging;
- from v1.1: a submitter may run M > N runs and submit the N consecutive (by start time) runs
  whose olympic score is the median of the sliding windows; with more than N logs we do the same;
- from v2.0: "Score scaling": a scaling.json in the result directory scales the score (its factor
  is how MLCommons applies the RCP normalisation "Submission-olympic-score * (RCP-mean /
  olympic-submission-epochs)", written in the rules from v2.1). Rounds before have no scaling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import mean

POLICIES = "https://github.com/mlcommons/training_policies/blob/{commit}/training_rules.adoc"

_V05 = {
    "resnet": 5,
    "ssd": 5,
    "maskrcnn": 5,
    "gnmt": 10,
    "transformer": 10,
    "ncf": 50,
    "minigo": 20,
}
_V07 = {
    "resnet": 5,
    "ssd": 5,
    "maskrcnn": 5,
    "gnmt": 10,
    "transformer": 10,
    "bert": 10,
    "dlrm": 5,
    "minigo": 10,
}
_V10 = {
    "resnet": 5,
    "unet3d": 40,
    "ssd": 5,
    "retinanet": 5,
    "maskrcnn": 5,
    "bert": 10,
    "rnnt": 10,
    "dlrm": 5,
    "minigo": 10,
}
_V30 = {k: v for k, v in _V10.items() if k not in ("dlrm", "minigo")} | {
    "gpt3": 3,
    "dlrm_dcnv2": 10,
}
_V31 = _V30 | {"stable_diffusion": 10}
_V40 = _V31 | {"llama2_70b_lora": 10, "rgat": 10}
_V50 = _V40 | {"llama31_405b": 3}
_V51 = _V50 | {"llama31_8b": 10, "flux1": 10}


@dataclass(frozen=True)
class RoundRule:
    version: str
    policies_commit: str
    runs: dict[str, int]
    failures_allowed: bool  # from v0.7: one non-converging run may be dropped as the slowest
    windows: bool  # from v1.1: M > N runs, the median window of N consecutive runs
    scaling: bool  # from v2.0: scaling.json scales the score

    @property
    def url(self) -> str:
        return POLICIES.format(commit=self.policies_commit)


def _rule(version, commit, runs, failures=True, windows=True, scaling=True) -> RoundRule:
    return RoundRule(version, commit, runs, failures, windows, scaling)


ROUNDS: dict[str, RoundRule] = {
    rule.version: rule
    for rule in (
        _rule("v0.5", "6e021638e80a1a82d151d4f4bf703d6704643fd7", _V05, False, False, False),
        _rule("v0.6", "28c67ac36cb4ffe43ba4c350e62bc0d6c58ed291", _V05, False, False, False),
        _rule("v0.7", "e382b31d9be0e2f463e19ca770e9ace28911106a", _V07, True, False, False),
        _rule("v1.0", "47ef1fdc352b1b9f275d474b30fdf30109be4e1b", _V10, True, False, False),
        _rule("v1.1", "ebfe13f446646be94fc19ba7f1830d0859e75fed", _V10, True, True, False),
        _rule("v2.0", "d7d9e424dc512b4c810617be70120b8beb5db3a9", _V10),
        _rule("v2.1", "7a0d1c002b69fa1cabdcce3092280feacb40fa6e", _V10),
        _rule("v3.0", "a2285a6df9d1949e3731b3bea4d039fb26b99a86", _V30),
        _rule("v3.1", "f9531cd64f790c88f7a11b9ca09a02bc717ea4db", _V31),
        _rule("v4.0", "9f32f97db41fd1fbbe27b89dfebfda4a8c7f343b", _V40),
        _rule("v4.1", "d38fe44e8cc2a7b026909726b39e6e7041477c9c", _V40),
        _rule("v5.0", "7e298673bfdd23fd5ab776c6bb885b10ef91e548", _V50),
        _rule("v5.1", "d4c2f58b28e30312454db67b7874a36777fb60c3", _V51),
    )
}


@dataclass(frozen=True)
class Run:
    index: int
    minutes: float | None  # None: did not converge (aborted)
    start: float | None = None


@dataclass
class Score:
    minutes: float | None
    olympic_minutes: float | None
    scaling_factor: float | None
    runs_successful: int
    runs_required: int
    rule: str
    rule_text: str
    rule_url: str
    rcp: str
    rcp_note: str
    note: str = ""
    used: list[int] = field(default_factory=list)


def drop_count(version: str, benchmark: str) -> int:
    """How many of the fastest (and of the slowest) runs the rule drops."""
    return 4 if benchmark == "unet3d" and version not in ("v0.5", "v0.6", "v0.7") else 1


def olympic(times: list[float], drop: int, failures_allowed: int) -> float | None:
    """Mean of `times` without the `drop` fastest and slowest; a non-converging run (inf) counts
    as the slowest; None when more runs failed than allowed or too few remain."""
    if sum(math.isinf(t) for t in times) > failures_allowed or len(times) <= 2 * drop:
        return None
    kept = sorted(times)[drop : len(times) - drop]
    return None if any(math.isinf(t) for t in kept) else mean(kept)


def score(
    version: str,
    benchmark: str,
    runs: list[Run],
    absent: int = 0,
    scaling_factor: float | None = None,
) -> Score:
    """The (round, system, benchmark) score by the round's rule; `absent` counts logs listed but
    absent from the snapshot (they make the score incomplete, never guessed)."""
    rule = ROUNDS[version]
    required = rule.runs.get(benchmark, 0)
    drop = drop_count(version, benchmark)
    successful = sum(run.minutes is not None for run in runs)
    result = Score(
        None, None, None, successful, required, *_describe(rule, benchmark, drop), *_rcp(rule)
    )
    if not required:
        result.note = f"{benchmark} is not in the {version} rules' table of runs"
        return result
    if absent:
        result.note = f"{absent} of the logs are absent from the snapshot: not scored"
        return result
    chosen, why = _choose(rule, benchmark, runs, required, drop)
    result.used = [run.index for run in chosen]
    if why:
        result.note = why
        return result
    allowed = 0 if not rule.failures_allowed else (4 if drop == 4 else 1)
    times = [math.inf if run.minutes is None else run.minutes for run in chosen]
    result.olympic_minutes = olympic(times, drop, allowed)
    if result.olympic_minutes is None:
        result.note = "more non-converging runs than the rule allows"
        return result
    result.minutes = result.olympic_minutes
    if rule.windows and len(runs) > len(chosen):
        result.note = f"the median window of {len(chosen)} of {len(runs)} runs"
    elif len(chosen) > required:
        result.note = f"{len(chosen)} runs scored, the rule asks for {required}"
    elif len(runs) > len(chosen):
        result.note = f"{len(chosen)} converged runs scored of {len(runs)}"
    if rule.scaling and scaling_factor is not None:
        result.scaling_factor = scaling_factor
        result.minutes = result.olympic_minutes * scaling_factor
        result.rcp, result.rcp_note = "applied", "scaled by the factor in scaling.json"
    return result


def _choose(rule: RoundRule, benchmark: str, runs: list[Run], required: int, drop: int):
    """The runs the rule scores, or a reason why none can be scored."""
    ordered = sorted(runs, key=lambda run: run.index)
    if not rule.failures_allowed:
        # v0.5, v0.6: only converged runs are results (NCF: the first 50 that converge).
        converged = [run for run in ordered if run.minutes is not None]
        if len(converged) < required:
            return converged, f"{len(converged)} converged runs, the rule needs {required}"
        return converged[:required] if benchmark == "ncf" else converged, ""
    if len(ordered) < required:
        return ordered, f"{len(ordered)} runs, the rule needs {required}"
    if len(ordered) > required and rule.windows:
        return _median_window(ordered, required, drop, 4 if drop == 4 else 1), ""
    return ordered, ""


def _median_window(runs: list[Run], size: int, drop: int, allowed: int) -> list[Run]:
    """Of the windows of `size` consecutive runs by start time, the one with the median
    olympic score (an invalid window counts as infinite), the lower one of two medians."""
    by_start = sorted(runs, key=lambda run: (run.start or 0, run.index))
    windows = [by_start[i : i + size] for i in range(len(by_start) - size + 1)]

    def value(window: list[Run]) -> float:
        times = [math.inf if run.minutes is None else run.minutes for run in window]
        result = olympic(times, drop, allowed)
        return math.inf if result is None else result

    ranked = sorted(windows, key=value)
    return ranked[(len(ranked) - 1) // 2]


def _describe(rule: RoundRule, benchmark: str, drop: int) -> tuple[str, str, str]:
    required = rule.runs.get(benchmark, 0)
    slug = f"{rule.version}-olympic-{required}-drop-{drop}"
    text = f"mean of {required} runs without the {drop} fastest and {drop} slowest"
    if rule.failures_allowed:
        text += f"; up to {4 if drop == 4 else 1} non-converging run(s) count as slowest"
    else:
        text += "; only converged runs count"
    if rule.windows:
        text += "; of more runs, the median window of consecutive runs"
    return slug, text, rule.url


def _rcp(rule: RoundRule) -> tuple[str, str]:
    if not rule.scaling:
        return "not_in_rules", f"the {rule.version} rules have no score scaling"
    return "not_applied", "no scaling.json in the result directory: the score is not scaled"
