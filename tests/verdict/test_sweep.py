"""Load sweeps: the highest comparable load, by hand."""

from __future__ import annotations

from types import SimpleNamespace

from pytest_rspbench.verdict.metrics import RunMetrics
from pytest_rspbench.verdict.sweep import Point, line, point, table


def test_highest_comparable_stops_at_the_first_failure() -> None:
    ln = line("e", (), [Point(4, False), Point(1, True), Point(8, True), Point(2, True)])
    assert [p.value for p in ln.points] == [1, 2, 4, 8]  # sorted by load
    assert ln.comparable == 2
    assert ln.highest_passing == 8


def test_nothing_passes_or_not_run() -> None:
    assert line("e", (), [Point(1, False), Point(2, True)]).comparable is None
    assert line("e", (), [Point(1, True), Point(2, None), Point(4, True)]).comparable == 1


def test_point_from_a_run() -> None:
    rows = [
        SimpleNamespace(precision=1.0, recall=0.5, f1=2 / 3),
        SimpleNamespace(precision=0.5, recall=1.0, f1=2 / 3),
    ]
    run = SimpleNamespace(
        assessment=SimpleNamespace(
            passed=False, rows=rows, run=RunMetrics(1.0, 5.0, 9.0, 10.0, None, None)
        ),
        actual=SimpleNamespace(triples_sent=300, seconds=1.5),
    )
    p = point(2.0, run)
    assert (p.value, p.passed, p.precision, p.recall, p.delay_p95, p.rate) == (
        2.0,
        False,
        0.75,
        0.75,
        9.0,
        200.0,
    )
    assert point(3.0, None) == Point(3.0, None)


def test_table() -> None:
    text = table(
        "speed",
        [
            line(
                "ref",
                (("range", 4000),),
                [
                    Point(1, True, 1, 1, 1, 3.0, 100),
                    Point(2, False, 1, 0.5, 0.6, None, None),
                ],
            )
        ],
    )
    lines = text.splitlines()
    assert lines[0] == "engine ref (range=4000): highest comparable speed = 1"
    assert lines[2].split() == ["1", "pass", "1.000", "1.000", "1.000", "3ms", "100"]
    assert lines[3].split() == ["2", "FAIL", "1.000", "0.500", "0.600", "-", "-"]
