"""Count and session windows as time windows over an axis: the plan.

The oracle computes a time window's evaluations from the time spans of
solutions (:mod:`.assignment`). A count or session window is a time window
too, over another axis, chosen per named window instead of the time ``t``:

- a count window's axis is its elements' numbers in counting order
  (:mod:`.slides`): the slide after element ``k*m`` holds ``(k*m - n, k*m]``,
  window ``k - 1`` of ``WindowSpec(n, m, "(o,c]")`` from ``t0 = m - n``;
- a session window's axis is the session number of each event time: window
  ``i`` of ``WindowSpec(1, 1, "(o,c]")`` from ``t0 = -1`` holds session ``i``.

So the span machinery (index ranges, joins pruned by the width, the
assigner, the compiled plan and its pyoxigraph fallback) runs unchanged on
rows whose ``t`` is the axis: each named window reads a stream of its own
(:data:`AXIS`), its real stream's rows restamped (:mod:`.restamp`).
Evaluation times and reported windows come from the plan (:mod:`.sequence`),
not from the axis.
Count and session windows have no t0: with time windows beside them, the
classes are the time windows' (each keeps its t0 classes).

Under ``count_ties: any`` a slide cut inside a run of tied elements has
several correct contents. Each is copied onto the axis past every real
element, spaced so that one axis window holds exactly one of them::

    axis   1 .. N          B          B + L        B + 2L   (L >= n, B >= N + n)
           real elements   content 0  content 1    ...
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pytest_rspbench.errors import OracleError, UnsupportedQueryError
from pytest_rspbench.oracle.t0 import sequence as seq
from pytest_rspbench.oracle.t0 import slides as sl
from pytest_rspbench.oracle.t0.planning import Timeline, input_end, layout, plan_classes
from pytest_rspbench.rsp.counting import COUNT_FIELDS
from pytest_rspbench.rsp.policy import base_policy
from pytest_rspbench.rsp.rspql import CountWindowDecl, RspqlQuery, SessionWindowDecl
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.sessions import SESSION_FIELDS
from pytest_rspbench.rsp.windows import Bounds, WindowSpec
from pytest_rspbench.stream.model import Stream
from pytest_rspbench.stream.workloads import Disorder

AXIS = "urn:rspbench:axis:"
"""The stream IRI of a count or session window's rows in the job: this
prefix, then the window's IRI (never a stream's IRI)."""

MAX_COPIES = 2_000_000
"""The most rows the correct contents of ``count_ties: any`` may copy."""

CONTRACT = "docs/count-and-session-windows.md"


@dataclass(frozen=True)
class Axis:
    """One named window as the job sees it.

    Attributes:
        name: the window's IRI.
        kind: "time", "rows", "triples" or "session".
        stream: the stream it reads.
        spec: its windows over its axis.
        t0: its axis t0 (time windows: per class, see :attr:`Plan.classes`).
        restamp: how its rows get their axis value: "t" (time), "e" or
            "q" (the cache's ordinals, time order), "arrival" (through
            :attr:`Plan.arrival`) or "session" (through :attr:`Plan.sessions`).
    """

    name: str
    kind: str
    stream: str
    spec: WindowSpec
    t0: int
    restamp: str

    @property
    def source(self) -> str:
        """The stream IRI of its rows in the job."""
        return self.stream if self.kind == "time" else AXIS + self.name


@dataclass(frozen=True)
class Plan:
    """A query with count or session windows, planned (no Spark).

    Attributes:
        axes: every named window, in declaration order.
        classes: per t0 class of the time windows (one class when there
            are none), each time window's first and last t0.
        steps: per class, ET (:mod:`.sequence`).
        stable_from: from when output is compared: the time windows' ``t_s``,
            or the earliest evaluation when there are none.
        arrival: per count window counting deliveries, ``(event ordinal,
            axis value)``: for rows the axis value itself, for triples what
            to add to the row's ``q``.
        sessions: per session window, each distinct time's session number.
        copies: per count window, ``(position, axis value)`` of every
            element copied for a correct content under ``count_ties: any``.
        choices: per count window, per slide number, the axis windows of
            its correct contents.
        timelines: per window source, its timeline on the axis.
    """

    axes: tuple[Axis, ...]
    classes: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    steps: tuple[tuple[seq.Step, ...], ...]
    stable_from: int
    arrival: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    sessions: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    copies: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    choices: Mapping[str, Mapping[int, tuple[int, ...]]] = field(default_factory=dict)
    timelines: Mapping[str, Timeline] = field(default_factory=dict)


def applies(query: RspqlQuery) -> bool:
    """Does the query have a count or session window (so this module plans it)?"""
    return any(d.kind != "time" for d in query.declared)


def refuse(query: RspqlQuery, semantics: Semantics) -> None:
    """Refuse, before Spark starts, what the oracle does not compute for these windows."""
    policy = base_policy(semantics)
    if policy != "window-close":
        raise UnsupportedQueryError(
            f"the oracle computes count and session windows on window-close reports only, "
            f'not {policy} ({CONTRACT}, "Report policies and R2S").\nHINT: pin '
            "report: [window-close] (with non-empty-content if the engine skips empty "
            "windows) in the spec's semantics."
        )
    for decl in query.declared:
        needed = COUNT_FIELDS if decl.kind in ("rows", "triples") else SESSION_FIELDS
        missing = [f for f in needed if decl.kind != "time" and getattr(semantics, f) is None]
        if missing:
            raise UnsupportedQueryError(
                f"window <{decl.name}> is a {decl.kind} window, but the profile does not "
                f'declare {", ".join(missing)} ({CONTRACT}, "Profile keys").'
            )


def plan(
    query: RspqlQuery,
    semantics: Semantics,
    timelines: Mapping[str, Timeline],
    streams: Sequence[Stream],
    disorder: Mapping[str, Disorder] | None = None,
    starts: Mapping[str, int] | None = None,
) -> Plan:
    """ET and the axes of a query with count or session windows.

    ``timelines`` are the streams' own (not truncated to ``time_unit``: the
    input's order is by the true times); ``streams`` set the input's end
    (:func:`.planning.input_end`), with ``starts`` give a time window over a
    stream without events its windows, and with ``disorder`` give the
    delivery order, read only under ``count_order: arrival``.
    """
    refuse(query, semantics)
    disorder = disorder or {}
    counted = [d for d in query.declared if isinstance(d, CountWindowDecl)]
    by_place = _by_place(query, semantics, counted, disorder)
    countings = _countings(counted, semantics, timelines, streams, disorder)
    parts = _Parts()
    for decl in counted:
        _count_window(parts, decl, semantics, timelines.get(decl.stream), countings)
    for session in query.declared:
        if isinstance(session, SessionWindowDecl):
            _session_window(parts, session, semantics, timelines.get(session.stream))
    end = input_end(streams, timelines)
    order = tuple(d.name for d in query.declared)
    inputs = seq.Inputs(order, parts.slides, parts.sessions, end, by_place)
    copies, choices = _copies(counted, parts)
    located = _Located(timelines, streams, starts or {})
    classes, steps, stable = _classes(query, semantics, located, inputs)
    axes = tuple(parts.axes.get(name) or _time_axis(query, name, semantics) for name in order)
    return Plan(
        axes, classes, steps, stable, parts.stamped, parts.numbers, copies, choices,
        parts.virtual,
    )  # fmt: skip


@dataclass
class _Parts:
    """What :func:`plan` gathers window by window."""

    axes: dict[str, Axis] = field(default_factory=dict)
    slides: dict[str, list[sl.CountSlide]] = field(default_factory=dict)
    sessions: dict[str, tuple[list[seq.Session], int]] = field(default_factory=dict)
    stamped: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    numbers: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    virtual: dict[str, Timeline] = field(default_factory=dict)


def _count_window(
    parts: _Parts,
    decl: CountWindowDecl,
    semantics: Semantics,
    timeline: Timeline | None,
    countings: Mapping[str, sl.Counting],
) -> None:
    """A count window's axis, slides and (counting arrivals) restamping."""
    spec, t0 = sl.axis(decl.window, str(semantics.count_tick))
    arrival = semantics.count_order == "arrival"
    restamp = "arrival" if arrival else ("e" if decl.kind == "rows" else "q")
    axis = parts.axes[decl.name] = Axis(decl.name, decl.kind, decl.stream, spec, t0, restamp)
    parts.slides[decl.name] = []
    if timeline is None:
        return  # no events: never slides
    times, sizes = _events(timeline)
    counting = countings[decl.stream]
    order, unit = str(semantics.count_order), max(semantics.time_unit, 1)
    elements = sl.elements(decl.window, counting, times, sizes, order, unit)
    parts.slides[decl.name] = sl.count_slides(
        decl.name, decl.window, counting, elements, str(semantics.count_tick),
        str(semantics.count_rampup), semantics.count_ties == "any",
    )  # fmt: skip
    if arrival:
        parts.stamped[decl.name] = _arrival_stamps(decl.kind, counting, sizes)
    parts.virtual[axis.source] = _count_timeline(timeline, elements, decl.kind)


