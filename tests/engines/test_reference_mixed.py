"""The reference engine with several window kinds in one query.

Evaluations are ordered by (time, phase, arrival): a ``[o,c)`` window and a
split session close before the events at their close time (phase 0), count
windows slide at an arrival (1), ``(o,c]``/``[o,c]`` windows and merged
sessions close after the events at that time (2). Closes at one (time,
phase) are one evaluation. docs/count-and-session-windows.md.
"""

from __future__ import annotations

from typing import Any

from helpers.reference import EX, query, run, triple, who

A, B = EX + "a", EX + "b"
COUNT = {
    "count_order": "time",
    "count_ties": "arrival",
    "count_rampup": "report",
    "count_tick": "tuple-driven",
    "count_bounds": "[first,last]",
}
SESSION = {"session_gap": "split", "session_bounds": "[first,last]"}
BOTH = "{ WINDOW :t { ?s ?p ?o } } UNION { WINDOW :r { ?s ?p ?o } }"


def on(stream: str, *timed: tuple[int, str]) -> list:
    return [(t, [triple(name, "p", "o")], stream) for t, name in timed]


def mixed(windows: str, stream: list, end: int, **profile: Any) -> list:
    text = query("RStream", windows, BOTH, "?s")
    profile = {"t0": 0, "report": ("window-close", "non-empty-content"), **profile}
    out = run(text, sorted(stream, key=lambda e: e[0]), end, **{**COUNT, **SESSION, **profile})
    return [(r.time, r.window, who(r)) for r in out]


# time   0    1    2    3    4    5    6    7    8
# A      a1             a2        a3
# B           b1             b2             b3
STREAM = on(A, (0, "a1"), (3, "a2"), (5, "a3")) + on(B, (1, "b1"), (4, "b2"), (7, "b3"))
TIME_AND_ROWS = (
    "FROM NAMED WINDOW :t ON STREAM :a [RANGE 4 STEP 4]\nFROM NAMED WINDOW :r ON STREAM :b [ROWS 2]"
)


def test_time_and_count_windows_interleave_by_time_and_phase() -> None:
    # [o,c): [0,4) closes at 4 before b2 arrives at 4 (phase 0 < 1)
    assert mixed(TIME_AND_ROWS, STREAM, 8, bounds="[o,c)") == [
        (1, (1, 1), ["b1"]),
        (4, (0, 4), ["a1", "a2", "b1"]),
        (4, (1, 4), ["a1", "a2", "b1", "b2"]),
        (7, (4, 7), ["a1", "a2", "b2", "b3"]),
        (8, (4, 8), ["a3", "b2", "b3"]),
    ]


def test_an_open_closed_window_closes_after_the_slide_at_its_close_time() -> None:
    # (o,c]: (0,4] holds the events at 4, so it closes after b2's slide
    # (phase 2 > 1); a1 at 0 is on its open start, in no window.
    assert mixed(TIME_AND_ROWS, STREAM, 8, bounds="(o,c]") == [
        (1, (1, 1), ["b1"]),
        (4, (1, 4), ["b1", "b2"]),
        (4, (0, 4), ["a2", "b1", "b2"]),
        (7, (4, 7), ["a2", "b2", "b3"]),
        (8, (4, 8), ["a3", "b2", "b3"]),
    ]


def test_a_time_close_and_a_session_close_at_one_instant_are_one_evaluation() -> None:
    # [RANGE 4 STEP 4] [o,c) on A and [SESSION 3ms] (split) on B:
    # b1 at 1 -> its session closes at 4, phase 0, like [0,4): one evaluation,
    # reported as the first declared window's (the time window).
    windows = (
        "FROM NAMED WINDOW :t ON STREAM :a [RANGE 4 STEP 4]\n"
        "FROM NAMED WINDOW :r ON STREAM :b [SESSION 3ms]"
    )
    stream = on(A, (2, "a1")) + on(B, (1, "b1"))
    assert mixed(windows, stream, 8, bounds="[o,c)") == [(4, (0, 4), ["a1", "b1"])]


def test_non_empty_content_skips_empty_time_windows_between_count_slides() -> None:
    # a one-triple stream B far from A's only event: the 250,000 empty
    # windows in between are stepped over, not evaluated one by one
    stream = on(A, (0, "a1")) + on(B, (1_000_000, "b1"))
    out = mixed(TIME_AND_ROWS, stream, 1_000_004, bounds="[o,c)")
    assert out == [
        (4, (0, 4), ["a1"]),
        (1_000_000, (1_000_000, 1_000_000), ["b1"]),
    ]


def test_content_change_sees_the_present_time_window_and_the_latest_slide() -> None:
    out = mixed(TIME_AND_ROWS, STREAM, 8, bounds="[o,c)", report=("content-change",))
    assert out == [
        (0, (0, 4), ["a1"]),
        (1, (1, 1), ["a1", "b1"]),
        (3, (0, 4), ["a1", "a2", "b1"]),
        (4, (1, 4), ["b1", "b2"]),
        (5, (4, 8), ["a3", "b1", "b2"]),
        (7, (4, 7), ["a3", "b2", "b3"]),
    ]


def test_content_change_counts_a_triple_at_a_new_time_in_the_time_window() -> None:
    # a1 on A at 0 and again at 2, both in [0,4): the second is a new
    # timestamped element of the window, so an evaluation (as for the oracle).
    # A repeat of a1 at 2 adds nothing at 2: no further evaluation.
    stream = on(A, (0, "a1"), (2, "a1"), (2, "a1")) + on(B, (1, "b1"))
    out = mixed(TIME_AND_ROWS, stream, 4, bounds="[o,c)", report=("content-change",))
    assert out == [
        (0, (0, 4), ["a1"]),
        (1, (1, 1), ["a1", "b1"]),
        (2, (0, 4), ["a1", "b1"]),
    ]
