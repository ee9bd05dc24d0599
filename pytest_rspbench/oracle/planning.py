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
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle import evaluations as ev
from pytest_rspbench.oracle.narrowing import Narrowed, Reported, narrow
from pytest_rspbench.rsp.rspql import RspqlQuery
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.windows import Bounds, WindowSpec

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


def plan(
    query: RspqlQuery,
    semantics: Semantics,
    timelines: Mapping[str, Timeline],
    reported: Reported | None,
) -> Planned:
    """Plan every t0 class of the query's windows over these timelines.

    ``reported``: the engine's reported times and windows, which narrow a
    large number of classes to those that can explain them.
    """
    specs = window_specs(query, semantics)
    for name, (stream, _) in specs.items():
        if stream not in timelines:
            raise OracleError(f"window <{name}> reads stream <{stream}>, which has no events")
    _check_times(timelines)
    end = max(timelines[s].end for s, _ in specs.values())
    plans = _plans(query, specs, timelines, semantics, end)
    stable_from = max(timelines[s].start + spec.slide - 1 for s, spec in specs.values())
    if semantics.t0 != "any":
        stable_from = min(p.first[0] for p in plans)
    narrowed = None if reported is None else narrow(plans, reported, stable_from)
    if narrowed is not None:
        plans = [plans[k] for k in narrowed.chosen]
    return Planned(specs, plans, stable_from, narrowed)


def _check_times(timelines: Mapping[str, Timeline]) -> None:
    for iri, timeline in timelines.items():
        extremes = (timeline.start, timeline.end, timeline.times[0], timeline.times[-1])
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


def _plans(
    query: RspqlQuery,
    specs: Specs,
    timelines: Mapping[str, Timeline],
    semantics: Semantics,
    end: int,
) -> list[ClassPlan]:
    """The t0 classes (RSP-QL Theorem 1; product over windows) and their plans."""
    per_window = [
        _candidates(spec, timelines[stream], semantics) for stream, spec in specs.values()
    ]
    _check_count(per_window, len(specs))
    event_times = {s: t.times for s, t in timelines.items()}
    return [
        _class_plan(specs, combo, semantics, end, event_times)
        for combo in itertools.product(*per_window)
    ]


def _check_count(per_window: list[list[tuple[int, int]]], windows: int) -> None:
    total = 1
    for candidates in per_window:
        total *= len(candidates)
    if total > MAX_CLASSES:
        raise OracleError(
            f"{total} t0 classes to compute (over {windows} windows); "
            f"the limit is {MAX_CLASSES}.\nHINT: fix t0 in the engine profile "
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


def _candidates(
    spec: WindowSpec, timeline: Timeline, semantics: Semantics
) -> list[tuple[int, int]]:
    """The t0 classes of one window as ``(first, last)`` candidate starts."""
    if semantics.t0 == "registration":
        return [(timeline.start, timeline.start)]
    if semantics.t0 == "first-event":
        return [(timeline.times[0], timeline.times[0])]
    if isinstance(semantics.t0, int):
        return [(semantics.t0, semantics.t0)]
    if semantics.t0 == "aligned":
        t0 = spec.aligned_t0(timeline.start)
        return [(t0, t0)]
    classes = spec.t0_classes(timeline.times, timeline.start)
    return [(first, nxt - 1) for first, nxt in classes]
