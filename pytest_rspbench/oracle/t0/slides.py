"""Count windows as the oracle plans them: counting order, slides, ties.

The contract is docs/count-and-session-windows.md; the arithmetic of one
window is :mod:`pytest_rspbench.rsp.counting`. Here it runs over a stream's
events as the stream cache knows them (each event's time and triple count,
in stream order), for the oracle's plan: which elements each slide holds and
when it is evaluated. The elements of a window are numbered from 1 in its
counting order, and that number is the window's *axis*: the slide after
element ``p`` holds the axis interval ``(p - n, p]``, a time window over
the axis (:func:`axis`), so the oracle's span machinery assigns solutions
to slides as it assigns them to time windows. ``[TRIPLES 3 STEP 2]`` over
``e1@1 = (a1, a2)``, ``e2@3 = (b1)``, ``e3@4 = (c1, c2, c3)``::

    axis (element)   1    2    3    4    5    6
    triple           a1   a2   b1   c1   c2   c3
    slide windows    (-1,2]    (1,4]     (3,6]        WindowSpec(3, 2, "(o,c]"), t0 = -1
    evaluated at     τ=1       τ=4       τ=4

Under ``count_order: time`` the axis is the stream's own numbering (the
cache's ``e`` for rows, ``q`` for triples); under ``arrival`` it follows the
deliveries (:func:`arrival_orders`), exact repeats dropped.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.rsp.counting import CountWindow
from pytest_rspbench.rsp.windows import Bounds, WindowSpec
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.stream.workloads import Disorder, arrivals

MAX_CHOICES = 256
"""The most correct contents one slide may have under ``count_ties: any``."""

Place = tuple[int, ...]
"""Where an arrival is in the input; tuples compare in the input's order."""


@dataclass(frozen=True)
class Counting:
    """The events a count window counts, in its counting order.

    Attributes:
        events: stream ordinals (from 1, stream order) of the counted events.
        places: each counted event's place in the input: ``(time, stream,
            ordinal)`` when the input is merged by time, ``(delivery,)``
            when it is delivered out of order and counted so.
    """

    events: tuple[int, ...]
    places: tuple[Place, ...]


@dataclass(frozen=True)
class CountSlide:
    """One evaluation of a count window (a slide that the tick evaluates).

    Attributes:
        time: its evaluation time τ, on the engine's clock.
        place: where in the input it slid (its arrival's place, then how
            many of the arrival's triples were counted).
        first: the first element it holds (axis position, from 1).
        last: the last element it holds.
        index: the window of :func:`axis` it reads.
        window: ``(c(first), c(last))``, the times of its first and last element.
        choices: under ``count_ties: any`` with a tie at its cut, every
            correct content as axis positions (empty: just ``first..last``).
    """

    time: int
    place: Place
    first: int
    last: int
    index: int
    window: tuple[int, int]
    choices: tuple[tuple[int, ...], ...] = ()


def axis(window: CountWindow, tick: str) -> tuple[WindowSpec, int]:
    """The count window as a time window over its axis, and that window's t0.

    The slide after element ``k * m`` holds ``(k*m - n, k*m]``: window
    ``k - 1`` of ``WindowSpec(n, m, "(o,c]")`` from ``t0 = m - n``. A
    graph-driven ``TRIPLES`` window is evaluated at the end of an event
    (any element), so its axis windows step by one element.

    >>> axis(CountWindow("rows", 3, 2), "tuple-driven")
    (WindowSpec(width=3, slide=2, bounds='(o,c]'), -1)
    """
    step = 1 if window.kind == "triples" and tick == "graph-driven" else window.step
    return WindowSpec(window.size, step, Bounds.OPEN_CLOSED), step - window.size


def time_order(times: Sequence[int], stream: int) -> Counting:
    """Every event of a stream, in stream order (``count_order: time``);
    ``times`` are the events' times, ``stream`` the stream's position in the input."""
    events = tuple(range(1, len(times) + 1))
    return Counting(events, tuple((t, stream, e) for e, t in zip(events, times, strict=True)))


