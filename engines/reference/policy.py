"""When the reference engine evaluates: report policies (SECRET; RSP-QL Def. 23).

Two strategies decide the evaluation instants ET:

* :class:`WindowClose` evaluates each time a window of any named window
  closes, at its closing time ``c``; with non-empty-content it skips
  evaluations whose closing windows are all empty.
* :class:`ContentChange` evaluates whenever arriving data changes the
  content of a present window, at the arrival time.

Both keep one :class:`WindowBuffer` per named window and drop the events
that no present or future window can hold.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

import pyoxigraph as ox

from pytest_rspbench.stream.model import Triple

from .buffer import WindowBuffer, parse_quads
from .evaluation import WindowStore
from .output import Reporter
from .query import WindowDecl
from .sliding import BOUNDS, Sliding

Contents = dict[str, set[ox.Quad]]


class Policy(abc.ABC):
    """Shared state: the windows, their buffers, the store and the output."""

    def __init__(
        self,
        windows: Sequence[WindowDecl],
        *,
        bounds: str,
        report: Sequence[str],
        tick: str,
        store: WindowStore,
        reporter: Reporter,
    ) -> None:
        self._decls = tuple(windows)
        self._bounds = bounds
        self._non_empty = "non-empty-content" in report
        self._tick = tick
        self._store = store
        self._reporter = reporter
        self._buffers = [WindowBuffer() for _ in self._decls]
        self._slidings: list[Sliding | None] = [None] * len(self._decls)

    def start(self, t0s: Sequence[int | None]) -> None:
        """Fix the ``t0`` of each named window (RSP-QL Def. 13: each sliding
        window has its own): window 0 of window ``k`` opens at ``t0s[k]``. A
        window whose ``t0`` is None starts at the first event of its stream
        (``t0: first-event``); until then it has no window."""
        self._slidings = [self._sliding(d, t0) for d, t0 in zip(self._decls, t0s, strict=True)]

    def _sliding(self, decl: WindowDecl, t0: int | None) -> Sliding | None:
        return None if t0 is None else Sliding(decl.width, decl.slide, t0, self._bounds)

    def _first_event(self, stream: str, time: int) -> None:
        """Start the windows over ``stream`` that wait for its first event."""
        for k in self._readers(stream):
            if self._slidings[k] is None:
                self._slidings[k] = self._sliding(self._decls[k], time)

    @abc.abstractmethod
    def push(self, stream: str, time: int, triples: tuple[Triple, ...]) -> None:
        """An event of ``stream`` at ``time`` arrived (N-Triples terms)."""

    @abc.abstractmethod
    def end(self, end_time: int) -> None:
        """Application time has reached ``end_time`` and no event will follow."""

    def _content(self, k: int, i: int | None, upto: int | None = None) -> set[ox.Quad]:
        """Content of window ``i`` of named window ``k``, cut at ``upto``."""
        window = self._slidings[k]
        if i is None or i < 0 or window is None:
            return set()
        first, last = window.inside(i)
        if upto is not None:
            last = min(last, upto)
        return self._buffers[k].content(first, last)

    def _evaluate(self, time: int, k: int, i: int, contents: Contents) -> None:
        """Run the query on ``contents`` and report window ``i`` of ``k``."""
        window = self._slidings[k]
        assert window is not None  # only a started window is reported
        answer = self._store.evaluate(contents)
        self._reporter.report(time, (window.opening(i), window.closing(i)), answer)

    def _readers(self, stream: str) -> list[int]:
        """Indexes of the named windows over ``stream``."""
        return [k for k, d in enumerate(self._decls) if d.stream == stream]

    def _parse(self, k: int, triples: tuple[Triple, ...]) -> tuple[ox.Quad, ...]:
        """The triples as quads of named window ``k``'s graph."""
        return parse_quads(triples, self._decls[k].name)

    def _purge(self, keep: Sequence[int | None]) -> None:
        """Drop events before window ``keep[k]`` of every named window ``k``."""
        for buffer, window, i in zip(self._buffers, self._slidings, keep, strict=True):
            if window is not None:
                buffer.purge(window.inside(max(0, i or 0))[0])


