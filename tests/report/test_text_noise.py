"""The failure text leaves out what says nothing: gracious
lines for windows whose borders did not move, and the table of missing
windows when the engine failed before giving any result."""

from __future__ import annotations

from dataclasses import replace

from pytest_rspbench.report.text import failure_text, table
from pytest_rspbench.verdict.metrics import Borders
from pytest_rspbench.verdict.strict import assess

from helpers.verdict import TRUSTED, case, expected, got, output, rel

E = (rel(0, "a", "b"), rel(1, "c"), rel(2, "d", "e", "f"), rel(3, "g"))
CRASH = (
    "engine 'x' stopped unexpectedly: exit code 3 before sending 'registered'\n"
    "--- last lines of the stderr of 'x' ---\nValueError: unsupported window\n"
    "--- end of stderr ---"
)


def test_engine_failing_before_any_result_shows_the_error_without_the_windows():
    a = assess(expected(E), output(error=CRASH), TRUSTED, case("recall >= 1 in every window"))
    lines = failure_text(a, "[o,c)", CRASH).splitlines()
    assert lines[0] == "graded: FAIL — engine error: " + CRASH.splitlines()[0]
    assert "ValueError: unsupported window" in lines
    assert lines[-1] == (
        "no result came from the engine before the error: every expected window "
        "is missing (4 windows, 7 solutions)"
    )
    text = "\n".join(lines)
    assert "missing: {" not in text and "[0,10)" not in text and "threshold" not in text


def test_engine_failing_after_some_results_keeps_the_table():
    #  results for windows 0 and 1, then the crash: which windows were lost
    #  is worth reading
    received = (got("a", "b", window=(0, 10), app=10.0), got("c", window=(10, 20), app=20.0))
    a = assess(
        expected(E), output(*received, error=CRASH), TRUSTED, case("recall >= 1 in every window")
    )
    text = failure_text(a, "[o,c)", CRASH)
    assert "no result came" not in text
    assert "[20,30)" in text and "missing: {?x=<http://ex/d>}" in text


def _rows(shift: int, gracious_recall: float):
    """Windows [0,10) and [10,20); the first one's gracious borders moved by
    ``shift``, the second one's did not."""
    received = (got("a", "b", window=(0, 10), app=10.0), got("c", window=(10, 20), app=20.0))
    first, second = assess(expected(E[:2]), output(*received), TRUSTED, case()).rows
    moved = Borders((shift, 10 + shift), 1.0, gracious_recall, 1.0, shift, shift)
    still = Borders((10, 20), 1.0, 1.0, 1.0, 0, 0)
    return [replace(first, gracious=moved), replace(second, gracious=still)]


def test_gracious_line_only_when_a_border_moved_or_the_scores_differ():
    #  [0,10)   gracious borders [5,15): shown
    #  [10,20)  gracious borders [10,20), same scores: not repeated
    moved = table(_rows(5, 1.0), "[o,c)")
    assert moved.count("gracious:") == 1
    assert "gracious: borders [5,15) (shift +5/+5 ms" in moved
    assert "gracious:" not in table(_rows(0, 1.0), "[o,c)")
    rescored = table(_rows(0, 0.5), "[o,c)")
    assert rescored.count("gracious:") == 1
    assert "gracious: borders [0,10) (shift +0/+0 ms" in rescored
