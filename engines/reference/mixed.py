"""Report policies for queries with count or session windows (beside time ones).

A query of time windows only keeps :mod:`.policy`. Once a query has a count
or session window, every named window becomes an operator
(:mod:`.operators`) and one of these two policies decides ET
(docs/count-and-session-windows.md, "Several windows in one query"):

* :class:`MixedClose` (window-close, optional non-empty-content): every
  close of a time window or session and every slide of a count window is an
  evaluation, in the order ``(time, phase, arrival)``; closes with the same
  ``(time, phase)`` are one evaluation, slides at the same place of one event
  too. Each named window contributes what it showed last: its latest closed
  window, latest slide, latest closed session.
* :class:`MixedChange` (content-change): an evaluation whenever arriving data
  changes what a window shows now (the present time window, the latest count
  slide, the open session), per triple, event or instant (the ``tick``).

Example, ``[RANGE 4 STEP 4]`` ``[o,c)`` t0 = 0 on A and ``[ROWS 2]`` on B::

    A  a1@0  a2@3  a3@5        B  b1@1  b2@4  b3@7          end 8
    ET 1 rows{b1} | 4 [0,4){a1,a2} | 4 rows{b1,b2} | 7 rows{b2,b3} | 8 [4,8){a3}
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence

import pyoxigraph as ox

from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.stream.model import Triple

from .buffer import parse_quads
from .counting import CountOperator, Shown
from .evaluation import WindowStore
from .operators import AnyOperator, TimeOperator, build
from .output import Reporter
from .query import Decl
from .sessions import SessionOperator

Due = Callable[[tuple[int, int], AnyOperator], bool]
"""Is the close at ``(time, phase)`` of this operator due now?"""
Slides = dict[int, list[tuple[int, Shown]]]
"""Per count window, the slides an event made: (place in the event, what it shows)."""


class MixedPolicy(abc.ABC):
    """Shared state: the operators, what each shows, the store and the output."""

    def __init__(
        self,
        windows: Sequence[Decl],
        *,
        semantics: Semantics,
        store: WindowStore,
        reporter: Reporter,
    ) -> None:
        self.operators: list[AnyOperator] = build(windows, semantics)
        self._non_empty = "non-empty-content" in semantics.report
        self._tick = semantics.tick
        self._store = store
        self._reporter = reporter
        self._shown: list[Shown] = [(set(), None) for _ in self.operators]

    def start(self, t0s: Sequence[int | None]) -> None:
        """Fix the ``t0`` of each time window (count and session windows have
        none); a time window whose ``t0`` is None starts at the first event
        of its stream (``t0: first-event``)."""
        for operator, t0 in zip(self.operators, t0s, strict=True):
            if isinstance(operator, TimeOperator) and t0 is not None:
                operator.start(t0)

    def _first_event(self, stream: str, time: int) -> None:
        """Start the time windows over ``stream`` that wait for its first event."""
        for k in self._readers(stream):
            operator = self.operators[k]
            if isinstance(operator, TimeOperator) and operator.sliding is None:
                operator.start(time)

    @abc.abstractmethod
    def push(self, stream: str, time: int, triples: tuple[Triple, ...]) -> None:
        """An event of ``stream`` at ``time`` arrived (N-Triples terms)."""

    @abc.abstractmethod
    def end(self, end_time: int) -> None:
        """Application time has reached ``end_time`` and no event will follow."""

    def _timed(self) -> list[TimeOperator]:
        return [o for o in self.operators if isinstance(o, TimeOperator)]

    def _readers(self, stream: str) -> list[int]:
        return [k for k, o in enumerate(self.operators) if o.stream == stream]

    def _quads(self, k: int, triples: tuple[Triple, ...]) -> tuple[ox.Quad, ...]:
        return parse_quads(triples, self.operators[k].name)

    def _evaluate(self, time: int, fired: Sequence[int], shown: Sequence[Shown]) -> None:
        """Run the query over what every window shows; report ``fired``'s first
        window (with non-empty-content, skip when every fired one is empty)."""
        if self._non_empty:
            fired = [k for k in fired if shown[k][0]]
            if not fired:
                return
        contents = {o.name: shown[k][0] for k, o in enumerate(self.operators)}
        self._reporter.report(time, shown[fired[0]][1], self._store.evaluate(contents))


class MixedClose(MixedPolicy):
    """Window-close: closes and count slides, in ``(time, phase, arrival)`` order."""

    def push(self, stream: str, time: int, triples: tuple[Triple, ...]) -> None:
        self._first_event(stream, time)
        self._close_due(lambda key, _operator: key < (time, 1), last_due=time - 1)
        slides: list[tuple[int, int, Shown]] = []
        for k in self._readers(stream):
            operator, quads = self.operators[k], self._quads(k, triples)
            if isinstance(operator, CountOperator):
                slides += [(position, k, shown) for position, shown in operator.arrive(time, quads)]
            elif isinstance(operator, SessionOperator):
                operator.arrive(time, quads)
            else:
                operator.add(time, quads)
        slides.sort(key=lambda s: s[0])  # stable: declaration order within a place
        while slides:
            place = slides[0][0]
            fired = [k for position, k, _ in slides if position == place]
            for position, k, shown in slides:
                if position == place:
                    self._shown[k] = shown
            slides = [s for s in slides if s[0] != place]
            self._evaluate(time, fired, self._shown)

    def end(self, end_time: int) -> None:
        # The input is over: time windows closing by the end, every open session.
        def due(key: tuple[int, int], operator: AnyOperator) -> bool:
            return isinstance(operator, SessionOperator) or key[0] <= end_time

        self._close_due(due, last_due=end_time)

    def _close_due(self, due: Due, last_due: int) -> None:
        """Evaluate every due close, earliest ``(time, phase)`` first; closes
        at one ``(time, phase)`` are one evaluation. ``last_due``: time
        windows closing by then are surely due (to step over empty ones)."""
        while True:
            keys = []
            for k, operator in enumerate(self.operators):
                key = None if isinstance(operator, CountOperator) else operator.closes_at()
                if key is not None and due(key, operator):
                    keys.append((key, k))
            if not keys:
                return
            first = min(key for key, _ in keys)
            fired = [k for key, k in keys if key == first]
            for k in fired:
                operator = self.operators[k]
                assert not isinstance(operator, CountOperator)
                self._shown[k] = operator.close()
            self._evaluate(first[0], fired, self._shown)
            for k in fired:
                operator = self.operators[k]
                if isinstance(operator, TimeOperator) and self._non_empty and not self._shown[k][0]:
                    operator.skip_empty(last_due)


class MixedChange(MixedPolicy):
    """Content-change: evaluate when arriving data changes what a window shows."""

    _pending: tuple[int, int] | None = None

    def push(self, stream: str, time: int, triples: tuple[Triple, ...]) -> None:
        if self._pending is not None and self._pending[0] < time:
            self._flush()
        self._first_event(stream, time)
        readers = self._readers(stream)
        quads = {k: self._quads(k, triples) for k in readers}
        slides: Slides = {}
        for k in readers:
            operator = self.operators[k]
            if isinstance(operator, CountOperator):
                slides[k] = operator.arrive(time, quads[k])
            elif isinstance(operator, SessionOperator):
                operator.arrive(time)
        size = len(triples)
        grains = [(n, n + 1) for n in range(size)] if self._tick == "tuple-driven" else []
        for low, high in grains or [(0, size)]:
            changed = [k for k in readers if self._grain(k, time, quads[k][low:high], slides, high)]
            if changed:
                self._changed(time, changed[0])
        for operator in self._timed():
            operator.purge_before_present(time)

    def end(self, end_time: int) -> None:
        if self._pending is not None and self._pending[0] <= end_time:
            self._flush()

    def _grain(
        self, k: int, time: int, batch: tuple[ox.Quad, ...], slides: Slides, high: int
    ) -> bool:
        """Add one tick's worth of the event to window ``k``; did it change?"""
        operator = self.operators[k]
        if isinstance(operator, TimeOperator):
            # A change is a triple new at ``time``: the same triple at an
            # earlier time of the window is still a new timestamped element.
            before = operator.buffer.content(time, time) if operator.holds_now(time) else None
            operator.add(time, batch)
            return before is not None and not before.issuperset(batch)
        if isinstance(operator, SessionOperator):
            return operator.add(batch)
        before = self._shown[k][0]
        for position, shown in slides[k]:
            if high - len(batch) < position <= high or position == high == 0:
                self._shown[k] = shown
        return self._shown[k][0] != before

    def _changed(self, time: int, k: int) -> None:
        if self._tick == "time-driven":
            self._pending = self._pending or (time, k)
        else:
            self._evaluate_now(time, k)

    def _flush(self) -> None:
        assert self._pending is not None
        time, k = self._pending
        self._pending = None
        self._evaluate_now(time, k)

    def _evaluate_now(self, time: int, k: int) -> None:
        """Evaluate at ``time`` over what every window shows now; report ``k``'s."""
        shown = [self._now(j, time) for j in range(len(self.operators))]
        self._evaluate(time, [k], shown)

    def _now(self, k: int, time: int) -> Shown:
        operator = self.operators[k]
        if isinstance(operator, CountOperator):
            return self._shown[k]
        return operator.present(time)
