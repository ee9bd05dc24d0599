"""Per-stream buffers: the events that some present or future window may need.

Events arrive in time order, so a buffer is a deque sorted by time: content
queries scan it from the left and purging pops from the left. Triples are
kept as pyoxigraph terms, parsed once on arrival.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import pyoxigraph as ox

from pytest_rspbench.stream.model import Triple


class StreamBuffer:
    """Timestamped triples of one stream, oldest first."""

    def __init__(self) -> None:
        self._events: deque[tuple[int, tuple[ox.Triple, ...]]] = deque()

    def __len__(self) -> int:
        return sum(len(triples) for _, triples in self._events)

    def append(self, time: int, triples: tuple[ox.Triple, ...]) -> None:
        """Add an event; ``time`` must not be before the last one."""
        if triples:
            self._events.append((time, triples))

    def content(self, first: int, last: int) -> set[ox.Triple]:
        """The window content: the SET of triples timed in ``[first, last]``
        (RSP-QL Def. 12; a triple seen twice counts once)."""
        found: set[ox.Triple] = set()
        for time, triples in self._events:
            if time > last:
                break
            if time >= first:
                found.update(triples)
        return found

    def earliest(self, first: int) -> int | None:
        """Time of the first buffered event at or after ``first``, if any."""
        for time, _ in self._events:
            if time >= first:
                return time
        return None

    def purge(self, before: int) -> None:
        """Forget events timed before ``before``: no window still needs them."""
        while self._events and self._events[0][0] < before:
            self._events.popleft()


def parse_triples(triples: Iterable[Triple]) -> tuple[ox.Triple, ...]:
    """N-Triples term strings -> pyoxigraph triples, with one parser call.

    >>> parse_triples([("<http://s>", "<http://p>", '"1"')])[0].object.value
    '1'
    """
    document = "".join(f"{s} {p} {o} .\n" for s, p, o in triples)
    if not document:
        return ()
    quads = ox.parse(input=document, format=ox.RdfFormat.N_TRIPLES)
    return tuple(ox.Triple(q.subject, q.predicate, q.object) for q in quads)
