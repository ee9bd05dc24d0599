"""What the engine said besides its bindings: times, windows, its time unit.

The strict verdict compares contents (:mod:`.strict`); which t0 classes it
compares with is decided from contents too (:mod:`pytest_rspbench.oracle.t0.narrowing`).
An engine's reported evaluation times and windows are checked afterwards,
against the class that reproduced its output, as a finding of their own:
engines stamp results with wall-clock time, in a coarser unit, or one
millisecond off, so a time that disagrees is shown, not failed. A reported
window is part of the output when the profile says so (``reports_window:
true``): then one that disagrees fails the item. Results of an engine with a
coarser clock are first regrouped into relations by its time unit
(:func:`pytest_rspbench.rsp.outputs.regrouped`, which the oracle's
narrowing reads too).

Within one class, t0 ranges over ``[first, last]`` and the class's relations
are those of ``t0 = first``: an engine with another t0 of the class reports
every window ``t0 - first`` later (one shift for all its windows)::

    class t0 in [500, 502], relations of t0 = 500:  [500,1500) [1500,2500)
    an engine with t0 = 502 reports                 [502,1502) [1502,2502)   fits
    an engine reporting                             [502,1502) [1500,2500)   does not
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_rspbench.rsp.outputs import ExpectedRelation, Received, Result, T0Class
from pytest_rspbench.rsp.windows import Bounds, window_label


def reproducing(classes: Sequence[T0Class]) -> str:
    """Which t0 reproduce the output, from the classes that matched.

    >>> reproducing([T0Class(1200, 1449, ())])
    't0 in [1200, 1450): 250 equivalent starts'
    >>> reproducing([T0Class(2345, 2345, ())])
    't0 = 2345'
    """
    spans: list[list[int]] = []
    for cls in sorted(classes, key=lambda c: c.first):
        if spans and cls.first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], cls.last)
        else:
            spans.append([cls.first, cls.last])
    count = sum(b - a + 1 for a, b in spans)
    if count == 1:
        return f"t0 = {spans[0][0]}"
    shown = " and ".join(f"[{a}, {b + 1})" for a, b in spans[:3])
    more = f" and {len(spans) - 3} more" if len(spans) > 3 else ""
    return f"t0 in {shown}{more}: {count:,} equivalent starts"


Matched = tuple[T0Class, int, int]
"""A class that reproduced the output, the position in its relations of the
first relation compared, and how many were (the output's last ones)."""


def window_finding(matched: Matched, received: Sequence[Received], bounds: Bounds) -> str | None:
    """How the reported windows differ from the matched class's windows
    (None: they fit one t0 of the class, or none were reported)."""
    return _windows_misfit(matched, received, bounds)


def _windows_misfit(matched: Matched, received: Sequence[Received], bounds: Bounds) -> str | None:
    cls = matched[0]
    pairs = _pairs(matched, received)
    told = [(r, e) for r, e in pairs if r.window is not None]
    if not told:
        return None
    shift = told[0][0].window[0] - told[0][1].window[0]  # type: ignore[index]
    if not 0 <= shift <= cls.last - cls.first:
        shift = 0
    wrong = [
        (r, e)
        for r, e in told
        if (r.window[0] - e.window[0], r.window[1] - e.window[1]) != (shift, shift)  # type: ignore[index]
    ]
    if not wrong:
        return None
    r, e = wrong[0]
    due = (e.window[0] + shift, e.window[1] + shift)
    return (
        f"the content matches t0 = {cls.label}, but {len(wrong)} of {len(told)} "
        f"reported windows differ from its windows (the first: "
        f"{window_label(r.window, bounds)} where {window_label(due, bounds)} is due)"  # type: ignore[arg-type]
    )


def time_finding(matched: Matched, received: Sequence[Received], unit: int) -> str | None:
    """How the reported times differ from the matched class's evaluation
    times (None: they agree within the class's t0 range and one time unit)."""
    cls = matched[0]
    pairs = [(r, e) for r, e in _pairs(matched, received) if r.time is not None]
    slack = cls.last - cls.first + max(unit, 1) - 1
    wrong = [(r, e) for r, e in pairs if not 0 <= r.time - e.time <= slack]  # type: ignore[operator]
    if not wrong:
        return None
    r, e = wrong[0]
    return (
        f"reported times differ from the evaluation times of t0 = {cls.label} in "
        f"{len(wrong)} of {len(pairs)} relations (the first: {r.time} where "
        f"{e.time} is due); times are not compared"
    )


def _pairs(matched: Matched, received: Sequence[Received]) -> list[tuple[Result, ExpectedRelation]]:
    """Each compared result with its expected relation: the last ``count``
    results against relations ``first .. first + count - 1``."""
    cls, first, count = matched
    tail = received[len(received) - count :] if count else []
    relations = cls.relations[first : first + count]
    return [(item.result, rel) for item, rel in zip(tail, relations, strict=True)]
