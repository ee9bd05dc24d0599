"""Count-based windows: the last n events (ROWS) or triples (TRIPLES) of a stream.

The contract is docs/count-and-session-windows.md. Elements of a stream are
numbered from 1 in the window's counting order; the window *slides* after
every ``step``-th element, and the slide after element ``p`` holds the last
``size`` elements up to ``p``. Example: ``[ROWS 3 STEP 2]``::

    element   1    2    3    4    5    6
    slides         ^         ^         ^
    holds     1..2      2..4      4..6

    tuple-driven: one evaluation per slide
    graph-driven: one per event in which a slide falls, holding the last
                  ``size`` elements up to the end of that event

Like :class:`~pytest_rspbench.rsp.windows.WindowSpec.index_range`, the
formulas use only ``+``, ``-`` and a floor division, so they run on Python
ints and on Spark columns alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

MAX_COUNT = 2**53 - 1
"""The largest count (and session gap, ms): beyond it Spark's doubles lose integers."""
COUNT_KINDS = ("rows", "triples")
"""``rows`` counts events (``ROWS``/``ELEMENTS``), ``triples`` counts triples."""
COUNT_ORDERS = ("time", "arrival")
COUNT_TIES = ("arrival", "any")
COUNT_RAMPUPS = ("report", "skip")
COUNT_TICKS = ("tuple-driven", "graph-driven")
COUNT_BOUNDS = ("[first,last]", "none")
COUNT_FIELDS = ("count_order", "count_ties", "count_rampup", "count_tick", "count_bounds")
"""The profile fields an engine that runs count windows must declare."""

Floordiv = Callable[[Any, int], Any]


def _floordiv(a: Any, b: int) -> Any:
    return a // b


@dataclass(frozen=True)
class CountWindow:
    """``[ROWS size STEP step]`` or ``[TRIPLES size STEP step]``.

    Attributes:
        kind: "rows" (elements are events) or "triples" (elements are triples).
        size: n, how many elements a full window holds.
        step: m, the window slides after every m-th element.
    """

    kind: str
    size: int
    step: int = 1

    def __post_init__(self) -> None:
        if self.kind not in COUNT_KINDS:
            raise ValueError(f"a count window counts {' or '.join(COUNT_KINDS)}, not {self.kind!r}")
        if self.size <= 0 or self.step <= 0:
            raise ValueError(
                f"a count window's size and step must be positive (got "
                f"{self.kind.upper()} {self.size} STEP {self.step})"
            )

    @property
    def label(self) -> str:
        """The window as the query writes it.

        >>> CountWindow("rows", 3, 2).label
        'ROWS 3 STEP 2'
        """
        step = f" STEP {self.step}" if self.step != 1 else ""
        return f"{self.kind.upper()} {self.size}{step}"

    def first_slide(self, rampup: str, floordiv: Floordiv = _floordiv) -> Any:
        """The index ``k`` of the first slide (after element ``k * step``).

        With ``count_rampup: skip`` slides holding fewer than ``size``
        elements are none, so the first is the first multiple of ``step`` at
        or above ``size``.

        >>> window = CountWindow("rows", 3, 2)
        >>> window.first_slide("report"), window.first_slide("skip")
        (1, 2)
        """
        return 1 if rampup == "report" else -floordiv(-self.size, self.step)

    def holds(self, position: Any) -> tuple[Any, Any]:
        """First and last element (1-based, inclusive) of the slide after
        element ``position``; the first is below 1 during ramp-up: clip it.

        >>> CountWindow("triples", 3, 2).holds(4)
        (2, 4)
        """
        return position - self.size + 1, position

    def slides_holding(self, element: Any, floordiv: Floordiv = _floordiv) -> tuple[Any, Any]:
        """Indices ``lo..hi`` of the slides that hold ``element`` (empty if ``lo > hi``).

        Slide ``k`` ends at ``k * step`` and holds ``k*step - size + 1 ..
        k*step``, so it holds element ``q`` for ``k`` from ``ceil(q/step)``
        to ``floor((q + size - 1)/step)``. Intersect with
        :meth:`first_slide` for ramp-up.

        >>> CountWindow("rows", 3, 2).slides_holding(4)   # after 4 and after 6
        (2, 3)
        >>> CountWindow("rows", 1, 3).slides_holding(2)   # hopping: 2 is in none
        (1, 0)
        """
        return -floordiv(-element, self.step), floordiv(element + self.size - 1, self.step)

    def slides_in(self, before: Any, after: Any, floordiv: Floordiv = _floordiv) -> Any:
        """How many slides fall in ``(before, after]`` elements: those an event
        makes when the count goes from ``before`` to ``after``.

        >>> CountWindow("triples", 3, 2).slides_in(3, 6)
        2
        """
        return floordiv(after, self.step) - floordiv(before, self.step)


@dataclass(frozen=True)
class Slide:
    """One evaluation of a count window over a stream.

    Attributes:
        event: index (0-based) of the event whose arrival made it.
        first: first element it holds (1-based, inclusive).
        last: last element it holds (1-based, inclusive).
    """

    event: int
    first: int
    last: int


def slides(sizes: Sequence[int], window: CountWindow, tick: str, rampup: str) -> list[Slide]:
    """The evaluations of ``window`` over events of these sizes (elements per
    event: 1 each for rows, the triple count for triples), in order.

    A small-data reference for the contract; the oracle does the same with
    running sums over columns.

    >>> [(s.event, s.first, s.last) for s in slides([2, 1, 3], CountWindow("triples", 3, 2),
    ...                                            "tuple-driven", "report")]
    [(0, 1, 2), (2, 2, 4), (2, 4, 6)]
    >>> [(s.event, s.first, s.last) for s in slides([2, 1, 3], CountWindow("triples", 3, 2),
    ...                                            "graph-driven", "report")]
    [(0, 1, 2), (2, 4, 6)]
    """
    out: list[Slide] = []
    first_end = window.first_slide(rampup) * window.step
    before = 0
    for index, size in enumerate(sizes):
        after = before + size
        ends = [
            k * window.step
            for k in range(before // window.step + 1, after // window.step + 1)
            if k * window.step >= first_end
        ]
        if tick == "graph-driven" and ends:
            ends = [after]
        for end in ends:
            low, high = window.holds(end)
            out.append(Slide(index, max(low, 1), high))
        before = after
    return out
