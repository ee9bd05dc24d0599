"""The evaluation sequence ET of a query with count or session windows.

docs/count-and-session-windows.md, "Several windows in one query": every
close of a time window or session and every slide of a count window is an
evaluation, ordered by ``(τ, phase, place)``; closes at one ``(τ, phase)``
are one evaluation, slides at one place too, and at each evaluation every
named window shows its latest window closed (or slide made) at or before
it. Phases order what happens at one time::

    time        4                     4                      4
    phase 0     [o,c) closes          split session closes
    phase 1                           an event at 4 arrives: count slides
    phase 2     (o,c], [o,c] close    merge session closes

Plain Python over the plan's inputs (the time windows' closes per t0 class,
:mod:`.slides`' count slides, the sessions): each step says which windows
triggered it and, per window, which of its axis windows it shows
(:class:`Shown`), so that the span machinery can assign solutions to it.
Under ``count_order: arrival`` over a stream delivered out of order the
slides follow the delivery (times go backwards): a query of count windows
only, ordered by place alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.t0.slides import CountSlide
from pytest_rspbench.rsp.sessions import SessionWindow, sessions
from pytest_rspbench.rsp.windows import WindowSpec

MAX_STEPS = 200_000
"""The most evaluations one t0 class may have (as :data:`.evaluations.MAX_EVALUATIONS`)."""

Key = tuple[object, ...]


@dataclass(frozen=True)
class Shown:
    """What one named window shows at an evaluation.

    Attributes:
        index: the window of its axis it shows (a time window's index, a
            count window's axis window, a session's number).
        window: the window it reports: ``(o, c)``, or a count window's or
            session's bounds.
        number: its own evaluation's ordinal (``ExpectedRelation.index``).
        choices: under ``count_ties: any``, every correct content (axis
            positions) when a tie falls at its cut; empty otherwise.
    """

    index: int
    window: tuple[int, int]
    number: int
    choices: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class Step:
    """One evaluation of ET: when, who triggered it, what every window shows
    (a window with nothing to show yet is absent: an empty graph)."""

    time: int
    triggers: tuple[str, ...]
    shown: Mapping[str, Shown]


@dataclass(frozen=True)
class Session:
    """One session of a ``[SESSION g]`` window: its first and last event
    times, its close ``last + g`` and the window it reports."""

    first: int
    last: int
    close: int
    window: tuple[int, int]


def session_list(
    times: Sequence[int], window: SessionWindow, rule: str, bounds: str
) -> list[Session]:
    """The sessions over a stream's distinct event ``times`` (engine's clock).

    >>> [s.window for s in session_list([1, 2, 5, 8], SessionWindow(3), "split", "[first,last]")]
    [(1, 2), (5, 5), (8, 8)]
    """
    return [
        Session(
            times[a], times[b], window.close(times[b]), window.reported(times[a], times[b], bounds)
        )
        for a, b in sessions(times, window, rule)
    ]


def session_numbers(times: Sequence[int], window: SessionWindow, rule: str) -> list[int]:
    """Each of the distinct ``times``' session number: the session axis.

    >>> session_numbers([1, 2, 5, 8, 12, 13], SessionWindow(3), "merge")
    [0, 0, 0, 0, 1, 1]
    """
    out = []
    for number, (a, b) in enumerate(sessions(times, window, rule)):
        out += [number] * (b - a + 1)
    return out


@dataclass(frozen=True)
class TimeWindow:
    """A time window of the query in one t0 class: its spec, t0 and the
    phase of its closes (0 for ``[o,c)``, 2 otherwise)."""

    spec: WindowSpec
    t0: int
    phase: int


@dataclass(frozen=True)
class Inputs:
    """What ET is made of, besides the time windows' closes.

    Attributes:
        order: window names in declaration order.
        slides: per count window, its slides in counting order.
        sessions: per session window, its sessions in order, and the phase
            of their closes (0 under ``split``, 2 under ``merge``).
        end: the end of the input (time windows close by then).
        by_place: order by place alone (count windows counting deliveries
            that are out of order).
    """

    order: tuple[str, ...]
    slides: Mapping[str, Sequence[CountSlide]]
    sessions: Mapping[str, tuple[Sequence[Session], int]]
    end: int
    by_place: bool = False


def steps(
    inputs: Inputs,
    timed: Mapping[str, TimeWindow],
    closes: Sequence[tuple[int, tuple[str, ...]]],
) -> list[Step]:
    """ET for one t0 class: ``timed`` are its time windows, ``closes`` their
    close instants with the windows closing then (every close by the end,
    or those that can hold an event under non-empty-content)."""
    entries: list[tuple[Key, int, str, int]] = []  # (key, declared, window, number)
    rank = {name: k for k, name in enumerate(inputs.order)}
    for time, names in closes:
        phase = timed[names[0]].phase
        entries += [((time, phase, ()), rank[n], n, -1) for n in names]
    for name, (closing, phase) in inputs.sessions.items():
        entries += [((s.close, phase, ()), rank[name], name, i) for i, s in enumerate(closing)]
    for name, sliding in inputs.slides.items():
        entries += [
            (_slide_key(s, inputs.by_place), rank[name], name, i) for i, s in enumerate(sliding)
        ]
    entries.sort(key=lambda e: (e[0], e[1]))
    if len({e[0] for e in entries}) > MAX_STEPS:
        raise OracleError(
            f"the oracle would plan more than {MAX_STEPS:,} evaluations for one t0 class "
            "of a query with count or session windows.\nHINT: a larger STEP (count "
            "windows) or a shorter stream gives fewer."
        )
    state: dict[str, Shown] = {}
    out: list[Step] = []
    at = 0
    while at < len(entries):
        key = entries[at][0]
        group = []
        while at < len(entries) and entries[at][0] == key:
            group.append(entries[at])
            at += 1
        for _, _, name, number in group:
            if number >= 0:
                state[name] = _shown(inputs, name, number)
        shown = dict(state)
        for name, window in timed.items():
            index = _latest_closed(window, key, inputs.end)
            if index >= 0:
                o, c = window.spec.window(index, window.t0)
                shown[name] = Shown(index, (o, c), index)
        triggers = tuple(dict.fromkeys(name for _, _, name, _ in group))
        first = key[0] if not inputs.by_place else _time_of(inputs, group[0])
        assert isinstance(first, int)
        out.append(Step(first, triggers, shown))
    return out


def _slide_key(slide: CountSlide, by_place: bool) -> Key:
    return slide.place if by_place else (slide.time, 1, slide.place)


def _time_of(inputs: Inputs, entry: tuple[Key, int, str, int]) -> int:
    return inputs.slides[entry[2]][entry[3]].time


def _shown(inputs: Inputs, name: str, number: int) -> Shown:
    if name in inputs.slides:
        s = inputs.slides[name][number]
        return Shown(s.index, s.window, number, s.choices)
    session = inputs.sessions[name][0][number]
    return Shown(number, session.window, number)


def _latest_closed(window: TimeWindow, key: Key, end: int) -> int:
    """The latest window closed at or before ``(τ, phase)`` (by the end)."""
    time, phase = key[0], key[1]
    assert isinstance(time, int) and isinstance(phase, int)
    upto = min(time if window.phase <= phase else time - 1, end)
    return window.spec.latest_closed(window.t0, upto)
