"""The planner against published training runs (fixtures/published_runs.json): each run entered
as a practitioner would, on its paper's own layout and cluster, at the planner's default
efficiency; the planner's step time over the paper's. A held-out set: nothing is fitted on it.

Pure but for reading the fixture: the formulas and the fitted efficiency table are passed in.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path
from statistics import median
from typing import Any

from explorer.workloads.transformers.shapes import NETWORKS

from ... import plan as planning
from ... import roofline
from ...machine import PlannerInputError, parse
from ...transformers.network import NETWORK_DEFAULTS
from ...transformers.plan import config_of
from .fit import efficiency_at, lookup, quantile

FIXTURE = Path(__file__).resolve().parents[4] / "fixtures" / "published_runs.json"
# The planner's own tolerance for a run it should plan (issue 46: 15 % on Megatron-LM 2021's
# Table 1, 20 % on the whole set).
WITHIN = (0.15, 0.20)
# How a paper's per-device TFLOP/s counts its FLOPs, per run id prefix: "hardware" (recomputed
# passes included: Megatron-LM 2021's formula, 96·B·s·l·h²(1 + s/6h + V/16lh)), "model" (MFU:
# no recomputation). A run whose paper does not say is judged on another stated figure or not
# at all (its reason says so).
FLOPS_KIND = {
    "megatron2021-": "hardware",
    "mcore2024-": "model",
    "llama3-": "model",
    "mtnlg-": "hardware",
}
# The attention kernel a run's stack used where the record does not say: fused (Flash-style)
# attention is Megatron-Core's, NeMo's (Transformer Engine) and torchtitan's default (assumed
# from their dates: FlashAttention is 2022); Megatron-LM 2021 and its 2022 successors ran the
# standard softmax kernels.
FLASH_PREFIXES = ("mcore2024-", "nemo2407-", "llama3-", "torchtitan2024-", "megascale2024-")
FLOPS_KIND_NOTE = {
    "mtnlg-": "counted as Megatron-LM's formula, which the DeepSpeed post uses for its runs "
    "(assumed: the page read does not say)",
}


@functools.cache
def published_runs() -> list[dict[str, Any]]:
    if not FIXTURE.exists():
        return []
    return json.loads(FIXTURE.read_text(encoding="utf-8"))["runs"]


def _query(run: dict[str, Any]) -> dict[str, Any] | str:
    """The planner query of a run: its model's shape, its layout pinned, its cluster."""
    model, layout, cluster = run["model"], run["layout"], run["cluster"]
    if not cluster.get("device"):
        return "the device is not in the device catalogue"
    seq = model["seq_len"]
    if not run.get("batch") or not model.get("layers"):
        return "the paper states no global batch or no model shape"
    batch = run["batch"] if run["batch_unit"] == "sequences" else run["batch"] / seq
    query: dict[str, Any] = {
        "network": "transformer",
        "layers": model["layers"],
        "hidden": model["hidden"],
        "heads": model["heads"],
        "seq_len": seq,
        "vocab": model["vocab"],
        "device": cluster["device"],
        "P": cluster["devices"],
        "batch": int(batch),
        "devices_per_node": cluster.get("devices_per_node") or 8,
        "precision": "fp8" if run.get("precision") == "fp8" else "bf16-mixed",
        "optimizer": "adam",
        "attention": "flash" if run["id"].startswith(FLASH_PREFIXES) else "standard",
    }
    for name in ("kv_heads", "ffn_hidden"):
        if model.get(name):
            query[name] = model[name]
    if model.get("gated"):
        query["gated"] = "true"
    for name in ("tp", "pp", "dp", "cp"):
        if layout.get(name):
            query[name] = layout[name]
    if layout.get("micro_batch"):
        query["micro_batch_size"] = layout["micro_batch"]
        query["micro_batches"] = 1  # (a layer table's input; a transformer's come from b)
    if zero := zero_stage(layout.get("zero")):
        query["zero"] = zero
    if layout.get("interleave"):
        query["chunks"] = layout["interleave"]
    if layout.get("sequence_parallel") is False:
        query["sequence_parallel"] = "false"
    # The paper's recomputation, else selective (the planner's default, pinned: the set judges
    # the step model on the paper's layout, not the recomputation the search would choose).
    stated = layout.get("recompute") in ("none", "selective", "full")
    query["recompute"] = layout["recompute"] if stated else "selective"
    if cluster.get("inter_node_gbps_per_node"):
        per_node = query["devices_per_node"]
        query["bandwidth_gbs"] = cluster["inter_node_gbps_per_node"] / 8 / per_node
    return query


def zero_stage(text: str | None) -> int | None:
    """The ZeRO stage a run's record describes (FSDP's sharding named in words), else None."""
    words = (text or "").lower()
    for pattern, stage in (
        ("stage 1", 1),
        ("stage 2", 2),
        ("stage 3", 3),
        ("optimizer states + gradients", 2),
        ("no reshard after forward", 2),
        ("fully sharded", 3),
    ):
        if pattern in words:
            return stage
    return None


