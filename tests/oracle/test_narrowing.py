"""Narrowing many t0 classes to those the engine's reports can come from.

A stream stamped at every millisecond has one t0 class per millisecond of
the slide; the oracle computes only the classes whose evaluation times or
windows fit what the engine reported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.engine.api import Result, Semantics
from pytest_rspbench.oracle import narrowing
from pytest_rspbench.oracle.narrowing import Reported, narrow
from pytest_rspbench.oracle.streamcache import StreamCache
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.stream.model import Event, Stream

IRI = "http://ex/s"
SLIDE = 1000
ANY = Semantics(bounds="[o,c)", t0="any", report=("window-close",))

INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"
# One event every 3 ms for 4 s: with a 1 s slide, hundreds of t0 classes.
EVENTS = [
    Event(t, ((f"<http://ex/o{t}>", "<http://ex/v>", f'"{t % 97}"^^{INTEGER}'),))
    for t in range(0, 4000, 3)
]


def stream() -> Stream:
    return Stream(IRI, lambda: iter(EVENTS), "every 3 ms", end=4000)


def query(width: int = 2000) -> Any:
    return parse(
        "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?o ?x\n"
        f"FROM NAMED WINDOW :w ON STREAM <{IRI}> [RANGE {width} STEP {SLIDE}]\n"
        "WHERE { WINDOW :w { ?o :v ?x FILTER(?x > 90) } }"
    )


def plans(query_: Any = None) -> list[Any]:
    from pytest_rspbench.oracle.planning import Timeline, _plans
    from pytest_rspbench.rsp.windows import Bounds, WindowSpec

    q = query_ or query()
    (w,) = q.windows
    specs = {w.name: (IRI, WindowSpec(w.width, w.slide, Bounds("[o,c)")))}
    times = tuple(e.time for e in EVENTS)
    return _plans(q, specs, {IRI: Timeline(0, 4000, times)}, ANY, 4000)


def closes(t0: int, width: int = 2000) -> tuple[int, ...]:
    """The window closes of an engine with this t0 (ASCII: width 2000, slide 1000)::

    t0=345  [345 ---------- 2345)
                  [1345 ---------- 3345)
    """
    return tuple(c for c in range(t0 + width, 4001, SLIDE))


def test_the_stream_has_more_classes_than_are_computed_at_once() -> None:
    assert len(plans()) > narrowing.NARROW_ABOVE


def test_reported_evaluation_times_pick_the_engines_class() -> None:
    all_plans = plans()
    narrowed = narrow(all_plans, Reported(times=closes(345)), stable_from=999)
    assert narrowed is not None
    (chosen,) = [all_plans[k] for k in narrowed.chosen]
    # Events every 3 ms: neighbouring t0s can put the same events in windows.
    assert chosen.first[0] <= 345 <= chosen.last[0]
    assert narrowed.total == len(all_plans)
    assert narrowed.reason.startswith(f"1 of {len(all_plans):,} t0 classes computed")


def test_reported_windows_pick_the_engines_class() -> None:
    all_plans = plans()
    windows = tuple((c - 2000, c) for c in closes(700))
    narrowed = narrow(all_plans, Reported(windows=windows), stable_from=999)
    assert narrowed is not None
    (chosen,) = [all_plans[k] for k in narrowed.chosen]
    assert chosen.first[0] <= 700 <= chosen.last[0]


def test_a_window_of_another_width_fits_no_class() -> None:
    all_plans = plans()
    windows = tuple((c - 1500, c) for c in closes(700))
    narrowed = narrow(all_plans, Reported(windows=windows), stable_from=999)
    assert narrowed is not None
    assert len(narrowed.chosen) == narrowing.KEEP
    assert narrowed.reason.startswith("none of the")


def test_transient_results_before_t_s_are_not_used() -> None:
    all_plans = plans()
    # A partial window closing at 500 (before t_s = 999) says nothing.
    narrowed = narrow(all_plans, Reported(times=(500, *closes(345))), stable_from=999)
    assert narrowed is not None and len(narrowed.chosen) == 1


def test_nothing_reported_or_few_classes_narrow_nothing() -> None:
    all_plans = plans()
    assert narrow(all_plans, Reported(), stable_from=999) is None
    few = all_plans[: narrowing.NARROW_ABOVE]
    assert narrow(few, Reported(times=closes(345)), stable_from=999) is None


def test_reported_is_read_from_results() -> None:
    results = [Result((), 10, (0, 10)), Result((), None, None), Result((), 20, None)]
    assert Reported.of(results) == Reported((10, 20), ((0, 10),))
    assert not Reported.of([Result(())])


@pytest.mark.spark
def test_the_narrowed_output_is_the_fixed_t0_output(spark: Any, tmp_path: Path) -> None:
    """Computing only the engine's class gives exactly what the oracle gives
    when the profile fixes that t0, and the output says it was narrowed."""
    from pytest_rspbench.oracle.oracle import expected_output

    cache = StreamCache(tmp_path)
    narrowed = expected_output(
        spark, query(), [stream()], ANY, cache=cache, reported=Reported(times=closes(345))
    )
    fixed = expected_output(
        spark,
        query(),
        [stream()],
        Semantics(bounds="[o,c)", t0=345, report=("window-close",)),
        cache=cache,
    )
    (cls,) = narrowed.classes
    assert cls.first <= 345 <= cls.last
    assert narrowed.total_classes == len(plans()) > 1
    assert "1 of" in narrowed.narrowing
    assert outline(cls) == outline(fixed.classes[0])
    assert any(bindings for _, _, bindings in outline(cls))


def outline(cls: Any) -> list[Any]:
    return [
        (r.index, r.window[1] - r.window[0], sorted(sorted(b.items()) for b in r.bindings))
        for r in cls.relations
    ]


@pytest.mark.spark
def test_a_narrowed_output_is_stored_under_its_classes(spark: Any, tmp_path: Path) -> None:
    from pytest_rspbench.oracle.oracle import expected_output

    cache = StreamCache(tmp_path)

    def run(t0: int) -> Any:
        return expected_output(
            spark,
            query(),
            [stream()],
            ANY,
            cache=cache,
            keep=True,
            reported=Reported(times=closes(t0)),
        )

    first = run(345)
    again = run(345)
    other = run(700)
    assert not first.stored and again.stored and not other.stored
    assert again.narrowing == first.narrowing and again.total_classes == first.total_classes
    (cls,) = other.classes
    assert cls.first <= 700 <= cls.last