def _session_window(
    parts: _Parts, decl: SessionWindowDecl, semantics: Semantics, timeline: Timeline | None
) -> None:
    """A session window's sessions and each time's session number."""
    spec = WindowSpec(1, 1, Bounds.OPEN_CLOSED)
    axis = parts.axes[decl.name] = Axis(decl.name, "session", decl.stream, spec, -1, "session")
    rule = str(semantics.session_gap)
    parts.sessions[decl.name] = ([], 0 if rule == "split" else 2)
    if timeline is None:
        return
    times, per_time = _clock_times(timeline, max(semantics.time_unit, 1))
    listed = seq.session_list(times, decl.window, rule, str(semantics.session_bounds))
    parts.sessions[decl.name] = (listed, 0 if rule == "split" else 2)
    session_of = seq.session_numbers(times, decl.window, rule)
    parts.numbers[decl.name] = tuple(zip(times, session_of, strict=True))
    parts.virtual[axis.source] = _session_timeline(timeline, session_of, per_time)


def _time_axis(query: RspqlQuery, name: str, semantics: Semantics) -> Axis:
    decl = next(w for w in query.windows if w.name == name)
    spec = WindowSpec(decl.width, decl.slide, Bounds(semantics.bounds))
    return Axis(name, "time", decl.stream, spec, 0, "t")


