"""Runnable micro-demos of the survey's techniques: a registry, parameter checks and a runner.

The interface for the web layer (everything here is pure: no ORM, no request):

- ``DEMOS: dict[str, Demo]``: the registry, by slug, in display order.
- ``schema(demo) -> dict``: JSON-able description of a demo and its parameters (for the list
  endpoint and the forms).
- ``validate_params(demo, raw) -> dict``: canonical parameters (defaults filled in, typed, keys
  sorted), usable as a cache key together with ``demo.slug`` and ``demo.version``; raises
  ``ParamError`` (a ``ValueError``) with a message naming the parameter and its bounds → 400.
- ``run_demo(slug, params, ...) -> dict``: validates, then runs the demo in a resource-limited
  worker process and returns ``{"slug", "version", "params", "result", "elapsed_s"}``. Raises
  ``UnknownDemo`` (→ 404), ``ParamError`` (→ 400), ``DemoBusy`` with ``retry_after`` seconds
  (→ 429 + Retry-After), ``DemoLimitExceeded`` with ``limit`` in {"cpu", "memory", "wall"} and
  ``DemoError`` for a demo that failed; all messages are safe to show.
- ``run_in_process(demo, raw) -> dict``: the same result without a worker or limits (tests,
  benchmarks).

A result is ``{"metrics", "tables", "figures", "agreement"}``; see ``explorer/demos/common.py``.
Measured wall-clock times are exactly the metrics whose unit is "s"; everything else is a
deterministic function of the parameters (seed included) and of ``demo.version``.
"""

from . import (
    allreduce,
    consistency,
    convolution,
    data_parallel,
    evolution,
    fc_gemm,
    gossip,
    hybrid,
    large_minibatch,
    model_averaging,
    model_parallel,
    pipeline,
    quantization,
    sparsification,
    tensor_parallel,
)
from .base import Demo, DemoError, Param, ParamError, run_in_process, schema, validate_params
from .runner import DemoBusy, DemoLimitExceeded, UnknownDemo, run_demo

DEMOS: dict[str, Demo] = {
    demo.slug: demo
    for demo in (
        convolution.DEMO,
        fc_gemm.DEMO,
        data_parallel.DEMO,
        model_parallel.DEMO,
        tensor_parallel.DEMO,
        pipeline.DEMO,
        hybrid.DEMO,
        large_minibatch.DEMO,
        consistency.DEMO,
        allreduce.DEMO,
        gossip.DEMO,
        quantization.DEMO,
        sparsification.DEMO,
        model_averaging.DEMO,
        evolution.DEMO,
    )
}

__all__ = [
    "DEMOS",
    "Demo",
    "DemoBusy",
    "DemoError",
    "DemoLimitExceeded",
    "Param",
    "ParamError",
    "UnknownDemo",
    "run_demo",
    "run_in_process",
    "schema",
    "validate_params",
]
