"""The bundled probe suite: tiny streams where RSP engines differ.

Each :class:`Probe` is one query over one stream of a few events, built for
one stream shape (CSRBench Table 1, SECRET, RSP-QL Def. 12-26): events on
window borders, a first event long after registration, gaps longer than a
window and than a slide (several windows closing at one event), a window
still open when the input ends, late events, a burst, every R2S operator,
empty windows and an aggregate over no values; and for count and session
windows (docs/count-and-session-windows.md) one stream shape per profile
field, each chosen so that the other fields do not change its output. A probe
names the semantic dimensions it tests (:data:`DIMENSIONS`); :mod:`.inference`
asks the oracle which values of a dimension explain the engine's output on
those probes.

Times are ms. Each stream ends (``end``) where no window closes exactly at its
last event, so a window the end of the input closes is told apart from one a
later event closes (flush at the end)::

    open-at-end   tumbling 2000, events 500 1000 2500 4200, end 6000
    0      2000     4000     6000
    [ a b  )[  c    )[  d     )   <- [4000,6000) closes only with the end

A count probe over one-triple events (``either``) is the same window written
``[ROWS n]`` or ``[TRIPLES n]``: it runs with whichever kind the engine lists.
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
# earlier ones found); the count and session ones are profile fields
# (rsp/semantics.py) but "count unit", which is the window kind counted.
DIMENSIONS = (
    "t0", "bounds", "report", "flush", "r2s", "lateness", "answers",
    "count_bounds", "count unit", "count_rampup", "count_ties", "count_tick", "count_order",
    "session_bounds", "session_gap",
)  # fmt: skip
COUNT_KEYWORDS = {"rows": "ROWS", "triples": "TRIPLES"}

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
        clause: a count or session window for ``:w`` instead of the time
            window (``ROWS 2 STEP 2``, ``SESSION 3000``; the gap in ms).
        either: a count probe over one-triple events, so ``ROWS`` and
            ``TRIPLES`` give the same window: it runs with the kind the
            engine lists (:attr:`kinds`).
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
    clause: str | None = None
    either: bool = False

    @property
    def kind(self) -> str:
        """The window kind the probe is written with: time, rows, triples, session.

        >>> BY_NAME["count-tick"].kind, BY_NAME["late-start"].kind
        ('triples', 'time')
        """
        return "time" if self.clause is None else self.clause.split()[0].lower()

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds it can run with, preferred first (``either``: rows or triples)."""
        return tuple(COUNT_KEYWORDS) if self.either else (self.kind,)

    def text(self, r2s: str | None = None, kind: str | None = None) -> str:
        """The RSP-QL query (with another R2S operator when ``r2s`` is given,
        its count window counting ``kind`` when given).

        >>> BY_NAME["count-unit-rows"].text(kind="triples").splitlines()[2]
        'FROM NAMED WINDOW :w ON STREAM :s [TRIPLES 2 STEP 2]'
        """
        width, slide = self.window
        clause = f"RANGE {width} STEP {slide}"
        if self.clause is not None:
            head, _, rest = self.clause.partition(" ")
            clause = f"{COUNT_KEYWORDS.get(kind or '', head)} {rest}"
        windows = f"FROM NAMED WINDOW :w ON STREAM :s [{clause}]\n"
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

    def query(self, r2s: str | None = None, kind: str | None = None) -> RspqlQuery:
        return parse(self.text(r2s, kind))

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


def _grouped(times: Sequence[int], size: int, prefix: str = "g") -> tuple[Timed, ...]:
    """One event of ``size`` triples at each time (subjects ``g1000-0``, ...)."""
    return tuple((t, tuple((f"{prefix}{t}-{k}", k) for k in range(size))) for t in times)


def _batches(*sizes: tuple[int, int]) -> tuple[Timed, ...]:
    """``(time, size)`` events named a, b, c, ... (subjects ``a1 a2``, ``b1``, ...)."""
    return tuple(
        (time, tuple((f"{chr(97 + n)}{k + 1}", k) for k in range(size)))
        for n, (time, size) in enumerate(sizes)
    )


