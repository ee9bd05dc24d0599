"""When an engine with a given profile evaluates the query, and on what.

SECRET's report policies give the evaluation instants (which policy, and
whether an empty evaluation is reported, is decided by
:mod:`pytest_rspbench.rsp.policy`); at each instant every
named window contributes one *active* window (RSP-QL Def. 14: the dataset of
named time-varying graphs):

- window-close: evaluate when any window closes. Each named window
  contributes its latest window closed by then (the one that just closed for
  the window that triggered). Closes at the same instant are one evaluation.
- content-change: evaluate at each instant an event enters an open window;
  each named window contributes its *present* window (RSP-QL: the most
  recently opened one) or its *earliest* open one (SECRET), as the profile's
  ``active_window`` says, holding the content up to that instant. The
  windows that trigger it are those the instant's events changed (their
  stream has an event then), in the order the harness delivers them: the
  streams' order, then declaration order.
- periodic(p): evaluate every ``p`` ms from ``t0``; active windows as for
  content-change.
- non-empty-content filters any of these: no evaluation when the windows
  that triggered it are all empty (SECRET's NC on the triggering window).

The plan is computed per t0 class in plain Python (it is small: one entry
per evaluation); Spark then assigns solutions to evaluations by joining on
``(class, window index)``. With non-empty-content only the instants that can
see an event are planned, so the plan grows with the events, not with the
time they span (an event stamped in 2024 on a stream starting at 0 is 170
million empty 10 s windows later)::

    events      *  *                                     *
    windows     [0][1][2][3] ... 170,406,719 empty ... [n]
    planned     [0]                                     [n]

Without it every window (or period) until the stream's end is evaluated,
empty or not, and a plan above :data:`MAX_EVALUATIONS` is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_rspbench.errors import OracleError, UnsupportedQueryError
from pytest_rspbench.rsp.policy import base_policy, skips_empty
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.windows import WindowSpec

MAX_EVALUATIONS = 200_000
"""The most evaluations one t0 class may plan (about 500 bytes each in Python)."""


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
        """The window reported for this evaluation: the first trigger
        (closes in declaration order; content-change in delivery order)."""
        return self.triggers[0]


def plan(
    windows: Sequence[NamedWindow],
    semantics: Semantics,
    end: int,
    event_times: Mapping[str, Sequence[int]],
) -> list[Evaluation]:
    """The evaluations of one t0 class, in time order.

    With non-empty-content, evaluations that cannot see an event are left
    out (the policy drops them anyway); ``event_times`` must be ascending,
    and its streams in their order under ``streams:`` (at one instant the
    harness delivers events in that order).
    """
    policy = base_policy(semantics)
    sparse = skips_empty(semantics)
    if policy == "window-close":
        return _window_close(windows, _close_times(windows, end, event_times, sparse))
    if policy == "periodic":
        assert semantics.period is not None  # Semantics checks it
        instants = _periodic(windows, semantics.period, end, event_times, sparse)
        return _open_windows(windows, instants, semantics.active_window)
    if semantics.tick == "graph-driven" and len({w.stream for w in windows}) > 1:
        raise UnsupportedQueryError("content-change with a graph-driven tick over several streams")
    instants = sorted({t for w in windows for t in event_times.get(w.stream, ()) if t <= end})
    return _open_windows(windows, instants, semantics.active_window, event_times)


def last_index(evaluations: Sequence[Evaluation], name: str) -> int:
    """The highest index of window ``name`` any evaluation reads (-1: none)."""
    return max((e.active[name].index for e in evaluations if name in e.active), default=-1)


def _close_times(
    windows: Sequence[NamedWindow],
    end: int,
    event_times: Mapping[str, Sequence[int]],
    sparse: bool,
) -> list[int]:
    """The instants windows close by ``end`` (``sparse``: windows holding events)."""
    runs = {
        w.name: _occupied(w, end, event_times.get(w.stream, ()))
        if sparse
        else [(0, len(w.spec.closed_by(w.t0, end)) - 1)]
        for w in windows
    }
    _bounded(sum(b - a + 1 for r in runs.values() for a, b in r), windows, end, sparse)
    return sorted(
        {
            w.spec.window(i, w.t0)[1]
            for w in windows
            for a, b in runs[w.name]
            for i in range(a, b + 1)
        }
    )


def _occupied(w: NamedWindow, end: int, times: Sequence[int]) -> list[tuple[int, int]]:
    """Runs ``(first, last)`` of the indices of windows closed by ``end`` that
    hold one of the (ascending) event ``times``."""
    last = len(w.spec.closed_by(w.t0, end)) - 1
    runs: list[tuple[int, int]] = []
    for t in times:
        lo, hi = w.spec.index_range(t, t, w.t0)
        lo, hi = max(lo, 0), min(hi, last)
        if lo > hi:
            continue
        if runs and lo <= runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], max(runs[-1][1], hi))
        else:
            runs.append((lo, hi))
    return runs


def _periodic(
    windows: Sequence[NamedWindow],
    period: int,
    end: int,
    event_times: Mapping[str, Sequence[int]],
    sparse: bool,
) -> Sequence[int]:
    """Every ``period`` ms from the first t0 up to ``end`` (``sparse``: only the
    instants an open window can hold an event by: at most ``width`` after it)."""
    first = min(w.t0 for w in windows)
    if not sparse:
        instants = range(first + period, end + 1, period)
        _bounded(len(instants), windows, end, sparse)
        return instants
    spans = [
        (t, min(t + w.spec.width, end))
        for w in windows
        for t in event_times.get(w.stream, ())
        if t <= end
    ]
    ranges = [
        range(first + max(-(-(a - first) // period), 1) * period, b + 1, period)
        for a, b in _merged(spans)
    ]
    _bounded(sum(len(r) for r in ranges), windows, end, sparse)
    return [t for r in ranges for t in r]


def _merged(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping inclusive spans joined, in order.

    >>> _merged([(5, 9), (0, 2), (1, 3), (9, 9)])
    [(0, 3), (5, 9)]
    """
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _bounded(count: int, windows: Sequence[NamedWindow], end: int, sparse: bool) -> None:
    """Refuse a plan of more than :data:`MAX_EVALUATIONS` evaluations, saying why."""
    if count <= MAX_EVALUATIONS:
        return
    shapes = ", ".join(
        f"<{w.name}> RANGE {w.spec.width} STEP {w.spec.slide} from t0 = {w.t0}" for w in windows
    )
    if sparse:
        why = "each event is seen by every window (or period) that holds it"
        hint = "a larger STEP (or period), closer to RANGE, gives fewer windows per event."
    else:
        why = (
            f"without non-empty-content every window (or period) up to the stream's "
            f"end at {end} ms is evaluated, empty or not"
        )
        hint = (
            "an event stamped far from the stream's start (an xsd:dateTime counts "
            "milliseconds since 1970) makes the stream span years: set the stream's "
            "start (and end) near its events, or fix the timestamps; if the engine "
            "skips empty windows, add non-empty-content to its profile's report."
        )
    raise OracleError(
        f"the oracle would plan {count:,} evaluations for one t0 class ({shapes}); "
        f"the limit is {MAX_EVALUATIONS:,}: {why}.\nHINT: {hint}"
    )