def _by_place(
    query: RspqlQuery,
    semantics: Semantics,
    counted: Sequence[CountWindowDecl],
    disorder: Mapping[str, Disorder],
) -> bool:
    """Are slides ordered by delivery alone (counting deliveries out of order)?

    The contract leaves a query that mixes such a count window with windows
    of other kinds undefined: refused.
    """
    out_of_order = {d.stream for d in counted if disorder.get(d.stream) is not None}
    disordered = [s for s in out_of_order if _moves(disorder[s])]
    if semantics.count_order != "arrival" or not disordered:
        return False
    others = [d for d in query.declared if d.kind not in ("rows", "triples")]
    if others:
        raise UnsupportedQueryError(
            f"count windows with count_order: arrival over <{disordered[0]}>, delivered "
            f"out of order, beside the {others[0].kind} window <{others[0].name}>: ET is "
            f'not defined for this mix ({CONTRACT}, "Several windows in one query").\n'
            "HINT: count_order: time, or a stream without disorder."
        )
    return True


def _moves(disorder: Disorder) -> bool:
    return bool(disorder.late or disorder.duplicates)


def _countings(
    counted: Sequence[CountWindowDecl],
    semantics: Semantics,
    timelines: Mapping[str, Timeline],
    streams: Sequence[Stream],
    disorder: Mapping[str, Disorder],
) -> dict[str, sl.Counting]:
    """Per stream a count window reads, its counting order."""
    wanted = {d.stream for d in counted}
    if semantics.count_order == "arrival" and wanted:
        return sl.arrival_orders(streams, disorder)
    position = {s.iri: k for k, s in enumerate(streams)}
    out = {}
    for iri in wanted:
        if iri in timelines:
            out[iri] = sl.time_order(_events(timelines[iri])[0], position.get(iri, 0))
    return out


def _events(timeline: Timeline) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each event's time and triple count, in stream order."""
    counts = getattr(timeline, "events", None)
    sizes = getattr(timeline, "event_sizes", None)
    if counts is None or sizes is None:
        raise OracleError(
            "the stream's timeline does not list its events (a stream cache entry of "
            "an older format?); count windows need them.\nHINT: delete the stream "
            "cache folder (rspbench cache prune) so the stream is written again."
        )
    times = tuple(t for t, n in zip(timeline.times, counts, strict=True) for _ in range(n))
    return times, tuple(sizes)


def _clock_times(timeline: Timeline, unit: int) -> tuple[list[int], list[int]]:
    """The distinct event times on the engine's clock, with their triple counts."""
    merged: dict[int, int] = {}
    sizes = timeline.sizes or (0,) * len(timeline.times)
    for t, n in zip(timeline.times, sizes, strict=True):
        merged[t - t % unit] = merged.get(t - t % unit, 0) + n
    times = sorted(merged)
    return times, [merged[t] for t in times]


def _arrival_stamps(
    kind: str, counting: sl.Counting, sizes: Sequence[int]
) -> tuple[tuple[int, int], ...]:
    """``(event ordinal, value)``: a rows window's axis value of each counted
    event; a triples window's offset from the stream's numbering ``q``."""
    if kind == "rows":
        return tuple((e, j) for j, e in enumerate(counting.events, start=1))
    before = list(itertools.accumulate(sizes, initial=0))  # triples before each event
    out, counted = [], 0
    for e in counting.events:
        out.append((e, counted - before[e - 1]))
        counted += sizes[e - 1]
    return tuple(out)


