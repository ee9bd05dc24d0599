"""The reference engine's count-based windows: the last n events or triples.

Its own arithmetic, independent of ``pytest_rspbench.rsp.counting`` on
purpose (docs/count-and-session-windows.md is the contract both follow).
Elements are counted from 1 as they are pushed; the window slides after
every ``step``-th element and then holds the last ``size`` of them.
``[TRIPLES 3 STEP 2]`` over ``e1@1 = (a1, a2)``, ``e2@3 = (b1)``,
``e3@4 = (c1, c2, c3)``::

    element   a1  a2  b1  c1  c2  c3
    count      1   2   3   4   5   6
    slides         ^       ^       ^
    holds     a1 a2 | a2 b1 c1 | c1 c2 c3      (tuple-driven: three evaluations)
    graph-driven: after e1 {a1,a2}; after e3 one evaluation {c1,c2,c3}

Ties are broken by arrival: the order in which elements are pushed, an
event's triples in the order of its list (one correct resolution of
``count_ties: any`` too).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import pyoxigraph as ox

from .query import CountDecl

Shown = tuple[set[ox.Quad], tuple[int, int] | None]
"""What a window contributes: its content, and the window it reports."""


class CountOperator:
    """A ``[ROWS n STEP m]`` or ``[TRIPLES n STEP m]`` window over one stream.

    Attributes:
        keep: how many elements the window holds (``size``; a faulty engine
            changes it, the slide schedule stays).
    """

    def __init__(self, decl: CountDecl, *, tick: str, rampup: str, bounds: str) -> None:
        self.name, self.stream, self.kind = decl.name, decl.stream, decl.kind
        self.size, self.step, self.keep = decl.size, decl.step, decl.size
        self._graph_driven = tick == "graph-driven"
        self._rampup = rampup == "report"
        self._bounds = bounds == "[first,last]"
        self._held: deque[tuple[int, tuple[ox.Quad, ...]]] = deque()
        self._count = 0

    def arrive(self, time: int, quads: Sequence[ox.Quad]) -> list[tuple[int, Shown]]:
        """Count one event; its slides as ``(position, (content, window))``.

        ``position`` is how many of the event's triples had arrived when the
        window slid (the whole event for ``rows`` and ``graph-driven``).
        """
        units = (
            [(len(quads), tuple(quads))]
            if self.kind == "rows"
            else [(i + 1, (q,)) for i, q in enumerate(quads)]
        )
        slides: list[tuple[int, Shown]] = []
        for position, element in units:
            self._count += 1
            self._held.append((time, element))
            while len(self._held) > self.keep:
                self._held.popleft()
            if self._slides():
                slides.append((position, self._shown()))
        if self._graph_driven and slides:
            return [(len(quads), self._shown())]
        return slides

    def _slides(self) -> bool:
        """Is the element just counted a slide point? Multiples of the step,
        from the ``size``-th element on unless ramp-up slides are reported."""
        return self._count % self.step == 0 and (self._rampup or self._count >= self.size)

    def _shown(self) -> Shown:
        content = {quad for _, element in self._held for quad in element}
        window = (self._held[0][0], self._held[-1][0]) if self._bounds and self._held else None
        return content, window
