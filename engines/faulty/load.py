"""A deterministic load model for the engines that misbehave "under load".

Real engines fall behind when input arrives faster than they can process it
(YABench §6: C-SPARQL's windows drift and its delays grow with the load). To
keep tests reproducible the model counts load in *application* time, not wall
time: the engine processes ``capacity`` triples per second of application
time; an event of ``n`` triples adds ``n / capacity`` s of work, and the
backlog drains at one second per second. While the backlog is zero the engine
is not loaded and behaves correctly.

    capacity 2 triples/s, events of 4 triples at t = 0, 1000, 5000 ms:
    t=0     backlog 2000 ms
    t=1000  backlog 2000 - 1000 + 2000 = 3000 ms
    t=5000  backlog max(0, 3000 - 4000) + 2000 = 2000 ms
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Backlog:
    """Work queued ahead of the engine, in ms of application time.

    >>> b = Backlog(capacity=2, cap=60_000)
    >>> [b.arrive(t, 4) for t in (0, 1000, 5000)]
    [2000, 3000, 2000]
    """

    capacity: float
    cap: int
    ms: int = 0
    _last: int | None = None

    def arrive(self, time: int, triples: int) -> int:
        """An event of ``triples`` at ``time``; the backlog after it (ms)."""
        self.drain(time)
        self.ms = min(self.cap, self.ms + round(1000 * triples / self.capacity))
        return self.ms

    def drain(self, time: int) -> int:
        """Application time has reached ``time``; the backlog left (ms)."""
        if self._last is not None:
            self.ms = max(0, self.ms - (time - self._last))
        self._last = time
        return self.ms
