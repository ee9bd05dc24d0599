"""Which actual result belongs to which expected relation (for graded metrics).

Per-window metrics need each result of the engine next to the relation the
oracle expected for it. Four rules, tried in this order by ``auto``:

``window``
    the window ``(o, c)`` the engine says it reported, when the profile
    trusts those reports (``reports_window: true``). Not for content-change
    or periodic engines: they report one window many times.
``time``
    the evaluation time the engine reports (trusted like the window).
``arrival``
    the arrival time mapped to application time (real-time replay only):
    the latest evaluation at or before it, if no older than the spec's
    ``arrival_tolerance``. Results arrive after their evaluation, so the
    latest one before the arrival is the one that produced it::

        evaluations   2000      4000      6000
        arrivals         2150 2300   4100      -> 2000, 2000, 4000

``position``
    the k-th result goes with the k-th expected relation: the last resort
    (full-speed replay of an engine that reports neither window nor time).

Content-change engines emit many small results; they are aligned to
evaluation instants (``time`` or ``arrival``), never to windows. One rule is
used for a whole run, and it is shown in the summary with the reason.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_rspbench.rsp.outputs import ExpectedRelation, Received
from pytest_rspbench.rsp.policy import while_open
from pytest_rspbench.rsp.semantics import Semantics

RULES = ("window", "time", "arrival", "position")


@dataclass(frozen=True)
class Aligned:
    """Results grouped per expected relation.

    Attributes:
        rule: the rule used (one of :data:`RULES`).
        reason: why that rule, for the summary.
        groups: per expected relation, the indices of its results.
        leftovers: indices of results that belong to no expected relation.
    """

    rule: str
    reason: str
    groups: tuple[tuple[int, ...], ...]
    leftovers: tuple[int, ...]


def choose(
    received: Sequence[Received], semantics: Semantics, requested: str = "auto"
) -> tuple[str, str]:
    """The rule for this run and why."""
    if requested != "auto":
        return requested, "set by the spec (comparison.alignment)"
    instants = while_open(semantics)  # one window reported many times
    trusted = semantics.reports_window
    results = [r.result for r in received]
    if trusted and not instants and all(r.window is not None for r in results):
        return (
            "window",
            "the profile trusts the engine's reported windows (reports_window)",
        )
    if trusted and all(r.time is not None for r in results):
        return (
            "time",
            "the profile trusts the engine's reported times (reports_window)",
        )
    if received and all(r.app_time is not None for r in received):
        return "arrival", "arrival time mapped to application time (real-time replay)"
    why = "no trusted window or time reported" if not trusted else "not every result carries one"
    if not received:
        why = "no results"
    return "position", f"{why}, and no arrival times (replay at full speed)"


def align(
    expected: Sequence[ExpectedRelation],
    received: Sequence[Received],
    semantics: Semantics,
    requested: str = "auto",
    tolerance: int | None = None,
) -> Aligned:
    """Group ``received`` per expected relation with the chosen rule."""
    rule, reason = choose(received, semantics, requested)
    targets = {
        "window": _by_window,
        "time": _by_time,
        "arrival": lambda e, r: _by_arrival(e, r, tolerance),
        "position": _by_position,
    }[rule](expected, received)
    groups: list[list[int]] = [[] for _ in expected]
    leftovers = []
    for position, k in enumerate(targets):
        if k is None:
            leftovers.append(position)
        else:
            groups[k].append(position)
    return Aligned(rule, reason, tuple(tuple(g) for g in groups), tuple(leftovers))


def _by_window(
    expected: Sequence[ExpectedRelation], received: Sequence[Received]
) -> list[int | None]:
    # Several relations of one window (IStream and DStream of one evaluation,
    # a forced window rule on a content-change engine, two slides of a count
    # window with the same bounds): the reported time picks them, in turn.
    relations: dict[tuple[int, int], list[int]] = defaultdict(list)
    for k, rel in enumerate(expected):
        relations[(rel.window[0], rel.window[1])].append(k)
    taken: set[int] = set()
    out: list[int | None] = []
    for item in received:
        window = item.result.window
        candidates = relations.get((window[0], window[1]), []) if window else []
        timed = [k for k in candidates if expected[k].time == item.result.time]
        out.append(_in_turn(timed or candidates, taken))
    return out


def _by_time(
    expected: Sequence[ExpectedRelation], received: Sequence[Received]
) -> list[int | None]:
    at = _per_time(expected)
    taken: set[int] = set()
    return [
        None if item.result.time is None else _in_turn(at.get(item.result.time, []), taken)
        for item in received
    ]


def _per_time(expected: Sequence[ExpectedRelation]) -> dict[int, list[int]]:
    """The relations evaluated at each time, in order (several evaluations
    can share a time: a count window sliding twice inside one event)."""
    at: dict[int, list[int]] = defaultdict(list)
    for k, rel in enumerate(expected):
        at[rel.time].append(k)
    return at


def _in_turn(candidates: Sequence[int], taken: set[int]) -> int | None:
    """The first of ``candidates`` not taken yet (then taken), else the
    first: relations that share a window or a time are aligned in turn,
    and a result beyond them goes with the first (a repeat).

    >>> taken = set()
    >>> [_in_turn([3, 4], taken) for _ in range(3)]
    [3, 4, 3]
    """
    for k in candidates:
        if k not in taken:
            taken.add(k)
            return k
    return candidates[0] if candidates else None


def _by_arrival(
    expected: Sequence[ExpectedRelation],
    received: Sequence[Received],
    tolerance: int | None,
) -> list[int | None]:
    at_time = _per_time(expected)
    times = sorted(at_time)
    taken: set[int] = set()
    out: list[int | None] = []
    for item in received:
        if item.app_time is None:
            out.append(None)
            continue
        at = bisect.bisect_right(times, item.app_time) - 1
        if at < 0 or (tolerance is not None and item.app_time - times[at] > tolerance):
            out.append(None)
        else:
            out.append(_in_turn(at_time[times[at]], taken))
    return out


def _by_position(
    expected: Sequence[ExpectedRelation], received: Sequence[Received]
) -> list[int | None]:
    return [k if k < len(expected) else None for k in range(len(received))]
