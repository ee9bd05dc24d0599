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

:func:`inject_disorder` delays some events' *arrival* without changing their
time, giving the out-of-order input that engines with disorder handling must
cope with. Such a sequence breaks the stream model (time must not decrease),
so it is for replaying into an engine, not for :meth:`Stream.events`.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.model import Event, Triple

SHAPES = ("constant", "periodic-burst", "step", "ramp", "poisson")
EX = "http://example.org/rspbench/"
SOSA = "http://www.w3.org/ns/sosa/"
_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
_INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"


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
            raise StreamError(
                f"workload: expected shape among {list(SHAPES)}, found {self.shape!r}"
            )
        if self.shape in ("step", "ramp") and self.rate_after is None:
            raise StreamError(f"workload: shape {self.shape} needs rate_after")
        numbers = {"rate": self.rate, "rate_after": self.rate_after or 0.0}
        numbers.update(duration=self.duration, burst=self.burst, at=self.at)
        for name, value in numbers.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or value < 0
            ):
                raise StreamError(
                    f"workload: {name} must be a number >= 0, got {value!r}"
                )
        if self.period < 1 or self.burst_length < 1 or self.sensors < 1:
            raise StreamError("workload: period, burst_length and sensors must be >= 1")


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


def inject_disorder(
    events: Iterable[Event], fraction: float, max_delay: int, seed: int = 0
) -> Iterator[Event]:
    """Events in *arrival* order after delaying a ``fraction`` of them.

    A delayed event arrives up to ``max_delay`` ms after its time, keeping its
    time; events arriving together keep their order. Memory holds only the
    events delayed past the current time.

    >>> events = [Event(t, ()) for t in range(0, 50, 5)]
    >>> [e.time for e in inject_disorder(events, fraction=0.3, max_delay=12, seed=1)]
    [5, 0, 15, 10, 20, 25, 30, 35, 40, 45]
    """
    if not 0 <= fraction <= 1 or max_delay < 0:
        raise StreamError("disorder: expected 0 <= fraction <= 1 and max_delay >= 0")
    draw = random.Random(seed).random
    waiting: list[tuple[int, int, Event]] = []
    for number, event in enumerate(events):
        while waiting and waiting[0][0] <= event.time:
            yield heapq.heappop(waiting)[2]
        delay = 0
        if draw() < fraction:
            delay = 1 + min(int(draw() * max_delay), max_delay - 1) if max_delay else 0
        heapq.heappush(waiting, (event.time + delay, number, event))
    while waiting:
        yield heapq.heappop(waiting)[2]


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
