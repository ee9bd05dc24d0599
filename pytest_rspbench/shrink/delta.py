"""Delta debugging and time-span compression, pure: no engine, no Spark.

:func:`ddmin` is Zeller and Hildebrandt's minimizing delta debugging
("Simplifying and Isolating Failure-Inducing Input", TSE 2002, Fig. 5): split
the input into ``n`` chunks, keep a chunk or a complement that still fails,
otherwise split finer; the result is 1-minimal (removing any one unit makes
the failure go away) among the candidates it tried.

:func:`compress` shortens the gaps between the times of an input by
multiples of a ``step`` (the windows' slide), earliest gap first. A gap cut by
a multiple of the slide keeps every later event at its place relative to the
window grid, so a window-logic departure usually survives it::

    slide 2     0 . 2 . 4 . 6 . 8 . 10. 12. 14
    before      a           b               end
    after       a     b           end           (both gaps cut by 4)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def ddmin(units: Sequence[T], fails: Callable[[list[T]], bool]) -> list[T]:
    """The smallest part of ``units`` found that still ``fails``.

    ``fails(units)`` is assumed true; ``fails`` may raise to stop the search
    (a time budget), which leaves the caller with what it kept last.

    >>> ddmin(list(range(8)), lambda xs: 3 in xs and 6 in xs)
    [3, 6]
    """
    kept = list(units)
    n = 2
    while len(kept) >= 2:
        chunks = _split(kept, n)
        found = next((c for c in chunks if fails(c)), None)
        if found is not None:
            kept, n = found, 2
            continue
        if n > 2:
            rest = next((r for r in _complements(chunks) if fails(r)), None)
            if rest is not None:
                kept, n = rest, max(n - 1, 2)
                continue
        if n >= len(kept):
            break
        n = min(len(kept), 2 * n)
    return kept


def _split(units: list[T], n: int) -> list[list[T]]:
    """``units`` in ``n`` contiguous chunks of nearly equal size."""
    size, extra = divmod(len(units), n)
    chunks, start = [], 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        chunks.append(units[start:end])
        start = end
    return [c for c in chunks if c]


def _complements(chunks: list[list[T]]) -> list[list[T]]:
    return [[u for j, c in enumerate(chunks) if j != k for u in c] for k in range(len(chunks))]


def compress(
    points: Sequence[int], origin: int, step: int, fails: Callable[[dict[int, int]], bool]
) -> dict[int, int]:
    """New times for ``points`` (ascending) with shorter gaps that still ``fails``.

    Each gap (from ``origin`` to the first point, then between points) is cut
    by the largest multiple of ``step`` that keeps ``fails(mapping)`` true,
    trying the whole cut, then half of it, and so on. ``fails`` gets the
    mapping from every point to its new time.

    >>> compress([0, 6, 14], 0, 2, lambda m: m[14] - m[6] >= 4)
    {0: 0, 6: 0, 14: 4}
    """
    gaps = [b - a for a, b in zip([origin, *points[:-1]], points, strict=True)]
    for index, gap in enumerate(gaps):
        cut = gap // step if step > 0 else 0
        while cut > 0:
            tried = [*gaps[:index], gap - cut * step, *gaps[index + 1 :]]
            if fails(_mapping(points, origin, tried)):
                gaps = tried
                break
            cut //= 2
    return _mapping(points, origin, gaps)


def _mapping(points: Sequence[int], origin: int, gaps: Sequence[int]) -> dict[int, int]:
    out, time = {}, origin
    for point, gap in zip(points, gaps, strict=True):
        time += gap
        out[point] = time
    return out
