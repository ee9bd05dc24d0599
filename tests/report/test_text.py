"""The failure text: metric, threshold, value, worst windows with bindings."""

from __future__ import annotations

from pytest_rspbench.report.text import failure_text
from pytest_rspbench.verdict.strict import assess

from helpers.verdict import TRUSTED, case, expected, got, output, rel

E = (rel(0, "a", "b"), rel(1, "c"), rel(2, "d", "e", "f"), rel(3, "g"))
RECEIVED = [
    got("a", "b", window=(0, 10), app=10.0),
    got("c", "x", window=(10, 20), app=25.0),  # one extra: precision 0.5
    got("d", window=(20, 30), app=30.0),  # recall 1/3: the worst
    got("g", window=(30, 40), app=40.0),
]


def text(*limits: str, mode: str = "graded", samples=None) -> str:
    a = assess(
        expected(E),
        output(*RECEIVED, samples=samples),
        TRUSTED,
        case(*limits, mode=mode),
    )
    return failure_text(a, "[o,c)", None)


def test_the_first_line_is_the_verdict_with_the_departures() -> None:
    out = text("recall >= 0.9 in every window").splitlines()
    assert out[0] == (
        "graded: FAIL — wrong solutions x2 at [10,20), [20,30); "
        "threshold missed: 'recall >= 0.9 in every window'"
    )
    assert out[1] == "  wrong solutions: solutions differ in a way no other class explains"
    out = text(mode="strict").splitlines()
    assert out[0] == "strict: FAIL — wrong solutions x2 at [10,20), [20,30)"


def test_per_window_threshold_names_value_and_worst_windows() -> None:
    out = text("recall >= 0.9 in every window").splitlines()[2:]  # after the verdict
    assert (
        out[0] == "results aligned by window: the profile trusts the engine's reported "
        "windows (reports_window)"
    )
    assert out[2] == (
        "threshold 'recall >= 0.9 in every window' failed: 3 of 4 windows pass; "
        "worst recall = 0.333333"
    )
    assert out[3] == "worst 1 of 1 window(s) by recall:"
    assert out[6].startswith("[20,30)")
    assert out[7:9] == [
        "    missing: {?x=<http://ex/e>}",
        "    missing: {?x=<http://ex/f>}",
    ]


def test_worst_windows_come_first() -> None:
    out = text("f1 >= 0.9").splitlines()[2:]
    rows = [line for line in out if line.startswith("[")]
    assert rows[0].startswith("[20,30)") and rows[1].startswith("[10,20)")
    assert "    unexpected: {?x=<http://ex/x>}" in out
    assert out[4].rstrip().endswith("f1")  # a column for the metric that failed


def test_aggregate_threshold() -> None:
    out = text("p10(f1) >= 0.9").splitlines()[2:]
    assert out[2] == "threshold 'p10(f1) >= 0.9' failed: p10(f1) = 0.55"
    assert out[3] == "worst 2 of 2 window(s) by f1:"


def test_run_threshold() -> None:
    out = text("iou >= 0.9", "peak_rss <= 1KB", samples=[{"rss": 2048, "cpu": 0.0}]).splitlines()
    assert "threshold 'iou >= 0.9' failed: iou = 0.625" in out
    assert "threshold 'peak_rss <= 1KB' failed: peak_rss = 0.0 MiB (2048 B)" in out


def test_strict_failure_shows_the_differing_windows() -> None:
    out = text(mode="strict")
    assert "strict verdict: no t0 class reproduces the engine's output (1 class(es) tried" in out
    assert "[10,20)" in out and "[20,30)" in out and "[0,10)" not in out
    out = text(mode="containment")
    assert "containment verdict: no t0 class contains the engine's output" in out
