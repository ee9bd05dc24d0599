"""Count and session windows' departures, named by the variant that explains them.

The stream is ``specs/windows/data/readings.n3t``'s shape: six events of two
triples at 1, 2, 4, 5, 8 and 9 s, and the engines' reported (time, window)
are what faulty-count-triples, faulty-count-off-by-one and
faulty-session-merge report on it.
"""

from __future__ import annotations

from pytest_rspbench.rsp.counting import CountWindow
from pytest_rspbench.rsp.outputs import Received, Result
from pytest_rspbench.rsp.rspql import CountWindowDecl, SessionWindowDecl
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.sessions import SessionWindow
from pytest_rspbench.verdict.variants import evaluations, labels, variant

S = "http://s"
EVENTS = {S: [(t, 2) for t in (1000, 2000, 4000, 5000, 8000, 9000)]}
PROFILE = Semantics(
    windows=("rows", "triples", "session"), count_order="time", count_ties="arrival",
    count_rampup="report", count_tick="tuple-driven", count_bounds="[first,last]",
    session_gap="split", session_bounds="[first,last]",
)  # fmt: skip
ROWS = CountWindowDecl("w", S, CountWindow("rows", 3, 2))


def told(*evaluated: tuple[int, tuple[int, int] | None]) -> list[Received]:
    return [Received(Result((), t, w), 0.0, None) for t, w in evaluated]


def test_the_profile_s_own_output_is_no_departure() -> None:
    #   [ROWS 3 STEP 2]: after events 2, 4, 6
    assert evaluations(ROWS, PROFILE, EVENTS[S]) == [
        (2000, (1000, 2000)), (5000, (2000, 5000)), (9000, (5000, 9000)),
    ]  # fmt: skip
    assert variant([ROWS], PROFILE, EVENTS, told(*evaluations(ROWS, PROFILE, EVENTS[S])), 0) is None


def test_triples_counted_for_events() -> None:
    # [TRIPLES 3 STEP 2] over two-triple events: every event, 1.5 events held.
    engine = told((1000, (1000, 1000)), (2000, (1000, 2000)), (4000, (2000, 4000)),
                  (5000, (4000, 5000)))  # fmt: skip
    assert variant([ROWS], PROFILE, EVENTS, engine, 0) == "count-unit"


def test_one_element_too_many_on_the_same_slides() -> None:
    engine = told((2000, (1000, 2000)), (5000, (1000, 5000)), (9000, (4000, 9000)))
    assert variant([ROWS], PROFILE, EVENTS, engine, 0) == "count-size"
    # Without reported windows the times are the profile's: nothing to name.
    untold = told((2000, None), (5000, None), (9000, None))
    assert variant([ROWS], PROFILE, EVENTS, untold, 0) is None


def test_merged_at_the_gap() -> None:
    #   clicks at 1 2 5 8 12 13 s, gap 3 s: split gives [1,2] [5] [8] [12,13]
    clicks = {S: [(t * 1000, 1) for t in (1, 2, 5, 8, 12, 13)]}
    window = SessionWindowDecl("w", S, SessionWindow(3000))
    engine = told((11000, (1000, 8000)), (16000, (12000, 13000)))
    assert variant([window], PROFILE, clicks, engine, 0) == "session-gap"
    assert labels([window], PROFILE) == "[o,c]"
    assert labels([ROWS, window], PROFILE) == "[o,c]"


def test_only_one_count_or_session_window_counted_in_time_order() -> None:
    engine = told((1000, (1000, 1000)), (2000, (1000, 2000)))
    assert variant([ROWS, ROWS], PROFILE, EVENTS, engine, 0) is None
    arrival = Semantics(**{**PROFILE.__dict__, "count_order": "arrival"})
    assert variant([ROWS], arrival, EVENTS, engine, 0) is None
    assert variant([ROWS], PROFILE, None, engine, 0) is None