class WindowClose(Policy):
    """Window-close (+ optional non-empty-content) with a time-driven tick.

    A window closing at ``c`` is evaluated as soon as time is known to have
    passed its last inside ms (see :meth:`Sliding.complete_through`) or at
    ``end(e)`` when ``c <= e``. With several named windows every close of any
    of them is an evaluation; the query then sees, for each named window, the
    latest window closed by ``c`` (RSP-QL Example 10: at 8, ``W1`` shows
    ``(3,8]``), and the result reports the window whose close triggered it.
    """

    def start(self, t0s: Sequence[int | None]) -> None:
        super().start(t0s)
        self._next = [0] * len(self._decls)

    def push(self, stream: str, time: int, triples: tuple[Triple, ...]) -> None:
        self._first_event(stream, time)
        # An event at ``time`` completes the windows whose last inside ms is
        # before it (Sliding.complete_through): ``c < time``, or ``c <= time``
        # when ``c`` is outside the window.
        self._close_through(time - 1 + BOUNDS[self._bounds][1])
        for k in self._readers(stream):
            self._buffers[k].append(time, self._parse(k, triples))
        self._purge([i - 1 for i in self._next])

    def end(self, end_time: int) -> None:
        self._close_through(end_time)

    def _close_through(self, limit: int) -> None:
        """Evaluate, in time order, every window closing at or before ``limit``."""
        while True:
            if self._non_empty:
                self._skip_empty(limit)
            closings = [
                None if w is None else w.closing(i)
                for w, i in zip(self._slidings, self._next, strict=True)
            ]
            close = min((c for c in closings if c is not None), default=None)
            if close is None or close > limit:
                return
            fired = [k for k, c in enumerate(closings) if c == close]
            for k in fired:
                self._next[k] += 1
            self._close(close, fired)

    def _close(self, close: int, fired: list[int]) -> None:
        """One evaluation at ``close``, triggered by the named windows ``fired``."""
        latest = [i - 1 for i in self._next]
        contents = {d.name: self._content(k, latest[k]) for k, d in enumerate(self._decls)}
        if self._non_empty:
            fired = [k for k in fired if contents[self._decls[k].name]]
            if not fired:
                return
        self._evaluate(close, fired[0], latest[fired[0]], contents)

    def _skip_empty(self, limit: int) -> None:
        """Jump over closes that non-empty-content would skip anyway.

        Every window closing before the first one that can hold a buffered
        event is empty; the complete ones among them (closing at or before
        ``limit``) will never be evaluated, so step past them at once. This
        keeps a long silent gap from costing one loop turn per slide.
        """
        target = limit + 1
        for k, window in enumerate(self._slidings):
            if window is None:
                continue
            first = window.inside(self._next[k])[0]
            time = self._buffers[k].earliest(first)
            if time is not None:
                i = max(self._next[k], window.first_holding_from(time))
                target = min(target, window.closing(i))
        for k, window in enumerate(self._slidings):
            if window is not None:
                self._next[k] = max(self._next[k], window.first_closing_from(target))


class ContentChange(Policy):
    """Content-change: evaluate when arriving data changes a present window.

    The present window of a named window at ``t`` is its most recently
    opened window (RSP-QL Def. 13), holding the data from its opening up to
    ``t``. Its content changes when an event enters it: the window holds
    timestamped triples (RSP-QL Def. 12), so a triple it already holds from
    an earlier time is a change at the new time (the oracle's content-change,
    docs/oracle.md). An arrival whose triples the window already holds at
    that very time (a duplicate), or a time in a gap between hopping windows,
    is no change. The tick sets the grain:
    tuple-driven evaluates after each new triple, graph-driven after each
    event, time-driven once per time instant, when time moves past it.
    """

    _pending: tuple[int, int] | None = None

    def push(self, stream: str, time: int, triples: tuple[Triple, ...]) -> None:
        if self._pending is not None and self._pending[0] < time:
            self._flush()
        self._first_event(stream, time)
        readers = self._readers(stream)
        if readers:
            self._arrive(time, {k: self._parse(k, triples) for k in readers})
        self._purge([self._present(k, time) for k in range(len(self._decls))])

    def end(self, end_time: int) -> None:
        if self._pending is not None and self._pending[0] <= end_time:
            self._flush()

    def _arrive(self, time: int, quads: dict[int, tuple[ox.Quad, ...]]) -> None:
        """Add one event (as quads per reading window), in tick-sized batches;
        a batch that adds a triple at ``time`` to some present window is a
        change (the same triple at an earlier time does not make it one)."""
        present = {k: self._present_holding(k, time) for k in quads}
        before = {k: self._buffers[k].content(time, time) for k in present}
        size = len(next(iter(quads.values())))
        tuple_driven = self._tick == "tuple-driven"
        cuts = [(n, n + 1) for n in range(size)] if tuple_driven else [(0, size)]
        for low, high in cuts:
            changed = []
            for k, event in quads.items():
                batch = event[low:high]
                self._buffers[k].append(time, batch)
                if present[k] is not None and not before[k].issuperset(batch):
                    changed.append(k)
                    before[k].update(batch)
            if changed:
                self._changed(time, changed[0])

    def _changed(self, time: int, k: int) -> None:
        """Window ``k`` changed at ``time``: evaluate now or when ``time`` passes."""
        if self._tick == "time-driven":
            self._pending = self._pending or (time, k)
        else:
            self._evaluate_present(time, k)

    def _present_holding(self, k: int, time: int) -> int | None:
        """The present window of ``k`` at ``time`` if ``time`` is inside it."""
        i = self._present(k, time)
        window = self._slidings[k]
        return i if i is not None and window is not None and window.contains(i, time) else None

    def _present(self, k: int, time: int) -> int | None:
        """The present window of ``k`` at ``time`` (None: none opened yet)."""
        window = self._slidings[k]
        return None if window is None else window.present(time)

    def _flush(self) -> None:
        assert self._pending is not None
        time, k = self._pending
        self._pending = None
        self._evaluate_present(time, k)

    def _evaluate_present(self, time: int, k: int) -> None:
        """Evaluate at ``time`` over every present window; report ``k``'s.

        A named window whose present window has closed by ``time`` (a gap of
        a hopping window, width < slide) shows an empty graph: RSP-QL Def. 13
        defines the content at ``t`` only inside the present window
        (``(o_p, t]`` within ``(o_p, c_p]``), as the oracle reads it.
        """
        present = [self._present_holding(j, time) for j in range(len(self._decls))]
        contents = {
            d.name: self._content(j, present[j], upto=time) for j, d in enumerate(self._decls)
        }
        i = present[k]
        assert i is not None
        self._evaluate(time, k, i, contents)
