"""Session windows: runs of events closer than a gap (``[SESSION gap]``).

The contract is docs/count-and-session-windows.md. Events of one stream, in
time order, share a session while each is within the gap of the previous one;
the profile's ``session_gap`` says what happens at exactly the gap. Gap 3::

    time        1  2  3  4  5  6  7  8
    events      *  *        *        *
    split (<3)  [1--2]      [5]      [8]        sparq
    merge (<=3) [1--2--------5--------8]        Flink

A session closes at ``last + gap``: under ``split`` before the events at that
time (they start the next session), under ``merge`` after them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

SESSION_GAPS = ("split", "merge")
SESSION_BOUNDS = ("[first,last]", "[first,last+gap)")
SESSION_FIELDS = ("session_gap", "session_bounds")
"""The profile fields an engine that runs session windows must declare."""


@dataclass(frozen=True)
class SessionWindow:
    """``[SESSION gap]``: events within ``gap`` ms of the previous one share a session."""

    gap: int
    kind: ClassVar[str] = "session"

    def __post_init__(self) -> None:
        if self.gap <= 0:
            raise ValueError(f"a session gap must be positive (got {self.gap} ms)")

    @property
    def label(self) -> str:
        """The window as a query writes it (the gap in ms).

        >>> SessionWindow(30000).label
        'SESSION 30000ms'
        """
        return f"SESSION {self.gap}ms"

    def starts_session(self, previous: Any, time: Any, rule: str) -> Any:
        """Does an event at ``time`` start a new session after one at ``previous``?

        Written with comparisons only, so it works on Spark columns.

        >>> w = SessionWindow(10)
        >>> w.starts_session(0, 10, "split"), w.starts_session(0, 10, "merge")
        (True, False)
        """
        if rule == "split":
            return time - previous >= self.gap
        return time - previous > self.gap

    def close(self, last: Any) -> Any:
        """The evaluation time of a session whose last event is at ``last``.

        >>> SessionWindow(3).close(2)
        5
        """
        return last + self.gap

    def reported(self, first: int, last: int, bounds: str) -> tuple[int, int]:
        """The window an engine reports for the session ``[first, last]``.

        >>> window = SessionWindow(3)
        >>> window.reported(1, 2, "[first,last]"), window.reported(1, 2, "[first,last+gap)")
        ((1, 2), (1, 5))
        """
        return (first, last) if bounds == "[first,last]" else (first, last + self.gap)


def sessions(times: Sequence[int], window: SessionWindow, rule: str) -> list[tuple[int, int]]:
    """Indices ``(first, last)`` (inclusive) of the sessions over events at
    these times (sorted), in order.

    >>> sessions([1, 2, 5, 8, 12, 13], SessionWindow(3), "split")
    [(0, 1), (2, 2), (3, 3), (4, 5)]
    >>> sessions([1, 2, 5, 8, 12, 13], SessionWindow(3), "merge")
    [(0, 3), (4, 5)]
    """
    out: list[tuple[int, int]] = []
    for index, time in enumerate(times):
        if not out or window.starts_session(times[index - 1], time, rule):
            out.append((index, index))
        else:
            out[-1] = (out[-1][0], index)
    return out
