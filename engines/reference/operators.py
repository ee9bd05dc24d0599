"""Window operators of a query that mixes window kinds, and how to build them.

Each named window becomes one operator that the policies of :mod:`.mixed`
drive: :class:`TimeOperator` (time-based, RSP-QL Def. 13, on
:class:`~.sliding.Sliding` and :class:`~.buffer.WindowBuffer`),
:class:`~.counting.CountOperator` and :class:`~.sessions.SessionOperator`.
Operators that close at a time (time windows, sessions) say when with
``closes_at() -> (time, phase)``: phase 0 closes before the events at that
time, phase 2 after them; count windows slide at arrivals (phase 1), so
evaluations at one time are ordered (docs/count-and-session-windows.md)::

    time        4                     4                      4
    phase 0     [0,4) closes          split session closes
    phase 1                           the event at 4 arrives: count slides
    phase 2     (0,4] closes          merge session closes
"""

from __future__ import annotations

from collections.abc import Sequence

import pyoxigraph as ox

from pytest_rspbench.engine.api import Semantics

from .buffer import WindowBuffer
from .counting import CountOperator, Shown
from .query import CountDecl, Decl, SessionDecl, WindowDecl
from .sessions import SessionOperator
from .sliding import Sliding


class TimeOperator:
    """A time-based sliding window whose windows close one after another."""

    kind = "time"

    def __init__(self, decl: WindowDecl, bounds: str) -> None:
        self.name, self.stream = decl.name, decl.stream
        self._decl, self._bounds = decl, bounds
        self.buffer = WindowBuffer()
        self.sliding: Sliding | None = None
        self.next = 0

    def start(self, t0: int) -> None:
        """Fix ``t0``: window 0 opens there."""
        self.sliding = Sliding(self._decl.width, self._decl.slide, t0, self._bounds)

    def closes_at(self) -> tuple[int, int] | None:
        """``(c, phase)`` of the next window to close: ``[o,c)`` closes before
        the events at ``c`` (it does not hold them), the others after them.
        None before ``t0`` is fixed (no window yet)."""
        window = self.sliding
        if window is None:
            return None
        return window.closing(self.next), 0 if window.open_end else 2

    def close(self) -> Shown:
        """Close the next window; its content and ``(o, c)``."""
        window, i = self._sliding(), self.next
        content = self.buffer.content(*window.inside(i))
        self.next += 1
        self.buffer.purge(window.inside(self.next)[0])
        return content, (window.opening(i), window.closing(i))

    def skip_empty(self, last_due: int) -> None:
        """After an empty window: step over the empty ones that close by
        ``last_due`` (non-empty-content evaluates none of them)."""
        window = self._sliding()
        time = self.buffer.earliest(window.inside(self.next)[0])
        target = window.first_closing_from(last_due + 1)
        if time is not None:
            target = min(target, window.first_holding_from(time))
        self.next = max(self.next, target)

    def add(self, time: int, quads: tuple[ox.Quad, ...]) -> None:
        """An event's triples (in time order)."""
        self.buffer.append(time, quads)

    def holds_now(self, time: int) -> bool:
        """Is ``time`` inside the present window (so an arrival changes it)?"""
        window = self.sliding
        if window is None:
            return False
        i = window.present(time)
        return i is not None and window.contains(i, time)

    def present(self, time: int) -> Shown:
        """The present window (RSP-QL: most recently opened) cut at ``time``;
        nothing in a gap between windows (width < slide), where it has closed."""
        window = self.sliding
        i = None if window is None else window.present(time)
        if window is None or i is None or not window.contains(i, time):
            return set(), None
        first, last = window.inside(i)
        return self.buffer.content(first, min(last, time)), (window.opening(i), window.closing(i))

    def purge_before_present(self, time: int) -> None:
        """Forget what no present or later window holds."""
        window = self.sliding
        if window is None:
            return
        i = window.present(time)
        if i is not None:
            self.buffer.purge(window.inside(i)[0])

    def _sliding(self) -> Sliding:
        if self.sliding is None:
            raise RuntimeError("the time window has no t0 yet")
        return self.sliding


AnyOperator = TimeOperator | CountOperator | SessionOperator


def build(decls: Sequence[Decl], semantics: Semantics) -> list[AnyOperator]:
    """One operator per named window, configured by the profile."""
    out: list[AnyOperator] = []
    for decl in decls:
        if isinstance(decl, WindowDecl):
            out.append(TimeOperator(decl, str(semantics.bounds)))
        elif isinstance(decl, CountDecl):
            out.append(
                CountOperator(
                    decl,
                    tick=str(semantics.count_tick),
                    rampup=str(semantics.count_rampup),
                    bounds=str(semantics.count_bounds),
                )
            )
        elif isinstance(decl, SessionDecl):
            out.append(
                SessionOperator(
                    decl.name,
                    decl.stream,
                    decl.gap,
                    rule=str(semantics.session_gap),
                    bounds=str(semantics.session_bounds),
                )
            )
    return out
