"""Departures of count and session windows, named by a variant that explains them.

A count or session window that an engine gets wrong in one rule shows, to
the generic classes of :mod:`.explanations`, as lost, extra and moved
windows everywhere. Each rule has a variant: the window computed as the
engine would under it (docs/count-and-session-windows.md; the arithmetic is
:mod:`pytest_rspbench.rsp.counting` and :mod:`pytest_rspbench.rsp.sessions`).
When every result the engine reported is an evaluation of the variant, by
its time and reported window, while some are none of the profile's, the
variant names the departure. ``[ROWS 3 STEP 2]`` over events of two triples::

    profile          2000 [1000,2000]   5000 [2000,5000]   9000 [5000,9000]
    engine           1000 [1000,1000]   2000 [1000,2000]   4000 [2000,4000] ...
    [TRIPLES 3 STEP 2] gives the engine's: "count unit" (it counts triples)

========== ============================================= =====================
class      variant                                       engine that does it
========== ============================================= =====================
count-size ``n + 1`` (or ``n - 1``) elements, same slides  faulty-count-off-by-one
count-unit triples counted for events, or events for       faulty-count-triples
           triples
session-   the other ``session_gap`` rule: merged at the  faulty-session-merge
gap        gap where the profile splits, or the reverse
========== ============================================= =====================

Only a query of one count or session window is named so, over a stream in
time order (counted in stream order): the variant is replayed from the
stream's events (:attr:`.explanations.Evidence.events`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pytest_rspbench.rsp.counting import CountWindow, slides
from pytest_rspbench.rsp.outputs import Received
from pytest_rspbench.rsp.rspql import CountWindowDecl, Declaration, SessionWindowDecl
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.sessions import sessions

Evaluated = tuple[int, tuple[int, int]]
"""An evaluation as an engine reports it: its time and window."""
Events = Sequence[tuple[int, int]]
"""A stream's events in stream order: each one's time and triple count."""


def labels(windows: Sequence[Declaration], semantics: Semantics) -> str | None:
    """The brackets a failure's windows are written with, when the query's
    windows are count or session windows only (None: the time windows').

    >>> from pytest_rspbench.rsp.sessions import SessionWindow
    >>> labels([SessionWindowDecl("w", "s", SessionWindow(3))],
    ...        Semantics(session_gap="split", session_bounds="[first,last+gap)",
    ...                  windows=("session",)))
    '[o,c)'
    """
    if not windows or any(w.kind == "time" for w in windows):
        return None
    extended = semantics.session_bounds == "[first,last+gap)"
    if all(w.kind == "session" for w in windows) and extended:
        return "[o,c)"
    return "[o,c]"


def variant(
    windows: Sequence[Declaration],
    semantics: Semantics,
    events: Mapping[str, Events] | None,
    received: Sequence[Received],
    stable_from: int,
) -> str | None:
    """The departure class of a variant that explains every reported result
    (None: no variant does, or it cannot be told)."""
    if len(windows) != 1 or events is None or semantics.count_order == "arrival":
        return None
    (window,) = windows
    stream = events.get(window.stream)
    told = [
        (r.result.time, r.result.window)
        for r in received
        if r.result.time is not None and r.result.time >= stable_from
    ]
    if stream is None or not told:
        return None
    profile = evaluations(window, semantics, stream)
    for name, other, rules in _variants(window, semantics):
        shown = evaluations(other, rules, stream)
        if _explains(told, shown, profile):
            return name
    return None


def _variants(
    window: Declaration, semantics: Semantics
) -> list[tuple[str, Declaration | _Held, Semantics]]:
    """Each variant of the window: its class, the window and the profile."""
    if isinstance(window, CountWindowDecl):
        w = window.window
        other = "triples" if w.kind == "rows" else "rows"
        unit = replace(window, window=CountWindow(other, w.size, w.step))
        out: list[tuple[str, Declaration | _Held, Semantics]] = [("count-unit", unit, semantics)]
        for held in (1, -1):  # same slides, one element more or fewer
            if w.size + held > 0:
                out.append(("count-size", _Held(window, held), semantics))
        return out
    if isinstance(window, SessionWindowDecl):
        rule = "merge" if semantics.session_gap == "split" else "split"
        return [("session-gap", window, replace(semantics, session_gap=rule))]
    return []


def _explains(
    told: Sequence[tuple[int, tuple[int, int] | None]],
    shown: Sequence[Evaluated],
    profile: Sequence[Evaluated],
) -> bool:
    """Are the told results evaluations of ``shown``, in its order (some may
    be left out: empty relations), and not of ``profile``? Without reported
    windows, by their times alone (an engine that reports none)."""
    windowed = all(w is not None for _, w in told)
    got = [(t, (w[0], w[1])) if windowed and w is not None else t for t, w in told]

    def keys(evaluated: Sequence[Evaluated]) -> list[object]:
        return [e if windowed else e[0] for e in evaluated]

    return _within(got, keys(shown)) and not _within(got, keys(profile))


def _within(part: Sequence[object], whole: Sequence[object]) -> bool:
    """Is ``part`` a subsequence of ``whole``?

    >>> _within([1, 3], [1, 2, 3]), _within([3, 1], [1, 2, 3])
    (True, False)
    """
    rest = iter(whole)
    return all(any(x == y for y in rest) for x in part)


@dataclass(frozen=True)
class _Held:
    """A count window that slides as declared but holds ``held`` elements more."""

    window: CountWindowDecl
    held: int


def evaluations(
    window: Declaration | _Held, semantics: Semantics, events: Events
) -> list[Evaluated]:
    """The evaluations of one count or session window over a stream's events
    in time order: each one's time and window (count bounds ``[first,last]``;
    session bounds as the profile says), on the engine's clock."""
    unit = max(semantics.time_unit, 1)
    times = [t - t % unit for t, _ in events]
    held = window.held if isinstance(window, _Held) else 0
    window = window.window if isinstance(window, _Held) else window
    if isinstance(window, CountWindowDecl):
        w = window.window
        sizes = [1 if w.kind == "rows" else n for _, n in events]
        owner = [k for k, size in enumerate(sizes) for _ in range(size)]
        tick, rampup = str(semantics.count_tick), str(semantics.count_rampup)
        return [
            (times[s.event], (times[owner[max(s.first - held, 1) - 1]], times[owner[s.last - 1]]))
            for s in slides(sizes, w, tick, rampup)
        ]
    if isinstance(window, SessionWindowDecl):
        distinct = sorted(set(times))
        rule, bounds = str(semantics.session_gap), str(semantics.session_bounds)
        return [
            (
                window.window.close(distinct[b]),
                window.window.reported(distinct[a], distinct[b], bounds),
            )
            for a, b in sessions(distinct, window.window, rule)
        ]
    return []
