"""The oracle's plan: the windows, the t0 classes and their evaluations.

Everything here is plain Python over the streams' timelines (their distinct
event times), computed before Spark sees any data: which t0 classes exist
(RSP-QL Theorem 1, the product over named windows of Def. 25), when each
class evaluates the query (:mod:`.evaluations`), which classes are worth
computing (:mod:`.narrowing`) and from when output is compared (the stable
start ``t_s`` of RSP-QL Def. 26).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.t0 import evaluations as ev
from pytest_rspbench.oracle.t0.narrowed import Narrowed
from pytest_rspbench.rsp.rspql import RspqlQuery
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.windows import Bounds, WindowSpec
from pytest_rspbench.stream.model import Stream

MAX_CLASSES = 50_000
EXACT_TIMES = 2**53
"""Times (ms) the oracle computes window indices for exactly: Spark divides
them as doubles, whose integers are exact up to 2^53 (about 285,000 years)."""

Specs = dict[str, tuple[str, WindowSpec]]
"""Window IRI -> (stream IRI, window spec in the profile's bounds)."""


@dataclass(frozen=True)
class Timeline:
    """What the oracle needs to know about one stream's time axis."""

    start: int
    end: int
    times: tuple[int, ...]
    datatypes: dict[str, list[str]] | None = None
    distinct: bool = False
    """No triple occurs twice in the stream (so windows need no de-duplication)."""
    sizes: tuple[int, ...] | None = None
    """The triple count of each of ``times`` (None: not known)."""
    events: tuple[int, ...] | None = None
    """How many events each of ``times`` holds (count windows count events;
    None: not known, or times truncated to a clock by :func:`coarse`)."""
    event_sizes: tuple[int, ...] | None = None
    """Each event's triple count, in stream order (None: as ``events``)."""


@dataclass(frozen=True)
class ClassPlan:
    """One t0 class: the t0 of each window and its evaluations."""

    first: tuple[int, ...]
    last: tuple[int, ...]
    windows: tuple[ev.NamedWindow, ...]
    evaluations: tuple[ev.Evaluation, ...]


@dataclass(frozen=True)
class Planned:
    """The windows, the t0 classes to compute and where comparison starts."""

    specs: Specs
    plans: list[ClassPlan]
    stable_from: int
    narrowed: Narrowed | None

    @property
    def selection(self) -> list[list[int]] | None:
        """The t0 of each computed class when narrowed (part of the store key)."""
        if self.narrowed is None:
            return None
        return [list(p.first) for p in self.plans]


@dataclass(frozen=True)
class Layout:
    """Everything about the t0 classes that needs no evaluation plan.

    Attributes:
        specs: each named window's stream and spec.
        candidates: per named window, its t0 classes as ``(first, last)``.
        starts: per named window, the start ``a`` of its candidates (on the
            engine's clock: truncated to its ``time_unit``).
        stable_from: ``t_s`` (RSP-QL Def. 26).
        end: the input's end (:func:`input_end`).
        event_times: each stream's distinct event times.
        transient: at most this many evaluations of any class come before
            ``t_s`` (an engine's leading output that may be transient).
    """

    specs: Specs
    candidates: tuple[tuple[tuple[int, int], ...], ...]
    starts: tuple[int, ...]
    stable_from: int
    end: int
    event_times: Mapping[str, tuple[int, ...]]
    transient: int

    @property
    def total(self) -> int:
        """The number of t0 classes: the product over the named windows."""
        return math.prod(len(c) for c in self.candidates)


def plan(
    query: RspqlQuery,
    semantics: Semantics,
    timelines: Mapping[str, Timeline],
    narrowed: Narrowed | None = None,
) -> Planned:
    """Plan the t0 classes of the query's windows over these timelines:
    every class, or those ``narrowed`` chose."""
    return plan_classes(layout(query, semantics, timelines), semantics, narrowed)


def input_end(streams: Iterable[Stream], timelines: Mapping[str, Timeline]) -> int:
    """Application time at which the input is over: the latest stream end.

    As the harness ends its replay (``runner.end_time``): each stream ends at
    its declared ``end``, else at its last event; a stream with neither does
    not count. Every stream counts, one without events or one no window
    reads too: the clock goes on until the last stream ends, so a window
    closes (and is evaluated) after its own stream's end.

    >>> input_end([], {"s": Timeline(0, 3500, (10,))})
    3500
    """
    ends = [t.end for t in timelines.values()]
    ends += [s.end for s in streams if s.end is not None]
    return max(ends, default=0)


def layout(
    query: RspqlQuery,
    semantics: Semantics,
    timelines: Mapping[str, Timeline],
    streams: Sequence[Stream] = (),
    starts: Mapping[str, int] | None = None,
) -> Layout:
    """The t0 classes of each named window, and from when output is compared.

    ``timelines`` are those of the streams with events; ``streams`` (every
    input stream, with ``starts`` their registration starts) set the
    input's end and give a window over a stream without events its windows:
    all empty, so it never triggers an evaluation under non-empty-content,
    and contributes an empty graph.
    """
    specs = window_specs(query, semantics)
    end = input_end(streams, timelines)
    timelines = {**_silent(streams, starts or {}, end), **timelines}
    timelines = coarse(timelines, semantics.time_unit)
    for name, (stream, _) in specs.items():
        if stream not in timelines:
            raise OracleError(f"window <{name}> reads stream <{stream}>, which has no events")
        if semantics.t0 == "first-event" and not timelines[stream].times:
            raise OracleError(
                f"window <{name}> reads stream <{stream}>, which has no events, and "
                "the profile's t0 is first-event: the window never starts."
            )
    _check_times(timelines)
    candidates = tuple(
        tuple(_candidates(spec, timelines[stream], semantics)) for stream, spec in specs.values()
    )
    unit = semantics.time_unit  # candidates start at the start on the engine's clock
    starts_ = tuple(timelines[s].start - timelines[s].start % unit for s, _ in specs.values())
    stable_from = max(timelines[s].start + spec.slide - 1 for s, spec in specs.values())
    if semantics.t0 != "any":
        stable_from = min(first for first, _ in candidates[0])
    event_times = {s: t.times for s, t in timelines.items()}
    transient = _transient(specs, semantics, starts_, stable_from, event_times)
    return Layout(specs, candidates, starts_, stable_from, end, event_times, transient)


def _silent(streams: Sequence[Stream], starts: Mapping[str, int], end: int) -> dict[str, Timeline]:
    """A timeline without times for each stream: the streams with events
    replace theirs."""
    return {
        s.iri: Timeline(starts.get(s.iri, 0), s.end if s.end is not None else end, ())
        for s in streams
    }


def plan_classes(lay: Layout, semantics: Semantics, narrowed: Narrowed | None = None) -> Planned:
    """The evaluation plan of each class to compute (all, or those chosen)."""
    per_window = [
        [candidates[k] for k in chosen]
        for candidates, chosen in zip(
            lay.candidates,
            narrowed.chosen if narrowed else [range(len(c)) for c in lay.candidates],
            strict=True,
        )
    ]
    _check_count(per_window, len(lay.specs), narrowed)
    plans = [
        _class_plan(lay.specs, combo, semantics, lay.end, lay.event_times)
        for combo in itertools.product(*per_window)
    ]
    return Planned(lay.specs, plans, lay.stable_from, narrowed)


def _transient(
    specs: Specs,
    semantics: Semantics,
    starts: tuple[int, ...],
    stable_from: int,
    event_times: Mapping[str, tuple[int, ...]],
) -> int:
    """At most how many evaluations any class has before ``t_s``."""
    policy = ev.base_policy(semantics)
    if policy == "window-close":
        return sum(
            max(0, (stable_from - a - spec.width) // spec.slide + 1)
            for (_, spec), a in zip(specs.values(), starts, strict=True)
        )
    if policy == "periodic":
        assert semantics.period is not None
        return max(0, (stable_from - min(starts)) // semantics.period + 1)
    streams = {s for s, _ in specs.values()}
    return len({t for s in streams for t in event_times.get(s, ()) if t < stable_from})


def _check_times(timelines: Mapping[str, Timeline]) -> None:
    for iri, timeline in timelines.items():
        extremes = (timeline.start, timeline.end, *timeline.times[:1], *timeline.times[-1:])
        if any(abs(t) >= EXACT_TIMES for t in extremes):
            raise OracleError(
                f"stream <{iri}> has times from {min(extremes)} to {max(extremes)} ms; "
                f"the oracle computes windows exactly for times within +-2^53 ms "
                "(about 285,000 years around 1970).\nHINT: check the stream's "
                "timestamps and its start and end (integers are milliseconds)."
            )


def window_specs(query: RspqlQuery, semantics: Semantics) -> Specs:
    """Each named window's stream and spec, in the profile's bounds convention."""
    bounds = Bounds(semantics.bounds)
    return {w.name: (w.stream, WindowSpec(w.width, w.slide, bounds)) for w in query.windows}


def _check_count(
    per_window: Sequence[Sequence[tuple[int, int]]],
    windows: int,
    narrowed: Narrowed | None = None,
) -> None:
    total = math.prod(len(c) for c in per_window)
    if total <= MAX_CLASSES:
        return
    why = (
        f" (of {narrowed.total:,}; {narrowed.reason})"
        if narrowed is not None
        else " (no engine output to narrow them by its content)"
    )
    raise OracleError(
        f"{total:,} t0 classes to compute over {windows} window(s){why}; "
        f"the limit is {MAX_CLASSES:,}.\nHINT: fix t0 in the engine profile "
        "(semantics.t0) if the engine's start is known."
    )


def _class_plan(
    specs: Specs,
    combo: tuple[tuple[int, int], ...],
    semantics: Semantics,
    end: int,
    event_times: Mapping[str, tuple[int, ...]],
) -> ClassPlan:
    windows = tuple(
        ev.NamedWindow(name, stream, spec, first)
        for (name, (stream, spec)), (first, _) in zip(specs.items(), combo, strict=True)
    )
    evaluations = tuple(ev.plan(windows, semantics, end, event_times))
    return ClassPlan(tuple(c[0] for c in combo), tuple(c[1] for c in combo), windows, evaluations)


def coarse(timelines: Mapping[str, Timeline], unit: int) -> Mapping[str, Timeline]:
    """The timelines as an engine with a ``unit`` ms clock sees them: each
    event time truncated to a multiple of the unit (CSRBench Table 1)."""
    if unit <= 1:
        return timelines
    return {iri: _coarse(t, unit) for iri, t in timelines.items()}


def _coarse(timeline: Timeline, unit: int) -> Timeline:
    """One timeline on a ``unit`` ms clock: the triple counts of the times
    one unit holds are added up (they are one instant to the engine)."""
    # Events are listed on the true times (count windows read them there).
    timeline = replace(timeline, events=None, event_sizes=None)
    if timeline.sizes is None:
        return replace(timeline, times=tuple(sorted({x - x % unit for x in timeline.times})))
    merged: dict[int, int] = {}
    for x, n in zip(timeline.times, timeline.sizes, strict=True):
        merged[x - x % unit] = merged.get(x - x % unit, 0) + n
    times = tuple(sorted(merged))
    return replace(timeline, times=times, sizes=tuple(merged[x] for x in times))


def _candidates(
    spec: WindowSpec, timeline: Timeline, semantics: Semantics
) -> list[tuple[int, int]]:
    """The t0 classes of one window as ``(first, last)`` candidate starts.

    An engine with a coarser clock (``time_unit``) starts its windows at a
    multiple of its unit: its t0 is truncated like its event times.
    """
    unit = semantics.time_unit

    def fixed(t0: int) -> list[tuple[int, int]]:
        t0 -= t0 % unit
        return [(t0, t0)]

    if semantics.t0 == "registration":
        return fixed(timeline.start)
    if semantics.t0 == "first-event":
        return fixed(timeline.times[0])
    if isinstance(semantics.t0, int):
        return fixed(semantics.t0)
    if semantics.t0 == "aligned":
        return fixed(spec.aligned_t0(timeline.start))
    start = timeline.start - timeline.start % unit
    # The engine's t0 is a time in [a, a + slide) read on its clock: the
    # last of them may truncate to a slide or more after the first (a = 1,
    # unit 2, slide 2: t0 is 0 or 2, whose windows differ in the first).
    last = timeline.start + spec.slide - 1
    last -= last % unit
    out = []
    for base in range(start, last + 1, spec.slide):  # once, or twice
        for first, nxt in spec.t0_classes(timeline.times, base):
            lo, hi = first + (-first) % unit, min(nxt - 1, last)
            hi -= hi % unit
            if lo <= hi:
                out.append((lo, hi))
    return out
