"""Named departures: what kind of mistake a failing output shows.

The per-window table says *which* windows differ; a departure says *how*,
named from what the verdict already has (the expected relations of the
closest t0 class, the engine's results and their alignment, the profile's
semantics and the stream's event times), the way Jepsen's Elle names an
anomaly from what clients observed. Each window that differs gets one class
and an item the classes of its windows with their counts; the failure's
first line is built from them::

    strict: FAIL — lost window x1 at [30000,40000); missing final window x1 at ...

The classes (:data:`KINDS`, stable names for ``known_failures`` and the
results file) are the mistakes the papers found in real engines (CSRBench §6:
CQELS keeps expired triples, SPARQLstream leaves an empty AVG unbound,
engines disagree on window bounds; YABench §6: C-SPARQL's windows drift and
results are lost under load; RSP-QL Def. 20-22: R2S) and those of rsp-js
(engines/rspjs/README.md: partial windows before t0, no report at the end,
lost and out-of-order relations, two reports of one window);
:mod:`.explanations` says how a window is classified, and
docs/reading-a-failure.md shows a real example of each.

Several classes can explain one window (a border event of a tumbling window
moves one window under another bounds convention and under a small t0 drift
alike), so each window takes, of its possible classes, the one that explains
the most windows of the item; ties go in the order of :data:`KINDS`.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from pytest_rspbench.rsp.departures import BY_NAME, ITEM_LEVEL, KINDS, NAMES, Kind
from pytest_rspbench.rsp.outputs import ExpectedRelation, Received
from pytest_rspbench.rsp.rspql import Declaration, WindowDecl
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.windows import Bounds, window_label
from pytest_rspbench.spec.model import Comparison
from pytest_rspbench.verdict.alignment import Aligned
from pytest_rspbench.verdict.explanations import (
    Equality,
    Evidence,
    Slot,
    compare,
    content,
    sequence,
    slots_of,
    timing,
)
from pytest_rspbench.verdict.variants import labels, variant

__all__ = ["KINDS", "NAMES", "Departure", "Evidence", "Kind", "classify", "names", "summary"]

Window = tuple[int, int]
MAX_WINDOWS = 3  # windows named per departure in the summary
_ORDER = {name: k for k, name in enumerate(NAMES)}


@dataclass(frozen=True)
class Departure:
    """One departure class found in one item.

    Attributes:
        name: the class (one of :data:`NAMES`).
        windows: the windows it was found in, in time order (none for the
            item-level classes ``engine-error`` and ``no-output``).
        count: how many windows (or, item-level, relations) show it.
        detail: what was seen, for item-level classes (the engine's error).
        bounds: the brackets its windows are written with when they are not
            the profile's time windows (a count window's ``[first,last]``
            is ``"[o,c]"``); None: the profile's.
    """

    name: str
    windows: tuple[Window, ...] = ()
    count: int = 1
    detail: str = ""
    bounds: str | None = None

    @property
    def kind(self) -> Kind:
        return BY_NAME[self.name]

    def summary(self, bounds: Bounds) -> str:
        """``lost window x1 at [30000,40000)``.

        >>> Departure("lost-window", ((30000, 40000),)).summary("[o,c)")
        'lost window x1 at [30000,40000)'
        """
        title = self.kind.title
        if self.name in ITEM_LEVEL:
            return f"{title}: {self.detail}" if self.detail else title
        brackets = Bounds(self.bounds) if self.bounds else bounds
        shown = ", ".join(window_label(w, brackets) for w in self.windows[:MAX_WINDOWS])
        more = len(self.windows) - MAX_WINDOWS
        where = f" at {shown}" + (f" and {more} more" if more > 0 else "") if shown else ""
        return f"{title} x{self.count}{where}"


def summary(departures: Sequence[Departure], bounds: Bounds) -> str:
    """Every departure of an item on one line, in the order of :data:`KINDS`."""
    return "; ".join(d.summary(bounds) for d in departures)


def names(departures: Iterable[Departure]) -> tuple[str, ...]:
    return tuple(d.name for d in departures)


def classify(
    relations: Sequence[ExpectedRelation],
    received: Sequence[Received],
    aligned: Aligned,
    semantics: Semantics,
    comparison: Comparison,
    *,
    r2s: str = "RStream",
    stable_from: int = 0,
    error: str | None = None,
    times: Sequence[int] | Evidence | None = None,
    windows: Sequence[Declaration] = (),
) -> tuple[Departure, ...]:
    """The departures an engine's output shows against ``relations``.

    ``aligned`` groups ``received`` per relation (the verdict's alignment);
    ``times`` are the stream's event times, or an :class:`Evidence` that can
    also say when a solution's terms occur (None: unknown): they tell a
    border event from a drift and a final window from a lost one.
    ``windows`` are the query's: a count or session window that another of
    its rules explains is named so (:mod:`.variants`).
    """
    out: list[Departure] = []
    if error:
        out.append(Departure("engine-error", detail=_first_line(error)))
    slots = slots_of(relations, received, aligned, stable_from)
    stream = times if isinstance(times, Evidence) or times is None else Evidence(times)
    slide = _slide(windows)
    if not any(s.results for s in slots):
        due = [s for s in slots if s.due and s.expected]
        if due and not error:
            return tuple(out) + (_nothing(due, slots, stream, slide))
        return tuple(out)
    same = Equality(comparison)
    for s in slots:
        compare(s, received, same)
    sequence(slots, received, comparison.mode, stream, error is not None)
    content(slots, semantics, r2s, same, stream)
    timing(slots, received, semantics, slide)
    events = stream.events() if stream is not None else None
    if (name := variant(windows, semantics, events, received, stable_from)) is not None:
        for s in slots:  # one rule explains them all: no other class to name
            if s.differs or s.found:
                s.possible, s.found = {name}, set()
    found = _departures(slots)
    if (brackets := labels(windows, semantics)) is not None:
        found = tuple(replace(d, bounds=brackets) for d in found)
    return tuple(out) + found


def _slide(windows: Sequence[Declaration]) -> int | None:
    """The smallest slide of a query of time windows only (None: another kind,
    or not known)."""
    if not windows or not all(isinstance(d, WindowDecl) for d in windows):
        return None
    return min(d.slide for d in windows if isinstance(d, WindowDecl))


def _nothing(
    due: Sequence[Slot], slots: Sequence[Slot], stream: Evidence | None, slide: int | None
) -> tuple[Departure, ...]:
    """An output without any relation: *no output*, unless the stream shows
    why. When the first event after a due window's close came a slide or more
    later, it closed that window and later ones at once; if none of those
    later ones is due (all empty), an engine that evaluates only the newest
    window it closed evaluated an empty one and sent nothing: the due window
    is a *lost window*, as are the others the input went past; those still
    open at its end are *missing final windows*::

        windows [0,10) {a}  [10,20) {}  [20,30) {}      events a@5, b@35
        b closes all three: the engine evaluates [20,30) only, empty: nothing sent
    """
    times = sorted(stream.times) if stream is not None and stream.times else []
    closes = sorted(s.window[1] for s in slots if s.due and s.window is not None)
    nothing = (Departure("no-output", count=len(due), detail=f"{len(due)} relation(s) expected"),)
    if slide is None or not times:
        return nothing

    def after(close: int) -> int | None:
        at = bisect.bisect_left(times, close)
        return times[at] if at < len(times) else None

    def alone(close: int) -> bool:  # closed with later windows, none of them due
        t = after(close)
        return t is not None and t >= close + slide and not any(close < c <= t for c in closes)

    if not any(s.window is not None and alone(s.window[1]) for s in due):
        return nothing
    lost = [s for s in due if s.window is not None and after(s.window[1]) is not None]
    final = [s for s in due if s not in lost]
    return tuple(
        Departure(name, tuple(s.window for s in group if s.window is not None), len(group))
        for name, group in (("lost-window", lost), ("missing-final-window", final))
        if group
    )


def _departures(slots: Sequence[Slot]) -> tuple[Departure, ...]:
    """One class per differing window (the one that explains the most windows
    of the item), plus what the sequence showed; grouped by class."""
    support = Counter(name for s in slots if s.differs for name in s.possible)
    found: dict[str, list[Slot]] = defaultdict(list)
    for s in slots:
        for name in s.found:
            found[name].append(s)
        if not s.differs:
            continue
        if s.possible:
            best = max(s.possible, key=lambda n: (support[n], -_ORDER[n]))
        else:
            best = "wrong-solutions"
        found[best].append(s)
    return tuple(
        Departure(
            name,
            tuple(s.window for s in found[name] if s.window is not None),
            len(found[name]),
        )
        for name in sorted(found, key=_ORDER.__getitem__)
    )


def _first_line(text: str, limit: int = 160) -> str:
    line = text.strip().splitlines()[0] if text.strip() else text
    return line if len(line) <= limit else line[: limit - 1] + "…"
