"""The bundled probe suite: tiny streams where RSP engines differ.

Each :class:`Probe` is one query over one stream of a few events, built for
one stream shape (CSRBench Table 1, SECRET, RSP-QL Def. 12-26): events on
window borders, a first event long after registration, gaps longer than a
window and than a slide (several windows closing at one event), a window
still open when the input ends, late events, a burst, every R2S operator,
empty windows and an aggregate over no values. A probe names the semantic
dimensions it tests (:data:`DIMENSIONS`); :mod:`.inference` asks the oracle
which values of a dimension explain the engine's output on those probes.

Times are ms. Each stream ends (``end``) where no window closes exactly at its
last event, so a window the end of the input closes is told apart from one a
later event closes (flush at the end)::

    open-at-end   tumbling 2000, events 500 1000 2500 4200, end 6000
    0      2000     4000     6000
    [ a b  )[  c    )[  d     )   <- [4000,6000) closes only with the end
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_rspbench.rsp.rspql import RspqlQuery, parse
from pytest_rspbench.stream.model import Event, Stream, Triple
from pytest_rspbench.stream.workloads import Disorder

EX = "http://example.org/fingerprint/"
STREAM = EX + "s"
INTEGER = "http://www.w3.org/2001/XMLSchema#integer"
BURST = 900  # triples at one instant: 3 s of backlog at 300 triples/s

# The dimensions, in the order they are inferred (each uses what the
# earlier ones found).
DIMENSIONS = ("t0", "bounds", "report", "flush", "r2s", "lateness", "answers")

# (time, [(subject, value), ...]): each pair is the triple ":subject :p value".
Timed = tuple[int, Sequence[tuple[str, int]]]


@dataclass(frozen=True)
class Probe:
    """One probe: a query over a tiny stream, and what it tests.

    Attributes:
        name: a stable name (the ``probes`` file and the table cite it).
        shape: the stream shape, in words.
        dimensions: the semantic dimensions whose inference reads it.
        events: ``(time, [(subject, value), ...])`` in time order.
        end: when the input ends (ms).
        start: the registration time (ms).
        window: ``(range, step)`` in ms.
        r2s: the R2S operator the query registers.
        select: the SELECT clause.
        where: the graph pattern inside ``WINDOW :w { ... }``.
        second: ``(range, step)`` of a second window ``:w2`` over the same
            stream (None: one window); ``where`` then names both windows.
        disorder: late deliveries (None: in time order).
        pinned: semantics the engine is registered with when it declares
            them configurable (as a spec's ``semantics:`` pins them).
    """

    name: str
    shape: str
    dimensions: tuple[str, ...]
    events: tuple[Timed, ...]
    end: int
    start: int = 0
    window: tuple[int, int] = (2000, 2000)
    r2s: str = "RStream"
    select: str = "?x"
    where: str = "?x :p ?v"
    second: tuple[int, int] | None = None
    disorder: Disorder | None = None
    pinned: Mapping[str, Any] = field(default_factory=dict)

    def text(self, r2s: str | None = None) -> str:
        """The RSP-QL query (with another R2S operator when ``r2s`` is given)."""
        width, slide = self.window
        windows = f"FROM NAMED WINDOW :w ON STREAM :s [RANGE {width} STEP {slide}]\n"
        where = f"WINDOW :w {{ {self.where} }}"
        if self.second is not None:
            windows += "FROM NAMED WINDOW :w2 ON STREAM :s [RANGE {} STEP {}]\n".format(
                *self.second
            )
            where = self.where
        return (
            f"PREFIX : <{EX}>\n"
            f"REGISTER {r2s or self.r2s} :out AS SELECT {self.select}\n"
            f"{windows}WHERE {{ {where} }}\n"
        )

    def query(self, r2s: str | None = None) -> RspqlQuery:
        return parse(self.text(r2s))

    def stream(self) -> Stream:
        """The probe's stream, readable any number of times."""
        events = tuple(
            Event(time, tuple(_triple(s, v) for s, v in pairs)) for time, pairs in self.events
        )
        digest = hashlib.sha256(repr((self.name, events, self.end)).encode()).hexdigest()

        def read() -> Iterator[Event]:
            return iter(events)

        return Stream(
            STREAM, read, f"fingerprint probe {self.name}", self.end, lambda: f"probe {digest}"
        )

    @property
    def last_event(self) -> int:
        return self.events[-1][0]


def _triple(subject: str, value: int) -> Triple:
    return (f"<{EX}{subject}>", f"<{EX}p>", f'"{value}"^^<{INTEGER}>')


def _each(times: Sequence[int], prefix: str = "o") -> tuple[Timed, ...]:
    return tuple((t, ((f"{prefix}{t}", k),)) for k, t in enumerate(times))


PROBES: tuple[Probe, ...] = (
    Probe(
        "late-start",
        "first event 2.5 s after registration, sliding 3000/2000: registration, "
        "first event and aligned t0 give other windows",
        ("t0", "bounds"),
        _each(range(2500, 9000, 1000)),
        end=10000,
        window=(3000, 2000),
    ),
    Probe(
        "border-events",
        "an event on every window border, tumbling 2000",
        ("bounds",),
        _each(range(0, 6000, 1000)),
        end=6000,
    ),
    Probe(
        "empty-windows",
        "a gap longer than a window, a non-empty window with an empty answer, "
        "an empty window closed by the end",
        ("report",),
        ((0, (("a", 1),)), (1000, (("b", 3),)), (2500, (("c", 1),)), (7000, (("d", 5),))),
        end=10000,
        where="?x :p ?v FILTER(?v > 2)",
    ),
    Probe(
        "gap-sliding",
        "a gap longer than the slide: four windows close at one event, sliding 4000/1000",
        ("report",),
        _each((0, 500, 1500, 7500, 8200)),
        end=9000,
        window=(4000, 1000),
    ),
    Probe(
        "istream",
        "IStream over a sliding window whose content changes",
        ("r2s",),
        _each((0, 1000, 2500, 3500)),
        end=5000,
        window=(2000, 1000),
        r2s="IStream",
    ),
    Probe(
        "dstream",
        "DStream over a sliding window whose content changes",
        ("r2s",),
        _each((0, 1000, 2500, 3500)),
        end=5000,
        window=(2000, 1000),
        r2s="DStream",
    ),
    Probe(
        "open-at-end",
        "a window that only the end of the input closes",
        ("flush",),
        _each((500, 1000, 2500, 4200)),
        end=6000,
    ),
    Probe(
        "late-events",
        "events delivered up to 1.5 s late (out of order), tumbling 2000",
        ("lateness",),
        _each(range(250, 8000, 500)),
        end=10000,
        disorder=Disorder(late=0.4, max_delay=1500, seed=3),
        pinned={"lateness": 2000},
    ),
    Probe(
        "two-windows",
        "two windows over one stream (tumbling 2000 and 4000/2000), joined",
        ("answers",),
        _each((500, 1000, 2500, 3000, 4500, 5000, 6200)),
        end=8000,
        second=(4000, 2000),
        where="WINDOW :w { ?x :p ?v } WINDOW :w2 { ?x :p ?v }",
    ),
    Probe(
        "empty-average",
        "AVG over a non-empty window whose FILTER keeps no value (SPARQL: 0)",
        ("answers",),
        ((500, (("a", 1),)), (1000, (("b", 20),)), (2500, (("c", 2),)), (4200, (("d", 30),))),
        end=6000,
        select="(AVG(?v) AS ?avg)",
        where="?x :p ?v FILTER(?v > 10)",
    ),
    Probe(
        "burst",
        f"a burst of {BURST} triples at one instant, then one event a second",
        ("answers",),
        (
            (500, (("a", 1),)),
            (1000, tuple((f"b{k}", k) for k in range(BURST))),
            *_each((2500, 3500, 4500, 5500, 6200), "c"),
        ),
        end=8000,
        where="?x :p ?v FILTER(?v < 3)",
    ),
)
BY_NAME = {p.name: p for p in PROBES}


def probes_of(dimension: str) -> tuple[Probe, ...]:
    """The probes a dimension's inference reads.

    >>> [p.name for p in probes_of("bounds")]
    ['late-start', 'border-events']
    """
    return tuple(p for p in PROBES if dimension in p.dimensions)