def arrival_orders(
    streams: Sequence[Stream], disorder: Mapping[str, Disorder]
) -> dict[str, Counting]:
    """Per stream, the events it delivers in delivery order (``count_order:
    arrival``), an exact repeat of a delivered event (same time and triples)
    dropped, each with its place in the merged delivery.

    The delivery is the harness's (``engine.harness.deliveries``): a stream
    with a :class:`Disorder` delivers as ``stream.workloads.arrivals`` draws
    it (deterministic per seed), the others at their times; the streams are
    merged by arrival, stable per stream. It is read here, in Python, and
    reaches Spark as a small table from event ordinal to axis value, not as
    a column of the stream cache: the cache is keyed by the stream's
    content, the delivery by the case's ``disorder:`` too.
    """
    merged = heapq.merge(
        *(_delivered(k, s, disorder.get(s.iri)) for k, s in enumerate(streams)),
        key=lambda d: (d[0], d[1]),
    )
    events: dict[int, list[int]] = {k: [] for k in range(len(streams))}
    places: dict[int, list[Place]] = {k: [] for k in range(len(streams))}
    seen: set[tuple[int, int, tuple]] = set()
    for delivery, (_, k, ordinal, event) in enumerate(merged):
        key = (k, event.time, event.triples)
        if key in seen:
            continue
        seen.add(key)
        events[k].append(ordinal)
        places[k].append((delivery,))
    return {s.iri: Counting(tuple(events[k]), tuple(places[k])) for k, s in enumerate(streams)}


def _delivered(
    k: int, stream: Stream, disorder: Disorder | None
) -> Iterator[tuple[int, int, int, Event]]:
    """``(arrival, stream, ordinal, event)`` of one stream, in arrival order."""
    listed = list(stream.events())
    if disorder is None:
        for ordinal, event in enumerate(listed, start=1):
            yield event.time, k, ordinal, event
        return
    ordinals = {id(event): ordinal for ordinal, event in enumerate(listed, start=1)}
    for arrival, event in arrivals(listed, disorder):
        yield arrival, k, ordinals[id(event)], event


@dataclass(frozen=True)
class Elements:
    """A count window's elements along its axis.

    Attributes:
        ends: ``ends[j]`` is the last axis position of the j-th counted
            event (``ends[0] = 0``): the running count ``P``.
        times: each counted event's time, on the engine's clock.
        triples: each counted event's triple count.
        runs: the first axis position of each run of tied elements.
    """

    ends: tuple[int, ...]
    times: tuple[int, ...]
    triples: tuple[int, ...]
    runs: tuple[int, ...]

    def event_of(self, position: int) -> int:
        """The counted event (from 1) holding the element at ``position``."""
        return bisect.bisect_left(self.ends, position)

    def run_of(self, position: int) -> tuple[int, int]:
        """The first and last position of the run of elements tied with ``position``."""
        at = bisect.bisect_right(self.runs, position) - 1
        last = self.runs[at + 1] - 1 if at + 1 < len(self.runs) else self.ends[-1]
        return self.runs[at], last


def elements(
    window: CountWindow,
    counting: Counting,
    times: Sequence[int],
    sizes: Sequence[int],
    order: str,
    unit: int = 1,
) -> Elements:
    """The elements of ``window`` over one stream: events of these ``times``
    and ``sizes`` (stream order), counted in ``counting`` order.

    Elements tie (``count_ties``) when they share their time under
    ``count_order: time``, their event under ``arrival``.
    """
    ends, clock, triples, runs = [0], [], [], []
    previous: tuple[str, int] | None = None
    for j, e in enumerate(counting.events, start=1):
        size = 1 if window.kind == "rows" else sizes[e - 1]
        time = times[e - 1] - times[e - 1] % unit
        clock.append(time)
        triples.append(sizes[e - 1])
        ends.append(ends[-1] + size)
        key = ("time", time) if order == "time" else ("delivery", j)  # ties (count_ties)
        if size and key != previous:
            runs.append(ends[-2] + 1)
            previous = key
    return Elements(tuple(ends), tuple(clock), tuple(triples), tuple(runs))


