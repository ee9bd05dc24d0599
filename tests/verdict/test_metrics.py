"""Per-window and per-run metrics, computed by hand.

Windows are tumbling, width 10 ms, bounds [o,c), t0 = 0::

    time  0         10        20        30
    W0    [---------)
    W1              [---------)
    W2                        [---------)
"""

from __future__ import annotations

import math

import pytest

from pytest_rspbench.rsp.outputs import ExpectedRelation, Received, Result
from pytest_rspbench.spec.model import Comparison
from pytest_rspbench.verdict.metrics import (
    iou,
    mean_cpu,
    peak_rss,
    run_metrics,
    scores,
    window_rows,
)

from helpers.verdict import TRUSTED, UNTRUSTED, got, num, rel, sols

CMP = Comparison()


def test_scores_by_hand() -> None:
    assert scores(1, 2, 3) == (0.5, 1 / 3, 0.4)
    assert scores(0, 0, 0) == (
        1.0,
        1.0,
        1.0,
    )  # both empty: nothing wrong, nothing missed
    assert scores(0, 2, 0) == (0.0, 1.0, 0.0)
    assert scores(0, 0, 2) == (1.0, 0.0, 0.0)
    assert scores(0, 1, 1) == (0.0, 0.0, 0.0)  # F1 is 0, not a division by zero


def test_yabench_fig5_shifted_window() -> None:
    """YABench Fig. 5: the engine's window is shifted later than the ideal one.

    A query asking for every statement; s1..s4 at 1, 5, 8 and 12 ms::

        time   0   1       5     8       12      17
        W_e    [---s1------s2----s3--)               ideal [0,10)
        W_a                   [--s3------s4----)     actual [7,17)

    The engine outputs {s3, s4} for W_e = {s1, s2, s3}: one of the two
    results is right (precision 1/2), one of the three expected (recall 1/3).
    """
    expected = [rel(0, "s1", "s2", "s3")]
    actual = [got("s3", "s4", window=(0, 10))]
    (row,), aligned = window_rows(expected, actual, TRUSTED, CMP)
    assert aligned.rule == "window"
    assert row.precision == pytest.approx(1 / 2)
    assert row.recall == pytest.approx(1 / 3)
    assert row.f1 == pytest.approx(2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))
    assert (row.expected, row.actual) == (3, 2)
    assert [dict(s)["x"] for s in row.missing] == ["<http://ex/s1>", "<http://ex/s2>"]
    assert [dict(s)["x"] for s in row.unexpected] == ["<http://ex/s4>"]


def test_delay_is_arrival_minus_close_latest_result() -> None:
    expected = [rel(0, "a"), rel(1, "b")]
    actual = [
        got("a", window=(0, 10), app=13.0),
        got("b", window=(10, 20), app=21.5),
        got("b", window=(10, 20), app=26.0),  # the window's last result counts
    ]
    rows, _ = window_rows(expected, actual, TRUSTED, CMP)
    assert [r.delay for r in rows] == [3.0, 6.0]


def test_no_arrival_time_no_delay() -> None:
    rows, _ = window_rows([rel(0, "a")], [got("a", window=(0, 10))], TRUSTED, CMP)
    assert rows[0].delay is None
    assert math.isnan(rows[0].metric("delay"))


def test_leftover_results_become_rows_with_precision_zero() -> None:
    rows, aligned = window_rows(
        [rel(0, "a")],
        [got("a", window=(0, 10)), got("z", window=(50, 60))],
        TRUSTED,
        CMP,
    )
    assert aligned.leftovers == (1,)
    assert [(r.index, r.window, r.precision, r.recall) for r in rows] == [
        (0, (0, 10), 1.0, 1.0),
        (None, (50, 60), 0.0, 1.0),
    ]


def test_iou_by_hand() -> None:
    # A = {a, b, b}, E = {b, c}: A ∩ E = {b} (1), A ∪ E = {a, b, b, c} (4).
    assert iou([sols("a", "b"), sols("b")], [sols("b", "c")], CMP) == 0.25
    assert iou([], [], CMP) == 1.0
    assert iou([sols("a")], [], CMP) == 0.0


def test_iou_ignores_windows() -> None:
    # RMLStreamer's completeness: the whole output, wherever it was reported.
    assert iou([sols("a"), sols("b")], [sols("b"), sols("a")], CMP) == 1.0


def test_run_metrics_by_hand() -> None:
    expected = [rel(0, "a"), rel(1, "b"), rel(2, "c"), rel(3, "d")]
    actual = [
        got("a", window=(0, 10), app=10.0),
        got("b", window=(10, 20), app=30.0),
        got("c", window=(20, 30), app=40.0),
        got("x", window=(30, 40), app=80.0),
    ]
    samples = [
        {"t": 0.0, "rss": 100, "cpu": 999.0},  # the first sample covers no interval
        {"t": 0.5, "rss": 300, "cpu": 50.0},
        {"t": 1.0, "rss": 200, "cpu": 100.0},
    ]
    rows, _ = window_rows(expected, actual, TRUSTED, CMP)
    run = run_metrics(expected, actual, rows, CMP, samples)
    # delays 0, 10, 10, 40: p50 = 10, p95 rank 2.85 -> 10 + 0.85 * 30.
    assert (run.delay_p50, run.delay_max) == (10.0, 40.0)
    assert run.delay_p95 == pytest.approx(35.5)
    assert run.iou == 3 / 5
    assert (run.peak_rss, run.mean_cpu) == (300, 75.0)


def test_samples_as_objects_or_missing() -> None:
    class Sample:
        def __init__(self, rss: int, cpu: float) -> None:
            self.rss, self.cpu = rss, cpu

    assert peak_rss([Sample(5, 0.0), Sample(7, 10.0)]) == 7
    assert mean_cpu([Sample(5, 0.0), Sample(7, 10.0)]) == 10.0
    assert peak_rss([]) is None and mean_cpu([]) is None
    assert mean_cpu([Sample(1, 3.0)]) is None  # one sample: no interval


def test_value_equality_in_windows() -> None:
    one, same = num("1"), num("1.0", "double")
    expected = [ExpectedRelation(0, 10, (0, 10), ({"x": one},), 0)]
    actual = [Received(Result(({"x": same},), None, (0, 10)), 0.0, None)]
    rows, _ = window_rows(expected, actual, TRUSTED, Comparison(literal_equality="value"))
    assert (rows[0].precision, rows[0].recall) == (1.0, 1.0)
    rows, _ = window_rows(expected, actual, TRUSTED, CMP)
    assert (rows[0].precision, rows[0].recall) == (0.0, 0.0)


def test_rows_are_reproducible_to_the_last_digit() -> None:
    expected = [rel(i, *[f"s{j}" for j in range(i % 7)]) for i in range(40)]
    actual = [
        got(
            *[f"s{j}" for j in range(i % 5)],
            window=(i * 10, i * 10 + 10),
            app=i * 10 + 10 + i / 3,
        )
        for i in range(40)
    ]
    first = repr(window_rows(expected, actual, UNTRUSTED, CMP))
    again = repr(window_rows(list(expected), list(actual), UNTRUSTED, CMP))
    assert first == again
