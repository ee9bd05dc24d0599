"""The input ends at the latest stream end, for every window of the query.

A stream's ``end`` is when that stream ends, not when its windows stop: the
application clock goes on until the last stream ends (``runner.end_time``,
what the harness tells the engine), and a window of a stream that ended
earlier still closes, and is evaluated, by then. A stream without events
counts too::

    time       1000      1750  2000      3000  3500
    stream1    start                           end     (no events)
    stream2    start      *    end
    w2 [RANGE 2000 STEP 2000], [o,c), t0 = 1000:
               [1000 ............................ 3000)   closes at 3000 <= 3500
    ET         τ=3000  w2 [1000,3000) {the event at 1750}, w1 an empty graph

Plain Python over the plan (no Spark); the specs in
``tests/explore/regressions/stream-ends-before-the-input`` run the whole
case against the reference engine.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_rspbench.errors import OracleError
from pytest_rspbench.oracle.t0 import axes
from pytest_rspbench.oracle.t0.frames import _rows
from pytest_rspbench.oracle.t0.planning import Timeline, input_end, layout, plan_classes
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Event, Stream

S1 = "http://ex/stream1"
S2 = "http://ex/stream2"
STARTS = {S1: 1000, S2: 1000}
SEMANTICS = Semantics(
    bounds="[o,c)",
    t0="registration",
    report=("window-close", "non-empty-content"),
    count_order="time",
    count_ties="arrival",
    count_rampup="report",
    count_tick="tuple-driven",
    count_bounds="[first,last]",
)


def query(w1: str) -> str:
    return (
        "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?x\n"
        f"FROM NAMED WINDOW :w1 ON STREAM <{S1}> [{w1}]\n"
        f"FROM NAMED WINDOW :w2 ON STREAM <{S2}> [RANGE 2000 STEP 2000]\n"
        "WHERE { WINDOW :w1 { ?x :r ?y } WINDOW :w2 { ?x ?p ?o } }"
    )


def stream(iri: str, times: tuple[int, ...], end: int | None) -> Stream:
    def events() -> Iterator[Event]:
        for t in times:
            yield Event(t, (("<http://ex/s>", "<http://ex/r>", f'"{t}"'),))

    return Stream(iri, events, "listed", end=end)


def streams(stream1_times: tuple[int, ...]) -> list[Stream]:
    return [stream(S1, stream1_times, 3500), stream(S2, (1750,), 2000)]


@pytest.mark.parametrize("stream1_times", [(), (1200,)], ids=["empty", "one-event"])
def test_a_time_window_beside_a_count_window_closes_after_its_stream_ends(
    stream1_times: tuple[int, ...],
) -> None:
    listed = streams(stream1_times)
    _, timelines = _rows(listed, STARTS, positioned=True)
    plan = axes.plan(parse(query("ROWS 1 STEP 1")), SEMANTICS, timelines, listed, {}, STARTS)
    (steps,) = plan.steps
    closes = [
        (s.time, s.shown[s.triggers[0]].window) for s in steps if s.triggers[0].endswith("w2")
    ]
    assert closes == [(3000, (1000, 3000))]


def test_a_time_window_over_a_stream_without_events_shows_an_empty_graph() -> None:
    listed = streams(())
    _, timelines = _rows(listed, STARTS)
    assert S1 not in timelines  # the frames keep the streams with events only
    lay = layout(parse(query("RANGE 1000 STEP 1000")), SEMANTICS, timelines, listed, STARTS)
    assert lay.end == 3500
    ((evaluation,),) = [p.evaluations for p in plan_classes(lay, SEMANTICS).plans]
    # Both close at 3000; w1's [2000,3000) is empty, so w2 is the one reported.
    assert (evaluation.time, evaluation.triggers) == (3000, ("http://ex/w1", "http://ex/w2"))
    assert evaluation.active["http://ex/w2"].index == 0  # [1000,3000)


def test_without_non_empty_content_every_close_until_the_input_end_is_evaluated() -> None:
    listed = streams(())
    _, timelines = _rows(listed, STARTS)
    every = Semantics(bounds="[o,c)", t0="registration", report=("window-close",))
    lay = layout(parse(query("RANGE 1000 STEP 1000")), every, timelines, listed, STARTS)
    (plan,) = plan_classes(lay, every).plans
    assert [e.time for e in plan.evaluations] == [2000, 3000]


def test_the_input_end_is_the_latest_declared_end_or_last_event() -> None:
    timelines = {S2: Timeline(0, 2000, (1750,))}
    assert input_end([stream(S1, (), 3500)], timelines) == 3500
    assert input_end([stream(S1, (), None)], timelines) == 2000  # no end, no events
    assert input_end([], {}) == 0


def test_first_event_over_a_stream_without_events_is_refused() -> None:
    listed = streams(())
    _, timelines = _rows(listed, STARTS)
    first = Semantics(bounds="[o,c)", t0="first-event")
    with pytest.raises(OracleError, match="first-event: the window never starts"):
        layout(parse(query("RANGE 1000 STEP 1000")), first, timelines, listed, STARTS)
