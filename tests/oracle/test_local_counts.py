"""A window's triple count summed from per-time counts equals Spark's count.

:func:`~pytest_rspbench.oracle.t0.assignment.local_counts` replaces a Spark
branch (every triple assigned to its windows, then grouped) by two binary
searches per evaluation and window. The property: on random streams (one or
two, with or without repeated triples), windows, bounds, report policies
(content-change reads open windows up to an instant), t0 (fixed or any),
clock units and registration starts, it gives exactly the counts of
:func:`~pytest_rspbench.oracle.t0.assignment.triple_counts`, or declines (None)
where it cannot know them (a stream that repeats a triple).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.oracle.oracle import on_clock
from pytest_rspbench.oracle.t0.assignment import assigner, local_counts, triple_counts
from pytest_rspbench.oracle.t0.frames import stream_frame
from pytest_rspbench.oracle.t0.planning import plan
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Event, Stream

from helpers.properties import BOUNDS, explore

EX = "http://example.org/"


def stream(iri: str, seed: int, repeats: bool) -> Stream:
    """Events at random milliseconds in [0, 60), one to three triples each;
    with ``repeats`` a triple may come again later."""
    rng = random.Random(seed)
    events = []
    for t in sorted({rng.randrange(0, 60) for _ in range(25)}):
        value = '"v"' if repeats else f'"{t}"'  # "v" again and again: repeated triples
        subjects = 4 if repeats else 1000
        triples = {
            (f"<{EX}x{rng.randrange(subjects)}>", f"<{EX}p>", value)
            for _ in range(rng.randrange(1, 4))
        }
        events.append(Event(t, tuple(sorted(triples))))
    return Stream(iri, lambda: iter(events), f"random {seed}", end=60)


def query(windows: list[tuple[str, int, int]]) -> str:
    declared = "\n".join(
        f"FROM NAMED WINDOW :{name} ON STREAM :{stream} [RANGE {width} STEP {slide}]"
        for name, stream, width, slide in (
            (f"w{k}", "s" if k == 0 else "r", width, slide)
            for k, (_, width, slide) in enumerate(windows)
        )
    )
    body = " ".join(f"{{ WINDOW :w{k} {{ ?x ?p ?v }} }}" for k in range(len(windows)))
    return f"PREFIX : <{EX}>\nREGISTER RStream :out AS SELECT * {declared}\nWHERE {{ {body} }}"


@pytest.mark.spark
@explore(25, spark=True)
@given(
    seed=st.integers(0, 10_000),
    two=st.booleans(),
    width=st.integers(2, 15),
    slide=st.integers(1, 15),
    bounds=BOUNDS,
    report=st.sampled_from(
        [("window-close",), ("window-close", "non-empty-content"), ("content-change",),
         ("periodic",)]
    ),
    t0=st.sampled_from([0, 3, "any"]),
    unit=st.sampled_from([1, 1, 2, 5]),
    start=st.integers(0, 4),
    repeats=st.sampled_from([False, False, False, True]),
)  # fmt: skip
def test_counted_without_spark_as_spark_counts(
    spark: Any, seed: int, two: bool, width: int, slide: int, bounds: str,
    report: tuple[str, ...], t0: Any, unit: int, start: int, repeats: bool,
) -> None:  # fmt: skip
    windows = [("s", width, slide)] + ([("r", slide + 2, slide)] if two else [])
    rsp = parse(query(windows))
    streams = [stream(f"{EX}s", seed, repeats)]
    if two:
        streams.append(stream(f"{EX}r", seed + 1, False))
    starts = {s.iri: start for s in streams}
    semantics = Semantics(
        bounds=bounds, t0=t0, report=report, time_unit=unit,
        period=4 if report == ("periodic",) else None,
    )  # fmt: skip
    data = on_clock(stream_frame(spark, streams, starts, None), unit)
    planned = plan(rsp, semantics, data.timelines)
    counted = local_counts(planned.plans, planned.specs, data.timelines)
    if repeats:
        assert counted is None  # a set's size is not the sum of its times' counts
        return
    assign = assigner(spark, planned.plans, planned.specs)
    rows = triple_counts(data.df, planned.specs, assign, data.distinct).collect()
    assert counted == {(r["cls"], r["win"], r["w"]): r["count"] for r in rows}
    assert counted, "the example should have triples in some window"


def test_a_stream_without_events_counts_nothing() -> None:
    from pytest_rspbench.oracle.t0.planning import Timeline

    rsp = parse(query([("s", 10, 5), ("r", 10, 5)]))
    timelines = {f"{EX}s": Timeline(0, 20, (1, 7, 12), None, True, (2, 1, 3))}
    only_s = {f"{EX}r": Timeline(0, 20, (30,), None, True, (1,)), **timelines}
    planned = plan(rsp, Semantics(bounds="[o,c)", t0=0), only_s)
    counted = local_counts(planned.plans, planned.specs, timelines)  # r has none
    assert counted is not None
    # w0's [0,10): times 1 and 7; [5,15): 7 and 12; [10,20): 12. w1: nothing.
    assert counted == {(0, 0, f"{EX}w0"): 3, (0, 1, f"{EX}w0"): 4, (0, 2, f"{EX}w0"): 3}
