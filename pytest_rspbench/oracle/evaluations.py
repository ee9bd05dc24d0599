"""When an engine with a given profile evaluates the query, and on what.

SECRET's report policies give the evaluation instants; at each instant every
named window contributes one *active* window (RSP-QL Def. 14: the dataset of
named time-varying graphs):

- window-close: evaluate when any window closes. Each named window
  contributes its latest window closed by then (the one that just closed for
  the window that triggered). Closes at the same instant are one evaluation.
- content-change: evaluate at each instant an event enters an open window;
  each named window contributes its *present* window (RSP-QL: the most
  recently opened one) or its *earliest* open one (SECRET), as the profile's
  ``active_window`` says, holding the content up to that instant.
- periodic(p): evaluate every ``p`` ms from ``t0``; active windows as for
  content-change.
- non-empty-content filters any of these: no evaluation when the windows
  that triggered it are all empty (SECRET's NC on the triggering window).

The plan is computed per t0 class in plain Python (it is small: one entry
per evaluation); Spark then assigns solutions to evaluations by joining on
``(class, window index)``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.rsp.windows import WindowSpec

BASE_POLICIES = ("window-close", "content-change", "periodic")


@dataclass(frozen=True)
class NamedWindow:
    """One named window of the query, with the t0 of the current class."""

    name: str
    stream: str
    spec: WindowSpec
    t0: int


@dataclass(frozen=True)
class Active:
    """The window a named window contributes to one evaluation.

    ``upper`` limits the content to triples with time ``<= upper`` (a window
    that is still open); None means the whole window.
    """

    index: int
    upper: int | None


@dataclass(frozen=True)
class Evaluation:
    """One evaluation instant and the windows it reads."""

    time: int
    triggers: tuple[str, ...]
    active: Mapping[str, Active]

    @property
    def trigger(self) -> str:
        """The window reported for this evaluation (first in declaration order)."""
        return self.triggers[0]


def base_policy(semantics: Semantics) -> str:
    """The one evaluation-instant policy of a profile; the rest are filters."""
    chosen = [p for p in semantics.report if p in BASE_POLICIES]
    if len(chosen) != 1:
        raise UnsupportedQueryError(
            "the oracle needs exactly one of window-close, content-change, periodic "
            f"in the report policy (got {', '.join(semantics.report)})"
        )
    if chosen[0] == "content-change" and semantics.tick == "tuple-driven":
        raise UnsupportedQueryError(
            "content-change with a tuple-driven tick (one evaluation per triple)"
        )
    return chosen[0]


def plan(
    windows: Sequence[NamedWindow],
    semantics: Semantics,
    end: int,
    event_times: Mapping[str, Sequence[int]],
) -> list[Evaluation]:
    """The evaluations of one t0 class, in time order."""
    policy = base_policy(semantics)
    if policy == "window-close":
        return _window_close(windows, end)
    if policy == "periodic":
        assert semantics.period is not None  # Semantics checks it
        first = min(w.t0 for w in windows)
        instants = range(first + semantics.period, end + 1, semantics.period)
        return _open_windows(windows, instants, semantics.active_window)
    if semantics.tick == "graph-driven" and len({w.stream for w in windows}) > 1:
        raise UnsupportedQueryError("content-change with a graph-driven tick over several streams")
    instants = sorted({t for w in windows for t in event_times.get(w.stream, ()) if t <= end})
    return _open_windows(windows, instants, semantics.active_window)


def last_index(evaluations: Sequence[Evaluation], name: str) -> int:
    """The highest index of window ``name`` any evaluation reads (-1: none)."""
    return max((e.active[name].index for e in evaluations if name in e.active), default=-1)


def _window_close(windows: Sequence[NamedWindow], end: int) -> list[Evaluation]:
    closes: dict[int, list[str]] = defaultdict(list)
    for w in windows:
        for i in w.spec.closed_by(w.t0, end):
            closes[w.spec.window(i, w.t0)[1]].append(w.name)
    out = []
    for time in sorted(closes):
        active = {}
        for w in windows:
            index = w.spec.latest_closed(w.t0, time)
            if index >= 0:
                active[w.name] = Active(index, None)
        out.append(Evaluation(time, tuple(closes[time]), active))
    return out


def _open_windows(
    windows: Sequence[NamedWindow], instants: Sequence[int] | range, which: str
) -> list[Evaluation]:
    out = []
    for time in instants:
        active = {}
        for w in windows:
            earliest, present = w.spec.open_at(w.t0, time)
            index = present if which == "present" else max(earliest, 0)
            if index < 0 or earliest > present:
                continue
            active[w.name] = Active(index, time)
        if active:
            out.append(Evaluation(time, tuple(active), active))
    return out