def _count_timeline(timeline: Timeline, elements: sl.Elements, kind: str) -> Timeline:
    """A count window's axis as a timeline: its elements, each with its
    triples (for counting a slide's triples without Spark)."""
    total = elements.ends[-1]
    if kind == "rows":
        sizes: tuple[int, ...] = elements.triples
    else:
        sizes = (1,) * total
    return Timeline(
        0, total, tuple(range(1, total + 1)), timeline.datatypes, timeline.distinct, sizes
    )


def _session_timeline(timeline: Timeline, numbers: Sequence[int], sizes: Sequence[int]) -> Timeline:
    """A session window's axis as a timeline: each session's triples."""
    per: dict[int, int] = {}
    for number, size in zip(numbers, sizes, strict=True):
        per[number] = per.get(number, 0) + size
    times = tuple(sorted(per))
    return Timeline(
        0, len(times), times, timeline.datatypes, timeline.distinct, tuple(per[n] for n in times)
    )


def _copies(
    counted: Sequence[CountWindowDecl], parts: _Parts
) -> tuple[dict[str, tuple[tuple[int, int], ...]], dict[str, dict[int, tuple[int, ...]]]]:
    """Place every correct content of a tie past the real elements (see the
    module's diagram): the copied rows, and each slide's axis windows. The
    copies repeat triples, so their window's triples are counted by Spark."""
    copies: dict[str, tuple[tuple[int, int], ...]] = {}
    choices: dict[str, dict[int, tuple[int, ...]]] = {}
    total = 0
    for decl in counted:
        listed = parts.slides[decl.name]
        if not any(s.choices for s in listed):
            continue
        axis = parts.axes[decl.name]
        rows, windows = _placed(listed, axis.spec, parts.virtual[axis.source].end)
        total += len(rows)
        if total > MAX_COPIES:
            raise UnsupportedQueryError(
                f"count_ties any: the correct contents of <{decl.name}>'s ties would copy "
                f'more than {MAX_COPIES:,} elements ({CONTRACT}, "Which elements at a '
                "tie\").\nHINT: pin count_ties: arrival in the spec's semantics."
            )
        copies[decl.name], choices[decl.name] = rows, windows
        held = parts.virtual[axis.source]
        parts.virtual[axis.source] = Timeline(0, 0, held.times, held.datatypes)
    return copies, choices


def _placed(
    listed: Sequence[sl.CountSlide], spec: WindowSpec, elements: int
) -> tuple[tuple[tuple[int, int], ...], dict[int, tuple[int, ...]]]:
    """The copies of one window's correct contents: ``(position, axis value)``
    rows, and per slide number the axis windows holding its contents."""
    n, step = spec.width, spec.slide
    spacing = step * -(-n // step)  # a multiple of the step, at least n
    base = spacing * (-(-(elements + n) // spacing) + 1)
    rows: list[tuple[int, int]] = []
    windows: dict[int, tuple[int, ...]] = {}
    at = 0
    for number, slide in enumerate(listed):
        if not slide.choices:
            continue
        indices = []
        for content in slide.choices:
            value = base + at * spacing
            rows += [(position, value) for position in content]
            indices.append(value // step - 1)
            at += 1
        windows[number] = tuple(indices)
    return tuple(rows), windows


@dataclass(frozen=True)
class _Located:
    """The streams as :func:`.planning.layout` reads them."""

    timelines: Mapping[str, Timeline]
    streams: Sequence[Stream]
    starts: Mapping[str, int]


def _classes(
    query: RspqlQuery,
    semantics: Semantics,
    located: _Located,
    inputs: seq.Inputs,
) -> tuple[
    tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], tuple[tuple[seq.Step, ...], ...], int
]:
    """The time windows' t0 classes (one when there are none) and ET in each."""
    if not query.windows:
        listed = tuple(seq.steps(inputs, {}, ()))
        stable = min((s.time for s in listed), default=0)
        return (((), ()),), (listed,), stable
    lay = layout(query, semantics, located.timelines, located.streams, located.starts)
    phase = 0 if Bounds(semantics.bounds) is Bounds.CLOSED_OPEN else 2
    classes, steps = [], []
    for class_plan in plan_classes(lay, semantics).plans:
        timed = {w.name: seq.TimeWindow(w.spec, w.t0, phase) for w in class_plan.windows}
        closes = [(e.time, e.triggers) for e in class_plan.evaluations if e.triggers]
        classes.append((class_plan.first, class_plan.last))
        steps.append(tuple(seq.steps(inputs, timed, closes)))
    return tuple(classes), tuple(steps), lay.stable_from