# Count and session windows (docs/count-and-session-windows.md): each shape
# makes one profile field matter and, as far as it can, no other. Slides and
# sessions of the reference profile (time order, ties by arrival, ramp-up
# reported, tuple-driven, [first,last], split)::
#
#   count-bounds   [ROWS 2 STEP 2], 1 triple at 1..6 s  slides at 2, 4, 6 s: full
#   count-unit-*   [ROWS|TRIPLES 2 STEP 2], 2 triples   events: 2, 4, 6 s; triples: every event
#   count-rampup   [ROWS 3], 1 triple at 1..5 s         report: 1..5 s; skip: 3..5 s
#   count-ties     [ROWS 2 STEP 3], 3 events at 1, 2, 3 s  each slide cuts between tied events
#   count-tick     [TRIPLES 3 STEP 2], 2+1+3+2 triples  tuple: 1, 4, 4, 6 s; graph: 1, 4, 6 s
#   count-order    [ROWS 2], events every 0.5 s, 4 delivered late: by time or by arrival
#   session-bounds [SESSION 2000], no two events exactly 2 s apart: [1000,1500]@3500 ...
#   session-gap    [SESSION 3000], 2 -> 5 -> 8 s one gap apart: split 4 sessions, merge 2
COUNT_AND_SESSION_PROBES: tuple[Probe, ...] = (
    Probe(
        "count-bounds",
        "[ROWS 2 STEP 2] over one-triple events: every slide full, only the reported "
        "window differs",
        ("count_bounds",),
        _each(range(1000, 7000, 1000)),
        end=7500,
        clause="ROWS 2 STEP 2",
        either=True,
    ),
    Probe(
        "count-unit-rows",
        "[ROWS 2 STEP 2] over events of two triples: counting triples slides after every event",
        ("count unit",),
        _grouped(range(1000, 7000, 1000), 2),
        end=7500,
        clause="ROWS 2 STEP 2",
    ),
    Probe(
        "count-unit-triples",
        "[TRIPLES 2 STEP 2] over events of two triples: counting events slides after "
        "every second event",
        ("count unit",),
        _grouped(range(1000, 7000, 1000), 2),
        end=7500,
        clause="TRIPLES 2 STEP 2",
    ),
    Probe(
        "count-rampup",
        "[ROWS 3] over one-triple events: two slides before the third element",
        ("count_rampup",),
        _each(range(1000, 6000, 1000)),
        end=6500,
        clause="ROWS 3",
        either=True,
    ),
    Probe(
        "count-ties",
        "[ROWS 2 STEP 3] over three one-triple events at each of three instants: every "
        "cut falls between tied events (no tie when counting arrivals)",
        ("count_ties",),
        tuple((t, ((f"t{t}-{k}", k),)) for t in (1000, 2000, 3000) for k in range(3)),
        end=4000,
        clause="ROWS 2 STEP 3",
        either=True,
    ),
    Probe(
        "count-tick",
        "[TRIPLES 3 STEP 2] over events of 2, 1, 3 and 2 triples: two slides inside one event",
        ("count_tick",),
        _batches((1000, 2), (3000, 1), (4000, 3), (6000, 2)),
        end=7000,
        clause="TRIPLES 3 STEP 2",
    ),
    Probe(
        "count-order",
        "[ROWS 2] over one-triple events every 0.5 s, four delivered up to 1.5 s late",
        ("count_order",),
        _each(range(500, 6000, 500)),
        end=6500,
        clause="ROWS 2",
        either=True,
        disorder=Disorder(late=0.5, max_delay=1500, seed=1),
        pinned={"lateness": 2000},
    ),
    Probe(
        "session-bounds",
        "[SESSION 2000] over events never exactly one gap apart: only the reported window differs",
        ("session_bounds",),
        _each((1000, 1500, 5000, 5500, 6000, 10000)),
        end=13000,
        clause="SESSION 2000",
    ),
    Probe(
        "session-gap",
        "[SESSION 3000] over events of which 2 -> 5 s and 5 -> 8 s are exactly one gap apart",
        ("session_gap",),
        _each((1000, 2000, 5000, 8000, 12000, 13000)),
        end=14000,
        clause="SESSION 3000",
    ),
)

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
    *COUNT_AND_SESSION_PROBES,
)
BY_NAME = {p.name: p for p in PROBES}


def probes_of(dimension: str) -> tuple[Probe, ...]:
    """The probes a dimension's inference reads.

    >>> [p.name for p in probes_of("bounds")]
    ['late-start', 'border-events']
    """
    return tuple(p for p in PROBES if dimension in p.dimensions)
