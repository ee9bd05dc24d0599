"""Narrow the t0 classes to compute from what the engine reported.

An engine picks its own t0, so the oracle must consider every candidate
(RSP-QL, "Correctness in practice"). Usually there are few classes; on a
stream stamped at every millisecond there is one per millisecond of the
slide (YABench big: 5,000 for a 5 s slide). Their outputs cannot all be
materialised: each class holds a copy of every window's solutions (on
YABench big with a filter, 5,000 x 147k bindings).

The strict verdict only needs the classes that can explain the engine's
output, and an engine that reports evaluation times or window bounds says
which those are: its windows close where its t0 puts them. So, when a case
has more than :data:`NARROW_ABOVE` classes, the oracle plans every class
(cheap: a few evaluation instants each, in Python), scores each by how many
of the engine's reported times and windows it has an evaluation for, and
computes only the best-scoring ones (at most :data:`KEEP`)::

    slide 5 s, tumbling, t0 in [0, 5000): 5,000 classes
    engine reports windows closing at   7345   12345   17345 ...
    class t0 = 2345 closes windows at   7345   12345   17345 ...  3 of 3
    class t0 = 2346 closes windows at   7346   12346   17346 ...  0 of 3
    -> compute class 2345 only

Inside a class spanning ``[first, last]`` the times shift with t0, so a
reported time fits an evaluation at ``e`` when it lies in
``[e, e + last - first]``. Results before the stable start ``t_s`` are the
engine's transient part and are not used. Nothing narrows when the engine
reports neither times nor windows: then every class is computed, as for
small counts. The verdict still compares contents exactly; narrowing only
decides which classes it compares with, and the report says so.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

NARROW_ABOVE = 256
"""Cases with at most this many t0 classes compute them all."""

KEEP = 16
"""At most this many classes are computed after narrowing."""


class _Plan(Protocol):
    """What narrowing reads of a t0 class's plan (``oracle.ClassPlan``)."""

    @property
    def first(self) -> tuple[int, ...]: ...
    @property
    def last(self) -> tuple[int, ...]: ...
    @property
    def windows(self) -> Sequence[Any]: ...
    @property
    def evaluations(self) -> Sequence[Any]: ...


@dataclass(frozen=True)
class Reported:
    """The evaluation times and windows an engine reported (from ``t_s`` on
    is decided later, by :func:`narrow`)."""

    times: tuple[int, ...] = ()
    windows: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, results: Iterable[Any]) -> Reported:
        """From engine results (anything with ``time`` and ``window``)."""
        times, windows = [], []
        for result in results:
            if result.time is not None:
                times.append(int(result.time))
            if result.window is not None:
                windows.append((int(result.window[0]), int(result.window[1])))
        return cls(tuple(times), tuple(windows))

    def __bool__(self) -> bool:
        return bool(self.times or self.windows)


@dataclass(frozen=True)
class Narrowed:
    """Which classes to compute, and a sentence for the report."""

    chosen: tuple[int, ...]
    total: int
    reason: str


def narrow(plans: Sequence[_Plan], reported: Reported, stable_from: int) -> Narrowed | None:
    """The classes (indices into ``plans``) that best explain ``reported``.

    None when there is nothing to narrow: few classes, or nothing reported.

    >>> from types import SimpleNamespace as NS
    >>> plans = [NS(first=(t,), last=(t,), windows=(), evaluations=(
    ...     NS(time=t + 10, active={}), NS(time=t + 20, active={})))
    ...     for t in range(300)]
    >>> n = narrow(plans, Reported(times=(17, 27)), stable_from=0)
    >>> n.chosen, n.total
    ((7,), 300)
    """
    if len(plans) <= NARROW_ABOVE:
        return None
    times = [t for t in reported.times if t >= stable_from]
    windows = [w for w in reported.windows if w[1] >= stable_from]
    hints = len(times) + len(windows)
    if not hints:
        return None
    scores = [_score(plan, times, windows) for plan in plans]
    best = max(scores)
    chosen = tuple(k for k, s in enumerate(scores) if s == best)[:KEEP]
    what = " and ".join(
        part for part, n in (("evaluation times", len(times)), ("windows", len(windows))) if n
    )
    if best == 0:
        reason = (
            f"none of the {len(plans):,} t0 classes fits the engine's reported {what}; "
            f"the first {len(chosen)} were computed"
        )
    else:
        reason = (
            f"{len(chosen)} of {len(plans):,} t0 classes computed: those that fit "
            f"{best} of the engine's {hints} reported {what}"
        )
    return Narrowed(chosen, len(plans), reason)


def _score(plan: _Plan, times: Sequence[int], windows: Sequence[tuple[int, int]]) -> int:
    """How many reported times and windows the class has an evaluation for."""
    slack = max(
        (last - first for first, last in zip(plan.first, plan.last, strict=True)),
        default=0,
    )
    score = _fitting(times, sorted(e.time for e in plan.evaluations), slack)
    opens = _opens_by_width(plan)
    for o, c in windows:
        score += _fitting((o,), opens.get(c - o, ()), slack)
    return score


def _fitting(reported: Iterable[int], own: Sequence[int], slack: int) -> int:
    """How many of ``reported`` lie in ``[e, e + slack]`` for some ``e`` in ``own``
    (``own`` sorted)."""
    count = 0
    for t in reported:
        k = bisect_right(own, t) - 1
        if k >= 0 and t - own[k] <= slack:
            count += 1
    return count


def _opens_by_width(plan: _Plan) -> dict[int, list[int]]:
    """Width -> sorted opens ``o`` of the windows the class's evaluations read."""
    by_name = {w.name: w for w in plan.windows}
    found: dict[int, set[int]] = {}
    for evaluation in plan.evaluations:
        for name, active in evaluation.active.items():
            window = by_name[name]
            o, c = window.spec.window(active.index, window.t0)
            found.setdefault(c - o, set()).add(o)
    return {width: sorted(opens) for width, opens in found.items()}
