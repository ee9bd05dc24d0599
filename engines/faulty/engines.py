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
``ReReports``          fires a window at its close without waiting for the
                       declared lateness, then again for a late event
                       (Flink's late firings)
``EarlyFiring``        fires each window half a slide before it closes
``BacklogLag``         evaluates each window long after it closes, over
                       everything it holds by then (a queue that never drains)
``DropsLate``          declares a lateness, drops every late event
``NewestOnly``         when one event closes several windows, evaluates only
                       the newest
``CanonicalLiterals``  writes numeric literals in their canonical form
=====================  =====================================================

The load-dependent ones use :class:`~.load.Backlog` (application-time load,
reproducible): below ``CAPACITY`` triples per second they are correct.
"""

from __future__ import annotations

import bisect
import math
import re
import types
from collections import deque
from dataclasses import replace
from decimal import Decimal

from rspbench_engines.reference.counting import CountOperator
from rspbench_engines.reference.engine import ReferenceEngine
from rspbench_engines.reference.policy import WindowClose
from rspbench_engines.reference.reorder import Reorder
from rspbench_engines.reference.sliding import BOUNDS

from pytest_rspbench.engine.api import Emit, Registration, Result
from pytest_rspbench.rsp.terms import XSD, literal_parts, numeric_value
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


class ReReports(ReferenceEngine):
    """Fires each window when it closes, without waiting for the lateness its
    profile declares, then fires it again when a late event adds to it."""

    name = "faulty-re-reports"

    def open(self, registration: Registration, emit: Emit) -> None:
        super().open(registration, emit)
        self._reorder = None
        self._newest: int | None = None
        if isinstance(self._policy, WindowClose):
            self._policy._purge = lambda keep: None  # a window may be evaluated again

    def push(self, stream: str, event: Event) -> None:
        policy = self._policy
        if (
            not isinstance(policy, WindowClose)
            or self._newest is None
            or event.time >= self._newest
        ):
            self._newest = event.time if self._newest is None else max(self._newest, event.time)
            super().push(stream, event)
            return
        for k in policy._readers(stream.strip("<>")):
            quads = policy._parse(k, event.triples)
            buffer = policy._buffers[k]
            if set(quads) <= buffer.content(event.time, event.time):
                continue  # a repeat changes nothing
            events = list(buffer._events)
            bisect.insort(events, (event.time, quads), key=lambda e: e[0])
            buffer._events = deque(events)
            window = policy._slidings[k]
            closed = range(window.first_holding_from(event.time), policy._next[k]) if window else ()
            for i in (i for i in closed if window is not None and window.contains(i, event.time)):
                latest = [i if j == k else n - 1 for j, n in enumerate(policy._next)]
                contents = {
                    d.name: policy._content(j, latest[j]) for j, d in enumerate(policy._decls)
                }
                policy._evaluate(self._newest, k, i, contents)


class EarlyFiring(ReferenceEngine):
    """Fires each window half a slide before it closes, over what it holds by
    then, stamped with that time."""

    name = "faulty-early-firing"

    def open(self, registration: Registration, emit: Emit) -> None:
        self._now: int | None = None

        def stamped(result: Result) -> None:
            now = self._now
            if now is not None and result.time is not None and now < result.time:
                result = replace(result, time=now)
            emit(result)

        super().open(registration, stamped)

    def push(self, stream: str, event: Event) -> None:
        policy = self._policy
        if isinstance(policy, WindowClose) and self._reorder is None:
            early = min(d.slide for d in policy._decls) // 2
            self._now = event.time
            policy._close_through(event.time - 1 + BOUNDS[policy._bounds][1] + early)
            self._now = None
        super().push(stream, event)


class BacklogLag(ReferenceEngine):
    """Evaluates each window a fixed lag after it closes (the lateness and two
    slides: its work queue never drains), over everything it holds by then."""

    name = "faulty-backlog"

    def open(self, registration: Registration, emit: Emit) -> None:
        self._now: int | None = None

        def stamped(result: Result) -> None:
            emit(result if self._now is None else replace(result, time=self._now))

        super().open(registration, stamped)
        policy = self._policy
        if not isinstance(policy, WindowClose) or self._reorder is not None:
            return
        lag = registration.semantics.lateness + 2 * min(d.slide for d in policy._decls)
        close_through = policy._close_through

        def lagging(limit: int) -> None:
            close_through(limit if self._now is None else limit - lag)

        def content(self_: WindowClose, k: int, i: int | None, upto: int | None = None) -> set:
            window = self_._slidings[k]
            if i is None or i < 0 or window is None:
                return set()
            last = window.inside(i)[1] if self._now is None else self._now - 1
            return self_._buffers[k].content(window.inside(i)[0], last)

        policy._close_through = lagging  # type: ignore[method-assign]
        policy._content = types.MethodType(content, policy)  # type: ignore[method-assign]

    def push(self, stream: str, event: Event) -> None:
        self._now = event.time
        super().push(stream, event)
        self._now = None


class DropsLate(ReferenceEngine):
    """Declares the lateness a spec pins, then drops every event that arrives
    after a later one (as with no lateness at all)."""

    name = "faulty-drops-late"

    def open(self, registration: Registration, emit: Emit) -> None:
        super().open(registration, emit)
        if self._reorder is not None:
            self._reorder = Reorder(0)


class NewestOnly(ReferenceEngine):
    """When one event closes several windows, evaluates only the newest."""

    name = "faulty-newest-only"

    def open(self, registration: Registration, emit: Emit) -> None:
        super().open(registration, emit)
        policy = self._policy
        if isinstance(policy, WindowClose):
            policy._close_through = types.MethodType(_newest_only, policy)  # type: ignore[method-assign]


def _newest_only(policy: WindowClose, limit: int) -> None:
    """``WindowClose._close_through`` that evaluates the last close only."""
    last = None
    while True:
        if policy._non_empty:
            policy._skip_empty(limit)
        closings = [
            None if w is None else w.closing(i)
            for w, i in zip(policy._slidings, policy._next, strict=True)
        ]
        close = min((c for c in closings if c is not None), default=None)
        if close is None or close > limit:
            break
        fired = [k for k, c in enumerate(closings) if c == close]
        for k in fired:
            policy._next[k] += 1
        last = (close, fired)
    if last is not None:
        policy._close(*last)


class CanonicalLiterals(ReferenceEngine):
    """Writes every numeric literal of its answers in the XSD canonical form
    of its datatype (``"86.0"^^xsd:float`` as ``"8.6E1"``)."""

    name = "faulty-canonical-literals"

    def open(self, registration: Registration, emit: Emit) -> None:
        def rewritten(result: Result) -> None:
            bindings = tuple({v: canonical(t) for v, t in b.items()} for b in result.bindings)
            emit(replace(result, bindings=bindings))

        super().open(registration, rewritten)


def canonical(term: str) -> str:
    """A numeric literal in its datatype's XSD canonical lexical form.

    >>> canonical('"86.0"^^<http://www.w3.org/2001/XMLSchema#float>')
    '"8.6E1"^^<http://www.w3.org/2001/XMLSchema#float>'
    >>> canonical('"+08"^^<http://www.w3.org/2001/XMLSchema#integer>')
    '"8"^^<http://www.w3.org/2001/XMLSchema#integer>'
    >>> canonical('"2.50"^^<http://www.w3.org/2001/XMLSchema#decimal>')
    '"2.5"^^<http://www.w3.org/2001/XMLSchema#decimal>'
    """
    parts = literal_parts(term)
    value = numeric_value(term)
    if parts is None or parts[1] is None or value is None:
        return term
    datatype = parts[1]
    if datatype in (XSD + "float", XSD + "double"):
        if not math.isfinite(value):
            return term
        sign, digits, exponent = Decimal(repr(float(value))).normalize().as_tuple()
        text = "".join(map(str, digits))
        mantissa = text[0] + "." + (text[1:] or "0")
        lexical = ("-" if sign else "") + f"{mantissa}E{len(digits) - 1 + int(exponent)}"
    elif datatype == XSD + "decimal":
        lexical = format(Decimal(value).normalize(), "f")
        lexical += "" if "." in lexical else ".0"
    elif datatype == XSD + "integer":
        lexical = str(int(value))
    else:
        return term
    return f'"{lexical}"^^<{datatype}>'