def _window_close(windows: Sequence[NamedWindow], times: Sequence[int]) -> list[Evaluation]:
    """At each close instant: the windows closing then, and each window's
    latest closed window."""
    out = []
    for time in times:
        triggers = tuple(w.name for w in windows if _closes_at(w, time))
        active = {}
        for w in windows:
            index = w.spec.latest_closed(w.t0, time)
            if index >= 0:
                active[w.name] = Active(index, None)
        out.append(Evaluation(time, triggers, active))
    return out


def _closes_at(w: NamedWindow, time: int) -> bool:
    index = w.spec.latest_closed(w.t0, time)
    return index >= 0 and w.spec.window(index, w.t0)[1] == time


def _open_windows(
    windows: Sequence[NamedWindow],
    instants: Sequence[int] | range,
    which: str,
    changed_by: Mapping[str, Sequence[int]] | None = None,
) -> list[Evaluation]:
    """At each instant, each window's active window; the triggers are every
    window open then (periodic) or, with ``changed_by`` (content-change,
    each stream's event times), the windows an event at the instant entered,
    an instant that changes none being no evaluation."""
    changes = _changes(windows, changed_by)
    out = []
    for time in instants:
        active = {}
        for w in windows:
            earliest, present = w.spec.open_at(w.t0, time)
            index = present if which == "present" else max(earliest, 0)
            if index < 0 or earliest > present:
                continue
            active[w.name] = Active(index, time)
        triggers = tuple(active) if changes is None else changes(time, active)
        if triggers:
            out.append(Evaluation(time, triggers, active))
    return out


def _changes(
    windows: Sequence[NamedWindow], changed_by: Mapping[str, Sequence[int]] | None
) -> Callable[[int, Mapping[str, Active]], tuple[str, ...]] | None:
    """The windows an instant's events change, in delivery order: by stream
    (``changed_by``'s order), then by declaration (None: not content-change)."""
    if changed_by is None:
        return None
    times = {s: frozenset(ts) for s, ts in changed_by.items()}
    place = {s: k for k, s in enumerate(changed_by)}
    ordered = sorted(windows, key=lambda w: place.get(w.stream, len(place)))

    def changed(time: int, active: Mapping[str, Active]) -> tuple[str, ...]:
        return tuple(
            w.name for w in ordered if w.name in active and time in times.get(w.stream, ())
        )

    return changed
