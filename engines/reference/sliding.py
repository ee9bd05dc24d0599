"""The reference engine's own window arithmetic (RSP-QL Def. 12-13).

A sliding window with width ``alpha``, slide ``beta`` and start ``t0`` has
windows ``i = 0, 1, 2, ...`` opening at ``o_i = t0 + i*beta`` and closing at
``c_i = o_i + alpha``. Time is integer ms, so an open end is the closed end
moved by one ms: the *inside* of window ``i`` is the closed integer range
``[o_i + s, c_i - e]`` with ``s = 1`` when the start is open and ``e = 1``
when the end is open. RSP-QL Example 7 (alpha=5, beta=2, t0=1)::

    time      1   2   3   4   5   6   7   8   9  10
    W0 (1,6]  (-------------------]                    inside 2..6
    W1 (3,8]          (-------------------]            inside 4..8
    W2 (5,10]                 (-------------------]    inside 6..10

    "[o,c)": W0 = [1,6) inside 1..5      "[o,c]": W0 = [1,6] inside 1..6

Independent of ``pytest_rspbench.rsp.windows`` on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass

BOUNDS = {"(o,c]": (1, 0), "[o,c)": (0, 1), "[o,c]": (0, 0)}


@dataclass(frozen=True)
class Sliding:
    """A time-based sliding window operator with a fixed ``t0``.

    Attributes:
        width: alpha (ms).
        slide: beta (ms).
        t0: opening time of the first window (ms).
        bounds: "(o,c]", "[o,c)" or "[o,c]".
    """

    width: int
    slide: int
    t0: int
    bounds: str

    def __post_init__(self) -> None:
        if self.bounds not in BOUNDS:
            raise ValueError(f"bounds must be one of {tuple(BOUNDS)}, got {self.bounds!r}")

    @property
    def open_start(self) -> int:
        """1 if an event exactly at ``o`` is outside the window, else 0."""
        return BOUNDS[self.bounds][0]

    @property
    def open_end(self) -> int:
        """1 if an event exactly at ``c`` is outside the window, else 0."""
        return BOUNDS[self.bounds][1]

    def opening(self, i: int) -> int:
        """``o_i``."""
        return self.t0 + i * self.slide

    def closing(self, i: int) -> int:
        """``c_i``."""
        return self.opening(i) + self.width

    def inside(self, i: int) -> tuple[int, int]:
        """First and last ms inside window ``i`` (inclusive).

        >>> Sliding(5, 2, 1, "(o,c]").inside(0), Sliding(5, 2, 1, "[o,c)").inside(0)
        ((2, 6), (1, 5))
        """
        return self.opening(i) + self.open_start, self.closing(i) - self.open_end

    def contains(self, i: int, t: int) -> bool:
        """Is time ``t`` inside window ``i``?"""
        first, last = self.inside(i)
        return first <= t <= last

    def present(self, t: int) -> int | None:
        """The present window at ``t``: the most recently opened one (RSP-QL
        "present window"), i.e. the largest ``i`` whose inside starts at or
        before ``t``; None before the first window opens.

        >>> w = Sliding(5, 2, 1, "(o,c]")
        >>> w.present(1), w.present(2), w.present(9)
        (None, 0, 3)
        """
        first = t - self.t0 - self.open_start
        return None if first < 0 else first // self.slide

    def complete_through(self, now: int) -> int:
        """The latest closing time ``c`` of a window complete once an event at
        ``now`` has arrived.

        Events come in time order, so an event at ``now`` proves that every
        event before ``now`` has arrived, but more events *at* ``now`` may
        follow (on another stream, say). A window is complete when its last
        inside ms is before ``now``: ``c < now`` for "(o,c]" and "[o,c]",
        ``c <= now`` for "[o,c)", where ``c`` itself is outside the window.

        >>> Sliding(10, 10, 0, "[o,c)").complete_through(10)
        10
        >>> Sliding(10, 10, 0, "(o,c]").complete_through(10)
        9
        """
        return now - 1 + self.open_end

    def first_closing_from(self, time: int) -> int:
        """Index of the first window with ``c_i >= time`` (at least 0).

        >>> Sliding(5, 2, 1, "(o,c]").first_closing_from(7)
        1
        """
        return max(0, -((self.t0 + self.width - time) // self.slide))

    def first_holding_from(self, time: int) -> int:
        """Index of the first window whose inside does not end before ``time``
        (the first window that can hold an event at ``time``).

        >>> Sliding(10, 10, 0, "[o,c)").first_holding_from(10)
        1
        """
        return self.first_closing_from(time + self.open_end)
