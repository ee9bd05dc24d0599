"""Shrink a failing item's input to a minimal counterexample (``--rspbench-shrink``).

Three steps, each keeping a candidate only when the engine, replayed the
candidate as the item replays its input, still fails the oracle's verdict
with the same departure class (the first one of the item's verdict line):

1. drop events (:func:`~.delta.ddmin` over the events of all streams);
2. drop triples within the events left (``ddmin`` over their triples);
3. shorten the time span: cut the gaps between event times, and to the
   end of the input, by multiples of the windows' slide
   (:func:`~.delta.compress`).

The steps repeat while one of them changed something, within the time
budget. Every candidate is a whole run: a new engine replays it at the
spec's speed (``replay.speed: 0``, the default, sends as fast as the engine
takes it; a real-time spec replays small candidates quickly because they are
short) and the oracle computes its expected output on the session's Spark.
The budget is checked before each run, so a run under way is finished.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.adapters import RecordedAdapter
from pytest_rspbench.report.counterexample import Counterexample, TimedTriple
from pytest_rspbench.report.record import CaseRun
from pytest_rspbench.runner import Prepared, end_time, expect, judge, prepare, replay
from pytest_rspbench.shrink.delta import compress, ddmin
from pytest_rspbench.shrink.written import engine_arg, write_spec
from pytest_rspbench.stream.model import Stream, group_events
from pytest_rspbench.verdict.departures import summary

MAX_TRIPLES = 200_000  # the shrinker holds the input in memory
ROUNDS = 3  # the three steps, at most this many times


@dataclass(frozen=True)
class Input:
    """A candidate input: its triples in time order and each stream's end."""

    triples: tuple[TimedTriple, ...]
    ends: tuple[int | None, ...]


class _OutOfTime(Exception):
    """The budget ran out before the next run."""


def shrink(run: CaseRun, target: str, spark: Any, folder: Path, budget: float) -> Counterexample:
    """The smallest input found within ``budget`` seconds that still shows ``target``.

    Writes ``counterexample.rspbench.yaml`` and its stream into ``folder``.
    ``spark`` may be a function returning the session: it is started before
    the budget's clock starts (an item whose oracle output was stored may
    not have needed it yet).
    """
    case, profile = run.case, run.profile
    if isinstance(profile.config, RecordedAdapter):
        return Counterexample(
            target,
            "not-rerunnable",
            f"engine {profile.name!r} gives recorded answers: they do not depend on the "
            "input replayed into it, so no smaller input can be tried; shrink with the "
            "engine that recorded them.",
        )
    spark = spark() if callable(spark) else spark
    began = time.monotonic()
    prepared = prepare(case)
    original = _read(prepared)
    if original is None:
        return Counterexample(
            target,
            "not-shrunk",
            f"the input has more than {MAX_TRIPLES:,} triples; the shrinker holds it in memory.",
        )
    bounds = profile.semantics.bounds
    trial = _Trial(run, prepared, target, spark, began + budget)
    trial.shows = summary([d for d in run.assessment.departures if d.name == target], bounds)
    status = "minimal"
    try:
        _search(trial, original, _step(run))
    except _OutOfTime:
        status = "budget"
    best = trial.best or original
    counted = _size(original)
    note = (
        f"the budget of {budget:g} s ran out in step '{trial.step}'; the smallest input "
        "so far is shown"
        if status == "budget"
        else ""
    )
    if trial.errors:
        note = (note + "; " if note else "") + f"{trial.errors} run(s) failed: {trial.error}"
    headline = f"Shows {trial.shows} ({_size(best)[0]} of {counted[0]} events)."
    spec = write_spec(case, best.triples, best.ends, folder, headline)
    return Counterexample(
        target,
        status,
        note,
        best.triples,
        _end(best),
        counted,
        trial.shows,
        trial.runs,
        time.monotonic() - began,
        spec,
        engine_arg(case),
    )


def _search(trial: _Trial, original: Input, step: int) -> None:
    """The three steps, again while one of them made the input smaller."""
    current = original
    for _ in range(ROUNDS):
        before = current
        trial.step = "events"
        current = _drop_events(trial, current)
        trial.step = "triples"
        current = _drop_triples(trial, current)
        trial.step = "time span"
        current = _compress(trial, current, step)
        if current == before:
            return


def _drop_events(trial: _Trial, current: Input) -> Input:
    events: dict[tuple[str, int], list[TimedTriple]] = {}
    for t in current.triples:
        events.setdefault((t.stream, t.time), []).append(t)
    groups = list(events.values())

    def fails(kept: list[list[TimedTriple]]) -> bool:
        return trial.fails(_with(current, [t for g in kept for t in g]))

    if len(groups) < 2:
        return current
    return _with(current, [t for g in ddmin(groups, fails) for t in g])