def _kind(run_id: str) -> tuple[str | None, str]:
    for prefix, kind in FLOPS_KIND.items():
        if run_id.startswith(prefix):
            return kind, FLOPS_KIND_NOTE.get(prefix, "")
    return None, ""


def measured_step(run: dict[str, Any], network: dict[str, Any]) -> tuple[float, str] | str:
    """The paper's step time in seconds and how it was read or derived, or why there is none."""
    measured, devices = run["measured"], run["cluster"]["devices"]
    tokens = network["tokens_per_step"]
    if measured.get("step_time_s"):
        return measured["step_time_s"], "the paper's iteration time"
    if measured.get("tokens_per_s_per_device"):
        rate = measured["tokens_per_s_per_device"] * devices
        return tokens / rate, "tokens per step / (the paper's tokens/s per device × devices)"
    if measured.get("tokens_per_s"):
        return tokens / measured["tokens_per_s"], "tokens per step / the paper's tokens/s"
    kind, note = _kind(run["id"])
    if measured.get("tflops_per_device") and kind:
        flops = network["flops_per_step" if kind == "hardware" else "model_flops_per_step"]
        seconds = flops / (measured["tflops_per_device"] * 1e12 * devices)
        how = f"{kind} FLOPs per step (the planner's count) / (the paper's TFLOP/s × devices)"
        return seconds, how + (f"; {note}" if note else "")
    return "the paper states no step time, token rate, or FLOP count the planner can compare"


def default_efficiency_from(
    table: list[dict[str, Any]],
    balances: dict[str, float],
    siblings: dict[str, list[str]],
    inputs: Any,
    config: Any,
) -> tuple[float, float]:
    """(efficiency, roofline): the planner's default for the inputs, from a fitted table."""
    found = lookup(
        table,
        inputs.device,
        "decoder",
        balances.get(inputs.device),
        siblings.get(inputs.device, []),
    )
    per_device = inputs.batch / inputs.P
    of_roofline = min(1.0, efficiency_at(found, per_device, inputs.precision, inputs.stack))
    ceiling = roofline.for_inputs(inputs, config)["value"]
    return max(0.01, of_roofline * ceiling), ceiling


def predict(
    run: dict[str, Any],
    formulas: Any,
    table: list[dict[str, Any]],
    balances: dict[str, float],
    siblings: dict[str, list[str]],
) -> dict[str, Any]:
    """One run beside the planner on its paper's layout, at the default efficiency."""
    base = {
        "id": run["id"],
        "paper": run["paper"],
        "work": run.get("work"),
        "device": run["cluster"].get("device"),
        "devices": run["cluster"]["devices"],
        "layout": {k: run["layout"].get(k) for k in ("tp", "pp", "dp", "cp")},
        "source": run["sources"].get("measured", ""),
        "kind": run.get("kind", ""),
    }
    query = _query(run)
    if isinstance(query, str):
        return base | {"reason": query}
    try:
        inputs = parse(query, set(NETWORKS), NETWORK_DEFAULTS)
        config = config_of(inputs)
    except PlannerInputError as error:
        return base | {"reason": f"the planner refuses the run's inputs: {error}"}
    efficiency, ceiling = default_efficiency_from(table, balances, siblings, inputs, config)
    document = planning.plan(replace(inputs, efficiency=efficiency), formulas)
    strategy = next(s for s in document["strategies"] if s["slug"] == "3d")
    if not strategy["step_time"]:
        return base | {"reason": strategy.get("reason") or "the planner cannot run the layout"}
    measured = measured_step(run, document["network"])
    if isinstance(measured, str):
        return base | {"reason": measured}
    seconds, how = measured
    return base | {
        "measured_step_s": round(seconds, 6),
        "measured_how": how,
        "predicted_step_s": round(strategy["step_time"], 6),
        "ratio": round(strategy["step_time"] / seconds, 4),
        "efficiency": round(efficiency, 6),
        "roofline": round(ceiling, 6),
        "fits": strategy["fits"],
        "reason": "",
    }


def summary(predictions: list[dict[str, Any]]) -> dict[str, Any]:
    """Error figures over the runs the planner predicts: all, and per paper."""
    judged = [p for p in predictions if p.get("ratio")]

    def figures(group: list[dict[str, Any]]) -> dict[str, Any]:
        errors = [abs(p["ratio"] - 1) for p in group]
        return {
            "n": len(group),
            "median": round(median(errors), 4) if errors else None,
            "p90": round(quantile(errors, 0.9), 4) if errors else None,
            "within_15": sum(e <= WITHIN[0] for e in errors),
            "within_20": sum(e <= WITHIN[1] for e in errors),
            "bias": round(median(p["ratio"] for p in group), 4) if group else None,
        }

    papers = sorted({p["paper"].split(",")[0] for p in judged})
    return {
        "all": figures(judged),
        "papers": {
            paper: figures([p for p in judged if p["paper"].split(",")[0] == paper])
            for paper in papers
        },
        "not_predicted": len(predictions) - len(judged),
    }


def evaluate(formulas: Any, table: list[dict[str, Any]], balances: dict, siblings: dict) -> dict:
    predictions = [predict(r, formulas, table, balances, siblings) for r in published_runs()]
    return {"runs": predictions, "summary": summary(predictions)}
