"""Window arithmetic: the only place that knows where windows start and end.

A time-based sliding window (RSP-QL Def. 12-13) has width ``alpha``, slide
``beta`` and start ``t0``; window ``i`` spans ``o_i = t0 + i*beta`` to
``c_i = o_i + alpha``. Engines disagree on which ends are inside, so the
*bounds convention* is part of an engine's semantics. Time is integer
milliseconds, so an open end is the closed end moved by one unit.

Example: width 5, slide 2, t0 = 1 (RSP-QL Example 7)::

    time     0   1   2   3   4   5   6   7   8   9  10
    W0 (1,6]     (-------------------]
    W1 (3,8]             (-------------------]
    W2 (5,10]                    (-------------------]

    "(o,c]"  RSP-QL:          o < t <= c   an event at 6 is in W0, not at 1
    "[o,c)"  CSRBench, RSP-JS: o <= t < c  an event at 1 is in W0, not at 6
    "[o,c]"  YABench:          o <= t <= c both ends are in

Everything else (oracle, engines' profiles, metrics, reports) imports these
functions; nothing else does window arithmetic.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any


class Bounds(str, enum.Enum):
    """Which ends of a window are inside it."""

    OPEN_CLOSED = "(o,c]"
    CLOSED_OPEN = "[o,c)"
    CLOSED_CLOSED = "[o,c]"

    # A Bounds is its text everywhere (profiles, JSON, messages): "(o,c]".
    __str__ = str.__str__
    __format__ = str.__format__  # type: ignore[assignment]
    __hash__ = str.__hash__
    __repr__ = str.__repr__

    def label(self, window: Sequence[Any]) -> str:
        """The window written with this convention's brackets.

        >>> Bounds("[o,c)").label((0, 10000))
        '[0,10000)'
        """
        return f"{self.value[0]}{window[0]},{window[1]}{self.value[-1]}"

    @property
    def open_start(self) -> int:
        """1 if an event exactly at ``o`` is outside the window."""
        return 1 if self is Bounds.OPEN_CLOSED else 0

    @property
    def open_end(self) -> int:
        """1 if an event exactly at ``c`` is outside the window."""
        return 1 if self is Bounds.CLOSED_OPEN else 0


def window_label(window: Sequence[Any], bounds: Bounds) -> str:
    """``window`` as text with the brackets of ``bounds`` ("(o,c]", ...).

    >>> window_label((30000, 40000), "(o,c]")
    '(30000,40000]'
    """
    return Bounds(bounds).label(window)


@dataclass(frozen=True)
class WindowSpec:
    """Width and slide (ms) of a time-based sliding window, plus its bounds."""

    width: int
    slide: int
    bounds: Bounds = Bounds.OPEN_CLOSED

    def __post_init__(self) -> None:
        if self.width <= 0 or self.slide <= 0:
            raise ValueError(
                f"window width and slide must be positive (got RANGE {self.width} "
                f"STEP {self.slide})"
            )

    def window(self, i: int, t0: int) -> tuple[int, int]:
        """The ``(o, c)`` of window ``i`` for start ``t0``.

        >>> WindowSpec(5, 2).window(2, t0=1)
        (5, 10)
        """
        o = t0 + i * self.slide
        return o, o + self.width

    def contains(self, o: int, c: int, t: int) -> bool:
        """Is application time ``t`` inside window ``(o, c)``?

        >>> spec = WindowSpec(5, 2, Bounds.CLOSED_OPEN)
        >>> spec.contains(1, 6, 1), spec.contains(1, 6, 6)
        (True, False)
        """
        return o + self.bounds.open_start <= t <= c - self.bounds.open_end

    def index_range(
        self,
        t_min: Any,
        t_max: Any,
        t0: Any,
        floordiv: Callable[[Any, int], Any] = lambda a, b: a // b,
    ) -> tuple[Any, Any]:
        """Indices ``lo..hi`` of the windows containing the whole span ``[t_min, t_max]``.

        Written only with ``+``, ``-`` and ``floordiv`` so the same formula runs
        on Python ints and on Spark columns (pass a Spark floor division). An
        empty range has ``lo > hi``.

        >>> WindowSpec(5, 2).index_range(6, 6, t0=1)   # in (1,6], (3,8] and (5,10]
        (0, 2)
        """
        hi = floordiv(t_min - t0 - self.bounds.open_start, self.slide)
        lo = -floordiv(self.width + t0 - t_max - self.bounds.open_end, self.slide)
        return lo, hi

    def t0_classes(self, times: Iterable[int], start: int) -> list[tuple[int, int]]:
        """Group the candidate starts ``t0`` in ``[start, start + slide)`` into classes.

        RSP-QL Theorem 1 bounds the candidates to one slide; candidates in one
        class put every event time into the same windows (same indices), so
        the expected output is computed once per class. Returns the classes as
        half-open ranges ``[first, next_first)``.

        >>> WindowSpec(10, 10, Bounds.CLOSED_OPEN).t0_classes([0, 3, 6], start=0)
        [(0, 1), (1, 4), (4, 7), (7, 10)]
        """
        starts = {start}
        for t in set(times):
            # Event t leaves the window that ends above it when t0 passes
            # t - open_start, and enters the next one when t0 passes the
            # point where the window ending at t stops reaching it.
            for point in (t - self.bounds.open_start + 1, t + self.bounds.open_end - self.width):
                starts.add(start + (point - start) % self.slide)
        ordered = sorted(starts)
        return list(zip(ordered, [*ordered[1:], start + self.slide], strict=True))

    def aligned_t0(self, start: int) -> int:
        """The ``t0`` in ``[start, start + slide)`` whose windows close at multiples of the slide.

        Engines that keep one wall-clock grid (rsp-js) place every window so
        that ``c = o + width`` is a multiple of the slide, counted from time 0
        rather than from the stream's start: ``t0 = -width (mod slide)``.

        >>> WindowSpec(3000, 2000).aligned_t0(start=0)   # [1000,4000), [3000,6000), ...
        1000
        >>> WindowSpec(2000, 5000).aligned_t0(start=0)   # [3000,5000), [8000,10000), ...
        3000
        """
        return start + (-self.width - start) % self.slide

    def latest_closed(self, t0: int, time: int) -> int:
        """Index of the last window whose close is at or before ``time`` (below 0: none).

        >>> WindowSpec(5, 2).latest_closed(t0=1, time=9)   # (3,8] closed at 8
        1
        """
        return (time - self.width - t0) // self.slide

    def open_at(self, t0: int, time: int) -> tuple[int, int]:
        """Indices ``(earliest, present)`` of the windows open at ``time``.

        The *present* window is the most recently opened window that contains
        ``time`` (RSP-QL); the *earliest* is the oldest one still containing
        it (SECRET).

        >>> WindowSpec(5, 2).open_at(t0=1, time=6)   # (1,6], (3,8], (5,10]
        (0, 2)
        """
        return self.index_range(time, time, t0)

    def closed_by(self, t0: int, end: int) -> range:
        """Indices ``i >= 0`` of the windows that close at or before ``end``.

        >>> list(WindowSpec(5, 2).closed_by(t0=1, end=10))
        [0, 1, 2]
        """
        last = (end - self.width - t0) // self.slide
        return range(0, max(last + 1, 0))