def _drop_triples(trial: _Trial, current: Input) -> Input:
    if len(current.triples) == len({(t.stream, t.time) for t in current.triples}):
        return current  # one triple per event: the event step has done this

    def fails(kept: list[TimedTriple]) -> bool:
        return trial.fails(_with(current, kept))

    return _with(current, ddmin(list(current.triples), fails))


def _compress(trial: _Trial, current: Input, step: int) -> Input:
    points = sorted({t.time for t in current.triples} | {e for e in current.ends if e is not None})
    if not points:
        return current
    origin = min(min(trial.prepared.starts.values(), default=0), points[0])

    def moved(mapping: dict[int, int]) -> Input:
        triples = [replace(t, time=mapping[t.time]) for t in current.triples]
        ends = tuple(None if e is None else mapping[e] for e in current.ends)
        return Input(tuple(triples), ends)

    mapping = compress(points, origin, step, lambda m: trial.fails(moved(m)))
    return moved(mapping)


def _with(current: Input, triples: Sequence[TimedTriple]) -> Input:
    return Input(tuple(triples), current.ends)


class _Trial:
    """Runs candidates (each once) and keeps the smallest that fails alike."""

    def __init__(
        self, run: CaseRun, prepared: Prepared, target: str, spark: Any, deadline: float
    ) -> None:
        self.case = replace(run.case, repeat=1)
        self.prepared = prepared
        self.target = target
        self.spark = spark
        self.deadline = deadline
        self.best: Input | None = None
        self.shows = ""
        self.runs = 0
        self.errors = 0
        self.error = ""
        self.step = ""
        self._seen: dict[Input, str | None] = {}  # what each showed of the target

    def fails(self, candidate: Input) -> bool:
        """Whether the engine, replayed ``candidate``, still shows the target."""
        if candidate in self._seen:
            shows = self._seen[candidate]
            if shows is not None:  # kept again: it is the current input once more
                self.best, self.shows = candidate, shows
            return shows is not None
        if time.monotonic() >= self.deadline:
            raise _OutOfTime
        self.runs += 1
        try:
            judged = self._judge(candidate)
        except Exception as exc:  # the oracle refusing a candidate: not the departure
            self.errors += 1
            self.error = self.error or f"{type(exc).__name__}: {exc}"
            judged = None
        shows = None
        if judged is not None and not judged.assessment.passed:
            shown = [d for d in judged.assessment.departures if d.name == self.target]
            if shown:
                shows = summary(shown, judged.profile.semantics.bounds)
        self._seen[candidate] = shows
        if shows is not None:
            self.best, self.shows = candidate, shows
        return shows is not None

    def _judge(self, candidate: Input) -> CaseRun:
        streams = _streams(self.prepared.streams, candidate)
        prepared = replace(self.prepared, streams=streams, end=end_time(streams))
        actual = replay(self.case, prepared, None)
        expected = expect(self.case, prepared, [actual], self.spark)
        return judge(self.case, prepared, [actual], expected, self.spark)


def _streams(streams: Sequence[Stream], candidate: Input) -> list[Stream]:
    out = []
    for stream, end in zip(streams, candidate.ends, strict=True):
        timed = [(t.time, t.triple) for t in candidate.triples if t.stream == stream.iri]
        timed.sort(key=lambda pair: pair[0])
        events = list(group_events(timed))
        out.append(Stream(stream.iri, _reader(events), "a counterexample candidate", end=end))
    return out


def _reader(events: list[Any]) -> Callable[[], Any]:
    return lambda: iter(events)


def _read(prepared: Prepared) -> Input | None:
    """The item's whole input in memory; None when it is too big for that."""
    triples: list[TimedTriple] = []
    for stream in prepared.streams:
        for event in stream.events():
            triples.extend(TimedTriple(stream.iri, event.time, t) for t in event.triples)
            if len(triples) > MAX_TRIPLES:
                return None
    triples.sort(key=lambda t: t.time)  # stable: each stream keeps its order
    return Input(tuple(triples), tuple(s.end for s in prepared.streams))


def _step(run: CaseRun) -> int:
    """The slide every window grid repeats at (and the report period, the
    engine's clock): gaps are cut by multiples of it."""
    semantics = run.profile.semantics
    steps = [w.slide for w in run.case.query.windows]
    steps += [semantics.time_unit] + ([semantics.period] if semantics.period else [])
    return math.lcm(*(s for s in steps if s and s > 0)) if any(steps) else 0


def _size(candidate: Input) -> tuple[int, int]:
    """Events and triples of ``candidate``."""
    events = len({(t.stream, t.time) for t in candidate.triples})
    return events, len(candidate.triples)


def _end(candidate: Input) -> int | None:
    ends = [e for e in candidate.ends if e is not None]
    times = [t.time for t in candidate.triples]
    return max(ends + times) if ends or times else None
