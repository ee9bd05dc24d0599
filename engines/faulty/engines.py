"""Deliberately wrong engines: the reference engine with one classic bug each.

Each declares the reference engine's profile (its engine.yaml has the same
``semantics``), so the bug must be *caught* by the conformance suite, not
excused by a profile. The bugs are the ones the papers found in real engines:

=====================  =====================================================
engine                 bug (where it was seen)
=====================  =====================================================
``NoPurge``            expired triples stay in the window (CQELS, CSRBench §6
                       on Q6/Q7; YABench §6)
``DelayedWindows``     under load its windows drift later by the backlog
                       (C-SPARQL, YABench §6)
``NullAvg``            an AVG over no values is left unbound (null) instead
                       of 0 (SPARQLstream on Q4, CSRBench §6)
``WrongBounds``        runs ``(o,c]`` where it declares ``[o,c)`` and the
                       reverse (the conventions of RSP-QL / CSRBench / YABench)
``MissesLast``         never reports the window(s) that close at the end
``Duplicates``         streams every relation out twice
``DropsUnderLoad``     drops the relations it computes while loaded
``IgnoresLateness``    declares a lateness but processes events as they
                       arrive (late ones land in the wrong windows or none)
``CountsTriples``      counts triples where ``[ROWS n]`` asks for events
                       (the C-SPARQL/CQELS unit where RSP4J's is meant)
``CountOffByOne``      a count window keeps ``n + 1`` elements
``SessionMerge``       merges two events exactly one gap apart where its
                       profile says ``session_gap: split`` (Flink's rule)
=====================  =====================================================

The load-dependent ones use :class:`~.load.Backlog` (application-time load,
reproducible): below ``CAPACITY`` triples per second they are correct.
"""

from __future__ import annotations

import re
import types
from dataclasses import replace

from rspbench_engines.reference.counting import CountOperator
from rspbench_engines.reference.engine import ReferenceEngine

from pytest_rspbench.engine.api import Emit, Registration, Result
from pytest_rspbench.stream.model import Event

from .load import Backlog

CAPACITY = 300  # triples per second of application time before "load" begins
BACKLOG_CAP = 10_000  # ms: a bounded input queue
EMPTY_AVG = '"0"^^<http://www.w3.org/2001/XMLSchema#integer>'  # SPARQL 1.1 §18.5.1.6
_AVG_AS = re.compile(r"\(\s*AVG\s*\((?:[^()]|\([^()]*\))*\)\s+AS\s+\?(\w+)\s*\)", re.I)
_SWAPPED = {"[o,c)": "(o,c]", "(o,c]": "[o,c)", "[o,c]": "[o,c)"}
_ROWS = re.compile(r"\[\s*(?:ROWS|ELEMENTS)\b", re.I)
_BEFORE_ALL = -(2**62)


class NoPurge(ReferenceEngine):
    """Never drops expired triples: a window holds everything since ``t0``."""

    name = "faulty-no-purge"

    def open(self, registration: Registration, emit: Emit) -> None:
        super().open(registration, emit)
        policy = self._policy
        assert policy is not None

        def content(self, k, i, upto=None):
            if i is None or i < 0:
                return set()
            last = self._slidings[k].inside(i)[1]
            last = last if upto is None else min(last, upto)
            return self._buffers[k].content(_BEFORE_ALL, last)

        policy._content = types.MethodType(content, policy)
        policy._purge = lambda keep: None


class DelayedWindows(ReferenceEngine):
    """Under load, sees each event as late as its backlog: windows drift."""

    name = "faulty-delayed-windows"
    capacity = CAPACITY

    def open(self, registration: Registration, emit: Emit) -> None:
        self._backlog = Backlog(self.capacity, BACKLOG_CAP)
        super().open(registration, emit)

    def push(self, stream: str, event: Event) -> None:
        # t + backlog never decreases: the backlog shrinks at most by the gap.
        delay = self._backlog.arrive(event.time, len(event.triples))
        super().push(stream, replace(event, time=event.time + delay))

    def end(self, end_time: int) -> None:
        super().end(end_time + self._backlog.ms)


