"""Out-of-order input: hold events until no earlier one can still arrive.

With a profile's ``lateness`` L > 0 the engine promises to place an event
that arrives up to L ms (of application time) after later ones in its
windows. It keeps arriving events in a heap and passes them on, in time
order, once the newest time seen is L past them: a watermark, as in stream
processors with bounded disorder. An exact repeat of an event not yet passed
on (same stream, time and triples) is dropped; an event older than what was
already passed on is too late and dropped (counted in ``dropped``). Events
of one time are passed on in the streams' order, as the harness delivers
them when none is late (the order the oracle assumes for content-change).

Timeline, L = 2, events with times 1, 4, 2, 5, 2 (a repeat), 7 arriving in
that order; an event is passed on once the newest time minus L reaches it::

    arrives   1    4    2    5    2     7
    newest    1    4    4    5    5     7
    passed    -    1    2    -    drop  4, 5
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence

from pytest_rspbench.stream.model import Event


class Reorder:
    """A watermark buffer over ``(stream, event)`` arrivals."""

    def __init__(self, lateness: int, streams: Sequence[str] = ()) -> None:
        self.lateness = lateness
        self.dropped = 0
        # Events of one time leave in the streams' order (the order in which
        # the harness delivers them when nothing is late), then as they came.
        self._rank = {s.strip("<>"): k for k, s in enumerate(streams)}
        self._heap: list[tuple[int, int, int, str, Event]] = []
        self._pending: set[tuple[str, int, tuple]] = set()
        self._edge: set[tuple[str, int, tuple]] = set()  # passed on at the last time
        self._passed: int | None = None
        self._newest: int | None = None
        self._arrivals = 0

    def push(self, stream: str, event: Event) -> Iterator[tuple[str, Event]]:
        """Take one arrival; yield what is now safe to process, in time order."""
        key = (stream, event.time, event.triples)
        late = self._passed is not None and event.time < self._passed
        if late or key in self._pending or key in self._edge:
            self.dropped += 1
            return
        self._pending.add(key)
        rank = self._rank.get(stream.strip("<>"), len(self._rank))
        heapq.heappush(self._heap, (event.time, rank, self._arrivals, stream, event))
        self._arrivals += 1
        self._newest = event.time if self._newest is None else max(self._newest, event.time)
        yield from self._release(self._newest - self.lateness)

    def drain(self) -> Iterator[tuple[str, Event]]:
        """The input is over: everything held, in time order."""
        if self._heap:
            yield from self._release(max(time for time, *_ in self._heap))

    def _release(self, upto: int) -> Iterator[tuple[str, Event]]:
        while self._heap and self._heap[0][0] <= upto:
            time, _, _, stream, event = heapq.heappop(self._heap)
            key = (stream, time, event.triples)
            self._pending.discard(key)
            if time != self._passed:
                self._edge.clear()
            self._passed = time
            self._edge.add(key)
            yield stream, event
