"""The machine and the planner's inputs: bounds, presets (with their sources) and validation.

Every input has bounds, so that every computation is bounded: at most MAX_P nodes, at most
MAX_SWEEP_POINTS points in a sweep, and sizes inside the catalogue's variable ranges
(fixtures/cost_models.json: P <= 65536, L <= 1 s, G <= 1e-3 s/byte, gamma <= 16 bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

MAX_P = 4096
MAX_SWEEP_POINTS = 32
ALLREDUCE_ALGORITHMS = ("ring", "tree", "butterfly", "rabenseifner")


class PlannerInputError(ValueError):
    """An input out of its bounds; the message names the input and the bound (a 400, its
    errors keyed by `parameter`)."""

    def __init__(self, message: str, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True)
class Bound:
    name: str
    kind: type  # int or float
    low: float
    high: float
    help: str
    unit: str = ""


BOUNDS: dict[str, Bound] = {
    b.name: b
    for b in (
        Bound("P", int, 1, MAX_P, "nodes (processors)"),
        Bound("batch", int, 1, 65536, "minibatch size N (samples per step, all nodes together)"),
        Bound("micro_batches", int, 1, 1024, "micro-batches M per minibatch (pipelining)"),
        Bound("chunks", int, 1, 16, "model chunks v per node (interleaved pipeline)"),
        Bound("flops", float, 1e6, 1e18, "per-node throughput", "FLOP/s"),
        Bound("memory_gb", float, 0.001, 1e5, "per-node memory", "GB"),
        Bound("latency_us", float, 0.0, 1e6, "link latency L", "µs"),
        Bound("bandwidth_gbs", float, 0.001, 1e4, "link bandwidth 1/G", "GB/s"),
        Bound("gamma", int, 1, 16, "bytes per value γ", "B"),
        Bound("optimizer_values", int, 0, 4, "optimizer state values per parameter (1: momentum)"),
        Bound("servers", int, 1, MAX_P, "parameter-server shards S"),
        Bound("bits", int, 1, 128, "bits per gradient value sent (quantization)"),
        Bound("density", float, 1e-4, 1.0, "fraction of gradient values sent (sparsification)"),
        Bound("sweep_max", int, 2, MAX_P, "largest P of the sweep"),
        Bound("sweep_points", int, 2, MAX_SWEEP_POINTS, "points of the sweep"),
    )
}


@dataclass(frozen=True)
class Inputs:
    network: str = "resnet-50"
    P: int = 16
    batch: int = 256
    micro_batches: int = 8
    chunks: int = 2
    flops: float = 10e12
    memory_gb: float = 16.0
    latency_us: float = 5.0
    bandwidth_gbs: float = 10.0
    gamma: int = 4
    optimizer_values: int = 1
    servers: int = 4
    allreduce: str = "ring"
    bits: int | None = None  # None: no quantization (8·gamma bits)
    density: float = 1.0
    sweep_max: int = 256
    sweep_points: int = 16
    machine: str = "example"

    @property
    def latency(self) -> float:
        """L in seconds."""
        return self.latency_us * 1e-6

    @property
    def G(self) -> float:
        """Seconds per byte (the catalogue's G)."""
        return 1.0 / (self.bandwidth_gbs * 1e9)

    @property
    def value_bits(self) -> int:
        """Bits per gradient value sent: the quantization, or all 8·gamma bits."""
        return self.bits if self.bits is not None else 8 * self.gamma

    @property
    def memory(self) -> float:
        return self.memory_gb * 1e9

    def query(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def with_p(self, p: int) -> Inputs:
        return replace(self, P=p)


@dataclass(frozen=True)
class MachinePreset:
    slug: str
    name: str
    values: dict[str, Any]
    sources: dict[str, str]  # input name -> where the value comes from ("example value" else)


EXAMPLE = "example value"
ALEXNET_HARDWARE = (
    "AlexNet [136] trained on two GTX 580 3GB GPUs (the paper's §3.2 and §5; transcribed at "
    "http://users.ics.aalto.fi/perellm1/thesis/summaries_html/node64.html)"
)

GOYAL_HARDWARE = (
    "Goyal et al. [83] trained ResNet-50 on 256 Tesla P100 GPUs (transcribed at "
    "https://developer.nvidia.com/facebook-trains-imagenet-1-hour)"
)

PRESETS: dict[str, MachinePreset] = {
    preset.slug: preset
    for preset in (
        MachinePreset(
            "example",
            "Example cluster (every value an example, not from a work)",
            {
                "P": 16,
                "flops": 10e12,
                "memory_gb": 16.0,
                "latency_us": 5.0,
                "bandwidth_gbs": 10.0,
                "gamma": 4,
            },
            {},
        ),
        MachinePreset(
            "alexnet-2012",
            "AlexNet's two GPUs (P and memory from the paper; the rest example values)",
            {
                "P": 2,
                "flops": 1.5e12,
                "memory_gb": 3.0,
                "latency_us": 10.0,
                "bandwidth_gbs": 4.0,
                "gamma": 4,
            },
            {"P": ALEXNET_HARDWARE, "memory_gb": ALEXNET_HARDWARE},
        ),
        MachinePreset(
            "goyal-2017",
            "Goyal et al.'s 256 GPUs (P from the work; the rest example values)",
            {
                "P": 256,
                "flops": 10e12,
                "memory_gb": 16.0,
                "latency_us": 5.0,
                "bandwidth_gbs": 6.0,
                "gamma": 4,
            },
            {"P": GOYAL_HARDWARE},
        ),
    )
}


def preset_sources(preset: MachinePreset) -> dict[str, str]:
    return {name: preset.sources.get(name, EXAMPLE) for name in preset.values}


def parse(query: dict[str, Any], networks: set[str]) -> Inputs:
    """Inputs from a query (strings or numbers): preset values first, then explicit ones."""
    machine = str(query.get("machine") or "example")
    if machine not in PRESETS:
        raise PlannerInputError(
            f"machine must be one of {', '.join(PRESETS)} (got {machine!r})", "machine"
        )
    values: dict[str, Any] = {"machine": machine, **PRESETS[machine].values}
    for name, bound in BOUNDS.items():
        raw = query.get(name)
        if raw not in (None, ""):
            values[name] = _number(bound, raw)
    network = str(query.get("network") or Inputs.network)
    if network not in networks:
        raise PlannerInputError(f"network must be one of {', '.join(sorted(networks))}", "network")
    allreduce = str(query.get("allreduce") or "ring")
    if allreduce not in ALLREDUCE_ALGORITHMS:
        raise PlannerInputError(
            f"allreduce must be one of {', '.join(ALLREDUCE_ALGORITHMS)}", "allreduce"
        )
    inputs = Inputs(network=network, allreduce=allreduce, **values)
    _check_relations(inputs)
    return inputs


def _number(bound: Bound, raw: Any) -> int | float:
    try:
        number = float(raw)
    except (TypeError, ValueError):
        number = float("nan")
    if bound.kind is int and number == number and not float(number).is_integer():
        number = float("nan")
    if not bound.low <= number <= bound.high:  # also refuses nan and inf
        kind = "an integer" if bound.kind is int else "a number"
        raise PlannerInputError(
            f"{bound.name} ({bound.help}) must be {kind} between {bound.low:g} and "
            f"{bound.high:g} (got {str(raw)[:40]!r})",
            bound.name,
        )
    return int(number) if bound.kind is int else number


def _check_relations(inputs: Inputs) -> None:
    if inputs.micro_batches > inputs.batch:
        raise PlannerInputError(
            f"micro_batches must be at most batch ({inputs.batch}): "
            "a micro-batch holds at least one sample",
            "micro_batches",
        )
    if inputs.bits is not None and inputs.bits > 8 * inputs.gamma:
        raise PlannerInputError(
            f"bits must be at most 8·gamma = {8 * inputs.gamma}: quantization cannot add bits",
            "bits",
        )
