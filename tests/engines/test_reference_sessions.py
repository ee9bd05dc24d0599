"""The reference engine's session windows: split or merge at the gap, bounds, flush."""

from __future__ import annotations

from typing import Any

import pytest

from helpers.reference import query, run, triple, who

SESSION = {"session_gap": "split", "session_bounds": "[first,last]"}
ANY = "WINDOW :w { ?s ?p ?o }"

# time       1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16
# clicks     *  *        *        *           *  *
# split <3   [1--2]      [5]      [8]         [12-13]
# merge <=3  [1--2--------5--------8]         [12-13]
# the input ends at 14: the open session {12, 13} is flushed, at 16
CLICKS = [(t, [triple(f"c{t}", "on", "page")]) for t in (1, 2, 5, 8, 12, 13)]


def sessions(stream=CLICKS, end: int = 14, gap: str = "3", **profile: Any) -> list:
    text = query("RStream", f"FROM NAMED WINDOW :w ON STREAM :s [SESSION {gap}]", ANY, "?s")
    out = run(text, stream, end, **{**SESSION, **profile})
    return [(r.time, r.window, who(r)) for r in out]


def test_split_at_exactly_the_gap() -> None:
    assert sessions() == [
        (5, (1, 2), ["c1", "c2"]),
        (8, (5, 5), ["c5"]),
        (11, (8, 8), ["c8"]),
        (16, (12, 13), ["c12", "c13"]),
    ]


def test_merge_at_exactly_the_gap() -> None:
    assert sessions(session_gap="merge") == [
        (11, (1, 8), ["c1", "c2", "c5", "c8"]),
        (16, (12, 13), ["c12", "c13"]),
    ]


def test_flink_bounds_end_one_gap_after_the_last_event() -> None:
    assert [w for _, w, _ in sessions(session_bounds="[first,last+gap)")] == [
        (1, 5),
        (5, 8),
        (8, 11),
        (12, 16),
    ]


def test_gap_as_a_duration() -> None:
    ms = [(t * 1000, e) for t, e in CLICKS]
    assert [w for _, w, _ in sessions(ms, end=14000, gap="3s")] == [
        (1000, 2000),
        (5000, 5000),
        (8000, 8000),
        (12000, 13000),
    ]


def test_a_split_session_closes_before_the_event_at_its_close_time() -> None:
    # split: the session {2} closes at 5, before the event at 5; an IStream
    # then streams {2} at 5 and {5} at 8 (each session is new to the previous).
    stream = [(2, [triple("x", "p", "o")]), (5, [triple("y", "p", "o")])]
    text = query("IStream", "FROM NAMED WINDOW :w ON STREAM :s [SESSION 3ms]", ANY, "?s")
    out = run(text, stream, 20, **SESSION)
    assert [(r.time, who(r)) for r in out] == [(5, ["x"]), (8, ["y"])]


@pytest.mark.parametrize("tick", ["tuple-driven", "graph-driven", "time-driven"])
def test_content_change_reports_the_open_session_as_it_grows(tick: str) -> None:
    # events of one triple each: every tick evaluates once per event
    out = sessions(report=("content-change",), tick=tick)
    assert out == [
        (1, (1, 1), ["c1"]),
        (2, (1, 2), ["c1", "c2"]),
        (5, (5, 5), ["c5"]),
        (8, (8, 8), ["c8"]),
        (12, (12, 12), ["c12"]),
        (13, (12, 13), ["c12", "c13"]),
    ]


def test_a_profile_without_session_fields_is_refused() -> None:
    text = query("RStream", "FROM NAMED WINDOW :w ON STREAM :s [SESSION 3ms]", ANY)
    with pytest.raises(ValueError, match="does not declare session_bounds"):
        run(text, CLICKS, 14, session_gap="split")
