"""The planner page's numbers as a reader reads them (s, GB, ×, %, days), for the strategies of
every network and a transformer's layouts table, configuration and figures' sources."""

from __future__ import annotations

from typing import Any

from explorer.web.words import readable_number as number

from .shape import DAY, SHOWN_LAYOUTS


def _days(seconds: float | None) -> str:
    """Days to 3 significant digits, written out (1,320 days, not 1.32e+03)."""
    if seconds is None:
        return "—"
    days = float(f"{seconds / DAY:.3g}")
    return f"{days:,.0f} days" if days >= 100 else f"{days:g} days"


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _hidden(row: dict[str, Any]) -> str:
    """All the communication, when part of it is hidden behind the backward pass ("" if none)."""
    total, exposed = row.get("total_communication_time"), row["communication_time"]
    return number(total, "s") if total is not None and total > exposed else ""


def _times(row: dict[str, Any]) -> dict[str, str]:
    """A strategy's or a layout's step split and memory."""
    memory = row["memory_per_node"]
    total = memory.get("total") if isinstance(memory, dict) else memory
    return {
        "step_time": number(row["step_time"], "s"),
        "compute_time": number(row["compute_time"], "s"),
        "communication_time": number(row["communication_time"], "s"),
        "total_communication_time": _hidden(row),
        "idle_time": number(row["idle_time"], "s"),
        "memory": "—" if total is None else number(total / 1e9, "GB"),
    }


def _transformer_times(row: dict[str, Any]) -> dict[str, str]:
    return _times(row) | {
        "mfu": _percent(row.get("mfu")),
        "days": _days(row.get("time_to_train")),
        "tokens_per_second": number(row.get("tokens_per_second")),
    }


def strategy_shown(strategy: dict[str, Any]) -> dict[str, str]:
    """A strategy's numbers, with its speedup, efficiency and memory split."""
    memory = strategy["memory_per_node"] or {}
    return _times(strategy) | {
        "speedup": number(strategy["speedup"], "×"),
        "efficiency": "—" if strategy["efficiency"] is None else f"{strategy['efficiency']:.0%}",
        "memory_parts": ", ".join(
            f"{name.replace('_', ' ')} {number(memory[name] / 1e9, 'GB')}"
            for name in ("weights", "gradients", "optimizer_state", "activations")
        )
        if memory
        else "",
    }


def transformer_context(document: dict[str, Any]) -> dict[str, Any]:
    for strategy in document["strategies"]:
        strategy["shown"] |= _transformer_times(strategy)
    rows = document["layouts"]["rows"]
    for row in rows:
        row["shown"] = _transformer_times(row)
    network = document["network"]
    for row in network["comparison"]:
        row["shown_paper"] = number(row["paper"])
        row["shown_computed"] = number(row["computed"])
        row["shown_difference"] = f"{100 * row['relative_difference']:+.1f} %"
    sources = network["paper"]["sources"]
    config_rows = [
        {"name": name, "value": number(value), "source": sources.get(name, "")}
        for name, value in network["config"].items()
        if not isinstance(value, bool)
    ] + [
        {"name": name, "value": "—", "source": source}
        for name, source in sources.items()
        if name not in network["config"]
    ]
    return {
        "plan": document,
        "network": network,
        "inputs": document["inputs"],
        "layout_rows": rows[:SHOWN_LAYOUTS],
        "more_layouts": rows[SHOWN_LAYOUTS:],
        "config_rows": config_rows,
        "network_shown": {
            "flops": number(network["flops_per_step"]),
            "megatron": number(network["megatron_flops_per_step"]),
            "six_nd": number(network["six_nd_flops_per_step"]),
        },
        "machine_sources": [
            {"name": name, "source": source}
            for name, source in document["machine"]["sources"].items()
        ],
    }
