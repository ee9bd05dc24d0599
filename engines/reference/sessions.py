"""The reference engine's session windows: runs of events closer than a gap.

Its own arithmetic, independent of ``pytest_rspbench.rsp.sessions`` on
purpose (docs/count-and-session-windows.md). Gap 3, events at 1, 2, 5::

    time         1  2  3  4  5
    split (< 3)  [1--2]     [5      the session {1, 2} closes at 5, before
                                    the event at 5 (which starts the next)
    merge (<= 3) [1--2-------5      one session so far; it closes after 8
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from .counting import Shown


class SessionOperator:
    """A ``[SESSION gap]`` window over one stream; events come in time order."""

    kind = "session"

    def __init__(self, name: str, stream: str, gap: int, *, rule: str, bounds: str) -> None:
        self.name, self.stream, self.gap = name, stream, gap
        self._merge = rule == "merge"
        self._extended = bounds == "[first,last+gap)"
        self._first: int | None = None
        self._last = 0
        self._content: set[ox.Quad] = set()

    def joins(self, time: int) -> bool:
        """Would an event at ``time`` join the open session?"""
        if self._first is None:
            return False
        return time - self._last <= self.gap if self._merge else time - self._last < self.gap

    def closes_at(self) -> tuple[int, int] | None:
        """``(time, phase)`` of the open session's close: ``last + gap``,
        before the events at that time (phase 0, split) or after them
        (phase 2, merge); None when no session is open."""
        if self._first is None:
            return None
        return self._last + self.gap, 2 if self._merge else 0

    def arrive(self, time: int, quads: Iterable[ox.Quad] = ()) -> None:
        """An event at ``time``: it joins the open session or starts one (a
        session it does not join is over, closed or not)."""
        if not self.joins(time):
            self._first, self._content = time, set()
        self._last = time
        self._content.update(quads)

    def add(self, quads: Iterable[ox.Quad]) -> bool:
        """More triples of the event just arrived; did they change the session?"""
        before = len(self._content)
        self._content.update(quads)
        return len(self._content) > before

    def close(self) -> Shown:
        """End the open session; its content and reported window."""
        shown = self.shown()
        self._first, self._content = None, set()
        return shown

    def present(self, time: int) -> Shown:
        """The open session as seen at ``time`` (empty once the gap has passed)."""
        if self.joins(time):
            return self.shown()
        return set(), None

    def shown(self) -> Shown:
        """The open session's content and the window it reports."""
        if self._first is None:
            return set(), None
        end = self._last + self.gap if self._extended else self._last
        return set(self._content), (self._first, end)
