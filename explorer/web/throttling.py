"""Rate limits whose counts stay exact when requests arrive at the same time.

DRF's throttles read a client's request history, append to it and write it back: two concurrent
requests both read the same history and one write is lost. Measured with a shared Redis cache
(bench/load_bench.py), 8 concurrent clients got about 1,200 requests through a 600/minute limit.
Here each client has one counter per time window, changed by the cache's atomic add/incr/decr,
and the limit applies to a sliding window estimated from the current and the previous counter
(the previous one weighted by how much of it still overlaps the last `duration` seconds).
"""

from __future__ import annotations

import math

from django.core.cache import caches
from rest_framework import throttling


class SlidingWindowCounter:
    """Mixed into a DRF SimpleRateThrottle: same rates, scopes and client identification."""

    @property
    def cache(self):
        return caches["throttle"]  # its own cache: many distinct URLs cannot crowd it out

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window, elapsed = divmod(self.now, self.duration)
        self.window_start = window * self.duration
        self.overlap = 1.0 - elapsed / self.duration  # of the previous window, still counting
        current_key = f"{self.key}:{int(window)}"
        self.previous = self.cache.get(f"{self.key}:{int(window) - 1}", 0)
        self.current = self._increment(current_key)
        if self.previous * self.overlap + self.current <= self.num_requests:
            return True
        # Refused requests do not count: a client that keeps knocking is not locked out longer.
        try:
            self.cache.decr(current_key)
        except ValueError:  # evicted meanwhile: nothing left to take back
            pass
        self.current -= 1
        return False

    def _increment(self, key: str) -> int:
        # Kept for two windows: the next window reads it as its previous one.
        self.cache.add(key, 0, 2 * self.duration)
        try:
            return self.cache.incr(key)
        except ValueError:  # expired between add and incr
            self.cache.add(key, 1, 2 * self.duration)
            return 1

    def wait(self) -> float:
        """Seconds until the estimate falls below the limit again (for Retry-After)."""
        room = self.num_requests - self.current
        if room <= 0 or self.previous == 0:
            # Next window: this one becomes the previous one and decays from there.
            return self.window_start + self.duration - self.now + 1
        needed_overlap = room / self.previous  # previous * overlap < room
        until = self.window_start + (1.0 - needed_overlap) * self.duration
        return max(1.0, math.ceil(until - self.now))


class AnonThrottle(SlidingWindowCounter, throttling.AnonRateThrottle):
    pass


class UserThrottle(SlidingWindowCounter, throttling.UserRateThrottle):
    pass


class DemoRunThrottle(AnonThrottle):
    scope = "demo_run"


def client_key(request) -> str:
    """Who queued a demo run, for the per-client queue cap: the throttling identity (the
    address, or the forwarded one behind NUM_PROXIES proxies), as a keyed hash: no address is
    stored."""
    from django.utils.crypto import salted_hmac

    ident = DemoRunThrottle().get_ident(request)
    return salted_hmac("demo-run-client", ident, algorithm="sha256").hexdigest()[:32]