class NullAvg(ReferenceEngine):
    """Leaves ``?x`` unbound where ``(AVG(...) AS ?x)`` averages no values."""

    name = "faulty-null-avg"

    def open(self, registration: Registration, emit: Emit) -> None:
        averages = set(_AVG_AS.findall(registration.query))

        def nulling(result: Result) -> None:
            bindings = tuple(
                {v: t for v, t in b.items() if not (v in averages and t == EMPTY_AVG)}
                for b in result.bindings
            )
            emit(replace(result, bindings=bindings))

        super().open(registration, nulling)


class WrongBounds(ReferenceEngine):
    """Declares one bounds convention and runs another."""

    name = "faulty-wrong-bounds"

    def open(self, registration: Registration, emit: Emit) -> None:
        semantics = registration.semantics
        wrong = replace(semantics, bounds=_SWAPPED[semantics.bounds])
        super().open(replace(registration, semantics=wrong), emit)


class MissesLast(ReferenceEngine):
    """Drops the last window reported when the input ends."""

    name = "faulty-misses-last"

    def open(self, registration: Registration, emit: Emit) -> None:
        self._held: list[Result] | None = None

        def gated(result: Result) -> None:
            if self._held is None:
                emit(result)
            else:
                self._held.append(result)

        self._emit_through = emit
        super().open(registration, gated)

    def end(self, end_time: int) -> None:
        self._held = []
        super().end(end_time)
        held, self._held = self._held, None
        last = (held[-1].time, held[-1].window) if held else None
        for result in held:
            if (result.time, result.window) != last:
                self._emit_through(result)


class Duplicates(ReferenceEngine):
    """Streams every relation out twice."""

    name = "faulty-duplicates"

    def open(self, registration: Registration, emit: Emit) -> None:
        def twice(result: Result) -> None:
            emit(result)
            emit(result)

        super().open(registration, twice)


class IgnoresLateness(ReferenceEngine):
    """Accepts any lateness a spec pins, then processes events as they arrive."""

    name = "faulty-ignores-lateness"

    def open(self, registration: Registration, emit: Emit) -> None:
        super().open(registration, emit)
        self._reorder = None


class DropsUnderLoad(ReferenceEngine):
    """Drops every relation computed while its input backlog is not empty."""

    name = "faulty-drops-under-load"
    capacity = CAPACITY

    def open(self, registration: Registration, emit: Emit) -> None:
        self._backlog = Backlog(self.capacity, BACKLOG_CAP)

        def shedding(result: Result) -> None:
            if self._backlog.ms == 0:
                emit(result)

        super().open(registration, shedding)

    def push(self, stream: str, event: Event) -> None:
        # Windows this event closes are computed with the backlog left now.
        self._backlog.drain(event.time)
        super().push(stream, event)
        self._backlog.arrive(event.time, len(event.triples))

    def end(self, end_time: int) -> None:
        self._backlog.drain(end_time)
        super().end(end_time)


class CountsTriples(ReferenceEngine):
    """Counts triples where ``[ROWS n]`` (or ``[ELEMENTS n]``) counts events."""

    name = "faulty-count-triples"

    def open(self, registration: Registration, emit: Emit) -> None:
        query = _ROWS.sub("[TRIPLES", registration.query)
        super().open(replace(registration, query=query), emit)


class CountOffByOne(ReferenceEngine):
    """Keeps ``n + 1`` elements in every count window (slides as often as ``n``)."""

    name = "faulty-count-off-by-one"

    def open(self, registration: Registration, emit: Emit) -> None:
        super().open(registration, emit)
        for operator in getattr(self._policy, "operators", ()):
            if isinstance(operator, CountOperator):
                operator.keep = operator.size + 1


class SessionMerge(ReferenceEngine):
    """Merges events exactly one gap apart although the profile says split."""

    name = "faulty-session-merge"

    def open(self, registration: Registration, emit: Emit) -> None:
        semantics = registration.semantics
        if semantics.session_gap == "split":
            semantics = replace(semantics, session_gap="merge")
        super().open(replace(registration, semantics=semantics), emit)
