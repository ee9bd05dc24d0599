"""Random streams for explored queries: ties, gaps, bursts and late events.

Times are multiples of the query's grid (:data:`.queries.GRID`), the grid
every width and slide is a multiple of, so events often sit on window
borders (where bounds conventions differ). Gaps range from one grid step to
longer than any window (a window with nothing in it), an event may be a
burst of many triples, and two streams often have events at one time::

    stream1   a    b  b      c                 d d d d d d d    (a burst)
    stream2   x       y      z                          w
              0   250 500   1000  ...gap...   6000     6250

A stream is delivered out of order (``disorder:``, as a spec writes it) only
when the engine waits for late events (its ``lateness``), and never later
than that.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pytest_rspbench.explore import data
from pytest_rspbench.explore.queries import GRID
from pytest_rspbench.stream.model import Event
from pytest_rspbench.stream.workloads import Disorder

GAPS = (1, 1, 2, 2, 3, 4, 8, 24)  # grid steps between events; 24 = 6 s, wider than any window
BURST = (6, 16)  # triples in a burst


@dataclass(frozen=True)
class Drawn:
    """One generated stream, as a spec's stream entry describes it."""

    iri: str
    events: tuple[Event, ...]
    start: int = 0
    end: int | None = None
    disorder: Disorder | None = None

    @property
    def triples(self) -> int:
        return sum(len(e.triples) for e in self.events)


def draw_times(rng: random.Random, count: int, start: int, shared: list[int]) -> list[int]:
    """``count`` distinct ascending times from ``start``; about a third taken
    from ``shared`` (another stream's times: ties across streams)."""
    times: set[int] = set()
    time = start + GRID * rng.choice((0, 0, 1, 3))
    while len(times) < count:
        later = [t for t in shared if t >= start]
        if later and rng.random() < 0.35:
            times.add(rng.choice(later))
        else:
            times.add(time)
            time += GRID * rng.choice(GAPS)
    return sorted(times)[:count]


def draw_stream(
    rng: random.Random,
    iri: str,
    size: int,
    start: int,
    predicates: frozenset[str],
    shared: list[int],
    lateness: int,
) -> Drawn:
    """A stream from ``start`` of at most ``2 + 2 * size`` events, over mostly ``predicates``."""
    times = draw_times(rng, rng.randint(1, 2 + 2 * size), start, shared)
    pool = "".join(sorted(predicates)) or "ntar"
    blank, odd = size >= 2, size >= 4
    events = []
    for time in times:
        count = (
            rng.randint(*BURST) if rng.random() < 0.08 else rng.randint(1, 1 + min(3, size // 2))
        )
        triples = tuple(
            data.triple(rng, rng.choice(pool if rng.random() < 0.85 else "ntar"), blank, odd)
            for _ in range(count)
        )
        events.append(Event(time, triples))
    end = times[-1] + GRID * rng.randint(1, 12) if rng.random() < 0.3 else None
    return Drawn(iri, tuple(events), start, end, _disorder(rng, lateness))


def _disorder(rng: random.Random, lateness: int) -> Disorder | None:
    """Late (and repeated) deliveries within ``lateness`` ms, now and then."""
    if lateness < GRID or rng.random() < 0.6:
        return None
    steps = lateness // GRID
    return Disorder(
        late=rng.choice((0.2, 0.4)),
        max_delay=GRID * rng.randint(1, steps),
        duplicates=rng.choice((0.0, 0.0, 0.2)),
        seed=rng.randrange(1000),
    )
