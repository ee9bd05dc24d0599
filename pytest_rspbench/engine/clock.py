"""The replay clock: application time scheduled against an absolute clock.

Event ``t`` is due at ``start + (t - origin) / speed`` seconds on the
monotonic clock, where ``origin`` is the first event's time and ``start`` the
moment it was sent. Waiting for each due time (rather than sleeping each gap
in full, as YABench's launcher does) keeps small delays from adding up. Each
send's lateness against its due time is kept in a bounded uniform sample, for
the timing figures of benchmarks/bench_harness.py and for checking that a run
really was replayed at the requested rate.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

LATENESS_KEPT = 100_000  # reservoir size for send-lateness percentiles


class ReplayClock:
    """The replay clock: application time ``origin`` is sent at ``start``."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self.start = time.monotonic()
        self.origin: int | None = None
        self.lateness: list[float] = []
        self._seen = 0
        self._random = random.Random(0)

    def wait_until(self, app_time: int, idle: Callable[[], None] | None = None) -> None:
        """Sleep until ``app_time`` is due; call ``idle`` first if there is time."""
        if self.origin is None:
            self.origin = app_time
            self.start = time.monotonic()
        if self.speed <= 0:
            return
        due = self.start + (app_time - self.origin) / 1000 / self.speed
        delay = due - time.monotonic()
        if delay > 0:
            if idle is not None:
                idle()
                delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        self._note(time.monotonic() - due)

    def app_time(self, arrival: float) -> float | None:
        if self.speed <= 0 or self.origin is None:
            return None
        return self.origin + arrival * 1000 * self.speed

    def now(self) -> tuple[float, float | None]:
        """Seconds on this clock and the application time they map to."""
        elapsed = time.monotonic() - self.start
        app = self.app_time(elapsed)
        return elapsed, None if app is None else round(app, 1)

    def _note(self, late: float) -> None:
        """Reservoir sampling (Vitter's algorithm R): bounded memory, uniform."""
        self._seen += 1
        if len(self.lateness) < LATENESS_KEPT:
            self.lateness.append(late)
        else:
            slot = self._random.randrange(self._seen)
            if slot < LATENESS_KEPT:
                self.lateness[slot] = late
