"""Per-window buffers: the events that a present or future window may need.

Events arrive in time order, so a buffer is a deque sorted by time: content
queries scan it from the left and purging pops from the left. Each named
window keeps its own buffer of its stream's triples, parsed once on arrival
straight into quads of the window's graph ``<w>``, ready for the store.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import pyoxigraph as ox

from pytest_rspbench.stream.model import Triple


class WindowBuffer:
    """Timestamped quads of one named window's stream, oldest first."""

    def __init__(self) -> None:
        self._events: deque[tuple[int, tuple[ox.Quad, ...]]] = deque()

    def __len__(self) -> int:
        return sum(len(quads) for _, quads in self._events)

    def append(self, time: int, quads: tuple[ox.Quad, ...]) -> None:
        """Add an event; ``time`` must not be before the last one."""
        if quads:
            self._events.append((time, quads))

    def content(self, first: int, last: int) -> set[ox.Quad]:
        """The window content: the SET of triples timed in ``[first, last]``
        (RSP-QL Def. 12; a triple seen twice counts once)."""
        found: set[ox.Quad] = set()
        for time, quads in self._events:
            if time > last:
                break
            if time >= first:
                found.update(quads)
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


def parse_quads(triples: Iterable[Triple], graph: str) -> tuple[ox.Quad, ...]:
    """N-Triples term strings -> pyoxigraph quads in graph ``<graph>``, with
    one parser call per event.

    >>> quads = parse_quads([("<http://s>", "<http://p>", '"1"')], "http://w")
    >>> quads[0].object.value, quads[0].graph_name.value
    ('1', 'http://w')
    """
    document = "".join(f"{s} {p} {o} <{graph}> .\n" for s, p, o in triples)
    if not document:
        return ()
    return tuple(ox.parse(input=document, format=ox.RdfFormat.N_QUADS))