def count_slides(
    name: str,
    window: CountWindow,
    counting: Counting,
    elements: Elements,
    tick: str,
    rampup: str,
    any_tie: bool,
) -> list[CountSlide]:
    """The evaluations of ``window`` (RSP-QL has no count window: the contract's
    "When it is evaluated"), in counting order, each with what it holds."""
    grid, _ = axis(window, tick)
    first_end = window.first_slide(rampup) * window.step
    graph = window.kind == "triples" and tick == "graph-driven"
    out: list[CountSlide] = []
    for j, place in enumerate(counting.places, start=1):
        before, after = elements.ends[j - 1], elements.ends[j]
        lowest = max(before // window.step + 1, -(-first_end // window.step))
        ends = [k * window.step for k in range(lowest, after // window.step + 1)]
        if graph and ends:
            ends = [after]
        for end in ends:
            low = max(end - window.size, 0) + 1
            # Its place inside the arrival: the event's triples counted when
            # it slid (a rows or graph-driven slide comes after the last one).
            per_triple = window.kind == "triples" and not graph
            offset = end - before if per_triple else elements.triples[j - 1]
            choices = _choices(name, elements, low, end) if any_tie else ()
            out.append(
                CountSlide(
                    elements.times[j - 1],
                    (*place, offset),
                    low,
                    end,
                    end // grid.slide - 1,
                    (elements.times[elements.event_of(low) - 1], elements.times[j - 1]),
                    choices,
                )
            )
    return out


def _choices(name: str, elements: Elements, low: int, high: int) -> tuple[tuple[int, ...], ...]:
    """Every correct content of the slide holding ``low..high`` under
    ``count_ties: any``: as many elements of each tied run as the arrival
    content holds, any of them (empty when no run is cut)."""
    a1, b1 = elements.run_of(low)
    a2, b2 = elements.run_of(high)
    if a1 == a2:
        if (a1, b1) == (low, high):
            return ()
        picks: list[tuple[range, int]] = [(range(a1, b1 + 1), high - low + 1)]
        middle: tuple[int, ...] = ()
    else:
        if a1 == low and b2 == high:
            return ()
        picks = [(range(a1, b1 + 1), b1 - low + 1), (range(a2, b2 + 1), high - a2 + 1)]
        middle = tuple(range(b1 + 1, a2))
    total = math.prod(math.comb(len(r), k) for r, k in picks)
    if total > MAX_CHOICES:
        runs = " and ".join(
            f"{k} of the {len(r)} tied elements {r.start}..{r.stop - 1}" for r, k in picks
        )
        raise UnsupportedQueryError(
            f"count_ties any: the slide of <{name}> holding elements {low}..{high} has "
            f"{total:,} correct contents ({runs}); the oracle enumerates at most "
            f"{MAX_CHOICES} per evaluation (docs/count-and-session-windows.md, "
            '"Which elements at a tie").\nHINT: pin count_ties: arrival in the spec\'s '
            "semantics, or a stream with fewer elements at one time."
        )
    chosen = [itertools.combinations(r, k) for r, k in picks]
    if len(chosen) == 1:
        contents = [tuple(c) for c in chosen[0]]
    else:
        contents = [tuple(sorted((*lo, *middle, *hi))) for lo, hi in itertools.product(*chosen)]
    # The arrival content first: the resolution an engine breaking ties by
    # arrival (as count_ties: arrival) gives, so its output is the first class.
    contents.sort(key=lambda c: c != tuple(range(low, high + 1)))
    return tuple(contents)
