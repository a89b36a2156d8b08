"""The garbage collector of a serving process: what the process keeps for good is frozen.

A warm process holds some 150,000 long-lived objects (the URL patterns, the compiled templates,
the memos of the networks, devices, formulas and MLPerf scores). Python's full collection walks
every one of them, and requests allocate enough to start one every few dozen requests: measured
in-process on the planner's page, the collector took 13 % of the time, almost all of it in those
full collections; under load, freezing took the web CPU per request from 9.1 to 8.4 ms
(bench/README.md). `gc.freeze()` moves the objects alive at that moment out of
the collector's sight, so that it walks only what requests create.

The memos are filled by the first requests that need them, so the process freezes a few times
as it warms: after its 1st, 20th and 200th request. Only a cycle frozen and later dropped is never
reclaimed; the memos are kept for the process's life, so what may leak is bounded by what the
first 200 requests left behind.
"""

from __future__ import annotations

import gc
import itertools

from django.core.signals import request_finished

FREEZE_AFTER = frozenset({1, 20, 200})  # requests finished by this process


def freeze_as_it_warms() -> None:
    """Connects the freezing to the end of each request (after its response has been sent)."""
    finished = itertools.count(1)  # next() is atomic under the GIL: threads count once each

    def freeze(**kwargs) -> None:
        if next(finished) in FREEZE_AFTER:
            gc.collect()  # what is garbage now is reclaimed, not frozen
            gc.freeze()

    request_finished.connect(freeze, weak=False, dispatch_uid="explorer-gc-freeze")
