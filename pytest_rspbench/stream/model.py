"""The stream model (docs/spec-format.md, "Streams").

A *stream* is a sequence of timestamped triples ``(d, t)`` with non-decreasing
integer application time ``t`` in milliseconds. Triples with the same ``t``
form one *event* (an RDF graph). Terms are N-Triples strings
(see :mod:`pytest_rspbench.rsp.terms`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from pytest_rspbench.errors import StreamError

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class Event:
    """All triples of one stream that share one application time (ms)."""

    time: int
    triples: tuple[Triple, ...]


@dataclass(frozen=True)
class Stream:
    """A named stream whose events can be read any number of times.

    ``read`` returns a fresh iterator each call, so a stream can be replayed
    into an engine and, independently, materialised for the oracle without
    holding it in memory twice.

    Attributes:
        iri: the stream's IRI as the query names it (without angle brackets).
        read: a callable returning the events in time order.
        describe: a short human description of where the events come from.
        end: application time at which the stream ends (no event of it
            after); None means the time of the last event. The input ends at
            the latest end of its streams: a window closing by then is
            complete, whichever stream it reads.
        fingerprint: a callable returning a text that determines the events
            (same text, same events: a generator's settings, a digest of the
            source files), used as a cache key without reading the events;
            None when there is no such text (streams built in memory).
    """

    iri: str
    read: Callable[[], Iterator[Event]]
    describe: str
    end: int | None = None
    fingerprint: Callable[[], str] | None = None

    def events(self) -> Iterator[Event]:
        """Events in time order; raises StreamError when time goes backwards."""
        return ordered(self.read(), self.describe)


def ordered(events: Iterable[Event], where: str) -> Iterator[Event]:
    """Yield events, checking that application time never decreases."""
    last: int | None = None
    for event in events:
        if last is not None and event.time < last:
            raise StreamError(
                f"{where}: event at t={event.time} ms comes after t={last} ms; "
                "stream time must not decrease.\n"
                "HINT: sort the input by time, or fix the timestamps."
            )
        last = event.time
        yield event


def group_events(timed: Iterable[tuple[int, Triple]]) -> Iterator[Event]:
    """Group consecutive ``(time, triple)`` pairs with equal time into events.

    >>> [e.time for e in group_events([(0, ("a", "b", "c")), (0, ("a", "b", "d")),
    ...                                (5, ("x", "y", "z"))])]
    [0, 5]
    """
    current: int | None = None
    batch: list[Triple] = []
    for time, triple in timed:
        if time != current and batch:
            yield Event(current, tuple(batch))  # type: ignore[arg-type]
            batch = []
        current = time
        batch.append(triple)
    if batch:
        yield Event(current, tuple(batch))  # type: ignore[arg-type]
