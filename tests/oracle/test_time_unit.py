"""``time_unit``: the oracle computes for an engine with a coarser clock.

Such an engine sees each event at its time truncated to its unit, and starts
its windows at a multiple of it (CSRBench Table 1; the reference engine does
the same)::

    unit 1000 ms, (o,c], tumbling 1 s, t0 = 0
    event at 1500   seen at 1000   in (0,1000], not (1000,2000]
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.oracle.t0.planning import Timeline, layout
from pytest_rspbench.rsp.bags import bag
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.stream.model import Event, Stream

from helpers.reference import run, triple

EX = "http://example.org/"
TEXT = (
    f"PREFIX : <{EX}>\nREGISTER RStream :out AS SELECT ?s ?o\n"
    "FROM NAMED WINDOW :w ON STREAM :s [RANGE 1000 STEP 500]\n"
    "WHERE { WINDOW :w { ?s :p ?o } }"
)
EVENTS = [(t, [triple(f"a{t}", "p", f'"{t}"')]) for t in (120, 1500, 1999, 2300, 3001, 3999)]


def test_the_candidates_are_multiples_of_the_unit() -> None:
    times = tuple(range(0, 4000, 7))
    timelines = {EX + "s": Timeline(3, 4000, times)}
    query = parse(TEXT)
    fine = layout(query, Semantics(bounds="(o,c]", t0="any"), timelines)
    coarse = layout(query, Semantics(bounds="(o,c]", t0="any", time_unit=100), timelines)
    assert len(fine.candidates[0]) == 500  # every ms of the slide
    # t0 in [3, 503) is 0, 100, ..., 500 on a 100 ms clock: 0 and 500 open
    # windows at the same times, but 0's first window, (0, 1000], is 500's too
    # early (it closes after t_s = 502, so it is compared)
    assert coarse.candidates[0] == tuple((t, t) for t in range(0, 600, 100))
    fixed = layout(query, Semantics(t0=1234, time_unit=100), timelines)
    assert fixed.candidates == (((1200, 1200),),)


@pytest.mark.spark
@pytest.mark.parametrize("bounds", ["(o,c]", "[o,c)"])
@pytest.mark.parametrize("unit", [1, 500, 1000])
def test_the_oracle_truncates_times_like_the_reference_engine(
    spark: Any, bounds: str, unit: int
) -> None:
    from pytest_rspbench.oracle.oracle import expected_output

    profile = dict(bounds=bounds, t0=250, report=("window-close",), time_unit=unit)
    engine = run(TEXT, EVENTS, 4000, r2s=("RStream",), **profile)
    stream = Stream(
        EX + "s", lambda: iter(Event(t, tuple(ts)) for t, ts in EVENTS), "few", end=4000
    )
    (cls,) = expected_output(
        spark, parse(TEXT), [stream], Semantics(reports_window=True, **profile)
    ).classes
    assert [(r.time, r.window) for r in engine] == [(r.time, r.window) for r in cls.relations]
    assert [bag(r.bindings) for r in engine] == [bag(r.bindings) for r in cls.relations]


@pytest.mark.spark
def test_a_coarse_clock_engine_is_narrowed_and_passes(spark: Any) -> None:
    """A 10 ms clock, a stream registered at 3: t0 candidates 0, 10, ...,
    1000 (101 classes, narrowed by content). One engine starts at its
    registration, 3, which its clock sees as 0; another a slide later, at
    1002, which its clock sees as 1000: its windows are the first's from the
    second on (the first, [0, 1500), closes after t_s = 1002), and it is
    right too."""
    from pytest_rspbench.engine.api import Result
    from pytest_rspbench.engine.harness import ActualOutput, Received
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.t0.narrowing import Reported
    from pytest_rspbench.verdict.strict import assess

    from helpers.verdict import case

    integer = "<http://www.w3.org/2001/XMLSchema#integer>"
    events = [
        Event(t, ((f"<{EX}o{t}>", f"<{EX}v>", f'"{t % 97}"^^{integer}'),)) for t in range(0, 3000)
    ]
    stream = Stream(EX + "s", lambda: iter(events), "every ms", end=3000)
    query = parse(
        f"PREFIX : <{EX}>\nREGISTER RStream :out AS SELECT ?o ?x\n"
        "FROM NAMED WINDOW :w ON STREAM :s [RANGE 1500 STEP 1000]\n"
        "WHERE { WINDOW :w { ?o :v ?x FILTER(?x > 90) } }"
    )
    starts = {EX + "s": 3}

    def profile(t0: Any) -> Semantics:
        return Semantics(bounds="[o,c)", t0=t0, report=("window-close",), time_unit=10)

    for t0 in (3, 1002):
        fixed = expected_output(spark, query, [stream], profile(t0), starts=starts)
        results = [Result(r.bindings) for r in fixed.classes[0].relations]
        expected = expected_output(
            spark, query, [stream], profile("any"), starts=starts, reported=Reported.of(results)
        )
        assert expected.total_classes == 101
        assert len(expected.classes) < 101
        assert all(c.first % 10 == 0 for c in expected.classes)
        actual = ActualOutput("coarse", [Received(r, 0.0, None) for r in results])
        verdict = assess(expected, actual, profile("any"), case(mode="strict"))
        assert verdict.passed, (t0, verdict.narrowing)


def test_one_unit_s_triple_counts_are_added_up() -> None:
    from pytest_rspbench.oracle.t0.planning import coarse

    timeline = Timeline(
        0, 4200, (0, 500, 1000, 1500, 2999, 3000, 4200), sizes=(1, 2, 1, 3, 1, 1, 4)
    )
    (seen,) = coarse({"s": timeline}, 1000).values()
    assert seen.times == (0, 1000, 2000, 3000, 4000)
    assert seen.sizes == (3, 4, 1, 1, 4)
    assert coarse({"s": timeline}, 1) == {"s": timeline}


@pytest.mark.spark
def test_windows_are_counted_on_the_engine_s_clock(spark: Any, tmp_path: Any) -> None:
    """Under non-empty-content a window is evaluated when it holds a triple on
    the engine's clock: the event at 4200, seen at 4000, is in (3000, 4000].
    The oracle counted the window's triples in milliseconds (from the stream
    cache's per-time counts) and left that window out; the reference engine,
    rightly, reported it (found by specs/shapes/clock.rspbench.yaml)."""
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.store.streamcache import stream_cache

    text = TEXT.replace("STEP 500", "STEP 1000")
    events = [(t, [triple(f"a{t}", "p", f'"{t}"')]) for t in (0, 500, 1000, 1500, 2999, 3000, 4200)]
    profile = dict(
        bounds="(o,c]", t0=0, report=("window-close", "non-empty-content"), time_unit=1000
    )
    engine = run(text, events, 4200, r2s=("RStream",), **profile)
    stream = Stream(
        EX + "s", lambda: iter(Event(t, tuple(ts)) for t, ts in events), "clock", end=4200
    )
    (cls,) = expected_output(
        spark,
        parse(text),
        [stream],
        Semantics(reports_window=True, **profile),
        cache=stream_cache("local[*]", tmp_path),
    ).classes
    assert [r.window for r in cls.relations] == [
        (0, 1000),
        (1000, 2000),
        (2000, 3000),
        (3000, 4000),
    ]
    assert [(r.time, r.window) for r in engine] == [(r.time, r.window) for r in cls.relations]
    assert [bag(r.bindings) for r in engine] == [bag(r.bindings) for r in cls.relations]
