"""Workload shapes: how many records arrive when, and disorder on top.

A workload fixes the arrival times of records (application time, ms) and
fills each record with one small sensor observation, so the load an engine
sees can be shaped independently of the data (the RMLStreamer evaluation's
constant and periodic-burst workloads; LSBench §3.1 feeds streams at chosen
rates). Shapes, with ``rate`` in records per second:

``constant``        ``rate`` records/s, evenly spaced.
``periodic-burst``  ``rate`` records/s, plus ``burst`` records spread evenly
                    over ``burst_length`` ms every ``period`` ms (first at
                    ``period``); e.g. 400/s plus 38,000 every 10 s in 175 ms.
``step``            ``rate`` records/s until ``at`` ms, ``rate_after`` from then.
``ramp``            rate changing linearly from ``rate`` at 0 to ``rate_after``
                    at ``duration``.
``poisson``         a Poisson process of ``rate`` records/s (seeded).

Timeline of ``step`` (rate 2/s, rate_after 4/s, at 1000)::

    0         500        1000  1250  1500  1750  2000 ms
    |----------|----------|-----|-----|-----|-----|
    r          r          r     r     r     r     r

:func:`arrivals` delays some events' *arrival* without changing their time
and delivers some twice (:class:`Disorder`, a stream's ``disorder:`` in a
spec), giving the out-of-order input that engines with disorder handling must
cope with. Such a sequence breaks the stream model (time must not decrease),
so the harness uses it for replaying into an engine; the oracle reads the
stream in order (:meth:`Stream.events`).
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pytest_rspbench.stream import parameters as check
from pytest_rspbench.stream.model import Event, Triple
from pytest_rspbench.stream.parameters import (
    MAX_PER_MS,
    MAX_RECORDS,
    MAX_TIME,
    ParameterError,
)

SHAPES = ("constant", "periodic-burst", "step", "ramp", "poisson")
EX = "http://example.org/rspbench/"
SOSA = "http://www.w3.org/ns/sosa/"
_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
_INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"
MAX_RATE = 10_000_000
"""The highest ``rate`` and ``rate_after``, records per second (10 per µs)."""


@dataclass(frozen=True)
class Workload:
    """A workload shape (see the module docstring); times in ms."""

    shape: str = "constant"
    duration: int = 10_000
    rate: float = 100.0
    rate_after: float | None = None
    at: int = 0
    burst: int = 0
    period: int = 10_000
    burst_length: int = 1
    seed: int = 0
    sensors: int = 10

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ParameterError(
                "workload",
                "shape",
                f"expected shape among {list(SHAPES)}, found {self.shape!r}.",
                f"use one of: {', '.join(SHAPES)}.",
            )
        if self.shape in ("step", "ramp") and self.rate_after is None:
            raise ParameterError(
                "workload",
                "rate_after",
                f"shape {self.shape} needs rate_after.",
                "add 'rate_after:' (records per second after the change).",
            )
        for name in ("rate", "rate_after"):
            if getattr(self, name) is not None:
                check.number("workload", name, getattr(self, name), 0, MAX_RATE, "records/s")
        for name in ("duration", "at", "period", "burst_length"):
            low = 1 if name in ("period", "burst_length") else 0
            check.integer("workload", name, getattr(self, name), low, MAX_TIME, "ms")
        check.integer("workload", "burst", self.burst, 0, MAX_RECORDS, "records")
        check.integer("workload", "sensors", self.sensors, 1, MAX_RECORDS)
        check.seed("workload", self.seed)
        self._check_size()

    def _check_size(self) -> None:
        # Each millisecond's records form one event held in memory whole.
        per_ms = math.ceil(self.burst / self.burst_length)
        if self.shape == "periodic-burst" and per_ms > MAX_PER_MS:
            raise ParameterError(
                "workload",
                "burst",
                f"a burst of {self.burst:,} records in {self.burst_length:,} ms puts "
                f"{per_ms:,} records in each millisecond; at most {MAX_PER_MS:,} fit.",
                "spread the burst over a longer burst_length, or make it smaller.",
            )
        fastest = max(self.rate, self.rate_after or 0.0)
        bursts = self.burst * (self.duration // self.period)
        check.records(
            "workload",
            "rate",
            fastest * self.duration / 1000 + bursts,
            "lower rate (records per second) or duration (ms).",
        )


def arrival_times(workload: Workload) -> Iterator[int]:
    """Arrival time (ms, non-decreasing) of every record, up to ``duration``.

    >>> step = Workload("step", duration=2000, rate=2, rate_after=4, at=1000)
    >>> list(arrival_times(step))
    [0, 500, 1000, 1250, 1500, 1750, 2000]
    """
    times = {
        "constant": _constant,
        "periodic-burst": _periodic_burst,
        "step": _step,
        "ramp": _ramp,
        "poisson": _poisson,
    }[workload.shape](workload)
    for moment in times:
        if moment > workload.duration:
            return
        yield math.floor(moment)


def workload_events(workload: Workload) -> Iterator[Event]:
    """Events of the workload: one observation (3 triples) per record."""
    values = random.Random(workload.seed)
    batch: list[Triple] = []
    current = 0
    for number, time in enumerate(arrival_times(workload)):
        if time != current and batch:
            yield Event(current, tuple(batch))
            batch = []
        current = time
        obs = f"<{EX}observation/{number}>"
        batch += [
            (obs, _TYPE, f"<{SOSA}Observation>"),
            (obs, f"<{SOSA}madeBySensor>", f"<{EX}sensor/{number % workload.sensors}>"),
            (
                obs,
                f"<{SOSA}hasSimpleResult>",
                f'"{int(values.random() * 100)}"^^{_INTEGER}',
            ),
        ]
    if batch:
        yield Event(current, tuple(batch))


@dataclass(frozen=True)
class Disorder:
    """How events reach the engine out of order: late and duplicated.

    Attributes:
        late: fraction of events that arrive late, each by 1 to ``max_delay``
            ms after its time (it keeps its time).
        max_delay: the largest delay, ms.
        duplicates: fraction of events delivered a second time, 0 to
            ``max_delay`` ms after the first delivery.
        seed: seed of the draws (the same seed gives the same arrivals).
    """

    late: float = 0.0
    max_delay: int = 0
    duplicates: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("late", "duplicates"):
            check.number("disorder", name, getattr(self, name), 0, 1, "a fraction")
        check.integer("disorder", "max_delay", self.max_delay, 0, MAX_TIME, "ms")
        check.seed("disorder", self.seed)
        if (self.late or self.duplicates) and not self.max_delay:
            raise ParameterError(
                "disorder",
                "max_delay",
                "late or duplicated events need max_delay > 0.",
                "set max_delay, e.g. max_delay: 2s.",
            )


def arrivals(events: Iterable[Event], disorder: Disorder) -> Iterator[tuple[int, Event]]:
    """``(arrival time, event)`` in arrival order, after delaying and duplicating.

    Each event arrives at its time unless drawn late (``disorder.late``):
    then 1 to ``max_delay`` ms after it. A duplicated event
    (``disorder.duplicates``) arrives again, 0 to ``max_delay`` ms after its
    first arrival. Events arriving at the same time keep their order. Memory
    holds only the events whose arrival is still ahead. Deterministic for a
    seed.

    >>> events = [Event(t, ()) for t in range(0, 50, 5)]
    >>> [(a, e.time) for a, e in arrivals(events, Disorder(0.3, 12, seed=1))][:4]
    [(5, 5), (11, 0), (15, 15), (16, 10)]
    """
    draw = random.Random(disorder.seed).random
    limit = disorder.max_delay
    waiting: list[tuple[int, int, Event]] = []
    number = 0
    for event in events:
        while waiting and waiting[0][0] <= event.time:
            arrival, _, ready = heapq.heappop(waiting)
            yield arrival, ready
        arrival = event.time
        if disorder.late and draw() < disorder.late:
            arrival += 1 + min(int(draw() * limit), limit - 1)
        heapq.heappush(waiting, (arrival, number, event))
        number += 1
        if disorder.duplicates and draw() < disorder.duplicates:
            again = arrival + min(int(draw() * (limit + 1)), limit)
            heapq.heappush(waiting, (again, number, event))
            number += 1
    while waiting:
        arrival, _, ready = heapq.heappop(waiting)
        yield arrival, ready


def _evenly(start: float, per_ms: float, until: float) -> Iterator[float]:
    """Times ``start + k / per_ms`` below ``until`` (all of them if per_ms is 0)."""
    if per_ms <= 0:
        return
    k = 0
    while (moment := start + k / per_ms) < until:
        yield moment
        k += 1


def _constant(w: Workload) -> Iterator[float]:
    return _evenly(0.0, w.rate / 1000, math.inf)


def _periodic_burst(w: Workload) -> Iterator[float]:
    bursts = (
        t
        for start in range(w.period, w.duration + 1, w.period)
        for t in _evenly(start, w.burst / w.burst_length, start + w.burst_length)
    )
    return heapq.merge(_constant(w), bursts)


def _step(w: Workload) -> Iterator[float]:
    before = _evenly(0.0, w.rate / 1000, w.at)
    return heapq.merge(before, _evenly(w.at, (w.rate_after or 0) / 1000, math.inf))


def _ramp(w: Workload) -> Iterator[float]:
    # Record k arrives when the count r0*t + (r1-r0)*t^2/(2D) reaches k.
    r0, r1 = w.rate / 1000, (w.rate_after or 0) / 1000
    a = (r1 - r0) / (2 * max(w.duration, 1))
    k = 0
    while True:
        if a == 0:
            if r0 == 0:
                return
            moment = k / r0
        else:
            discriminant = r0 * r0 + 4 * a * k
            if discriminant < 0:
                return
            moment = (-r0 + math.sqrt(discriminant)) / (2 * a)
        yield moment
        k += 1


def _poisson(w: Workload) -> Iterator[float]:
    draw, per_ms, moment = random.Random(w.seed).random, w.rate / 1000, 0.0
    while per_ms > 0:
        moment += -math.log(1.0 - draw()) / per_ms
        yield moment
