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
    by the largest multiple of ``step`` that keeps ``fails(mapping)`` true:
    the whole cut first, else bisection between no cut (known to fail) and
    the whole one. ``fails`` gets the mapping from every point to its new time.

    >>> compress([0, 6, 14], 0, 2, lambda m: m[14] - m[6] >= 4)
    {0: 0, 6: 0, 14: 4}
    """
    gaps = [b - a for a, b in zip([origin, *points[:-1]], points, strict=True)]
    for index in range(len(gaps)):
        gaps = _cut(gaps, index, step, lambda tried: fails(_mapping(points, origin, tried)))
    return _mapping(points, origin, gaps)


def _cut(gaps: list[int], index: int, step: int, fails: Callable[[list[int]], bool]) -> list[int]:
    """``gaps`` with gap ``index`` cut by the largest multiple of ``step`` that still fails."""

    def cut(by: int) -> list[int]:
        return [*gaps[:index], gaps[index] - by * step, *gaps[index + 1 :]]

    most = gaps[index] // step if step > 0 else 0
    if most <= 0 or fails(cut(most)):
        return cut(max(most, 0))
    works, fails_at = 0, most  # no cut fails (the input as it is); the whole cut does not
    while fails_at - works > 1:
        middle = (works + fails_at) // 2
        if fails(cut(middle)):
            works = middle
        else:
            fails_at = middle
    return cut(works)


def _mapping(points: Sequence[int], origin: int, gaps: Sequence[int]) -> dict[int, int]:
    out, time = {}, origin
    for point, gap in zip(points, gaps, strict=True):
        time += gap
        out[point] = time
    return out
