"""Threshold expressions: parsing, units, aggregates, ``mostly`` and NaN.

Per-window rows are plain dicts here; no spec, engine or Spark is involved.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.spec.thresholds import (
    RUN_METRICS,
    WINDOW_METRICS,
    Threshold,
    ThresholdSyntaxError,
    evaluate,
    parse,
    percentile,
)

NAN = math.nan


def rows(metric: str, *values: float) -> list[dict[str, float]]:
    """One row per window with ``metric`` set (other metrics are not read)."""
    return [{metric: v} for v in values]


# --- parsing ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "metric", "op", "value", "aggregate"),
    [
        # The forms of the module docstring.
        ("recall >= 0.99 in every window", "recall", ">=", 0.99, None),
        ("precision >= 1", "precision", ">=", 1.0, None),
        ("mean(f1) >= 0.95", "f1", ">=", 0.95, "mean"),
        ("p10(f1) >= 0.95", "f1", ">=", 0.95, "p10"),
        ("f1.p10 >= 0.95", "f1", ">=", 0.95, "p10"),
        ("delay.p95 <= 300ms", "delay", "<=", 300.0, "p95"),
        # Every operator, aggregate and metric.
        ("min(recall) > 0.5", "recall", ">", 0.5, "min"),
        ("max(delay) < 1000", "delay", "<", 1000.0, "max"),
        ("median(actual) == 3", "actual", "==", 3.0, "median"),
        ("expected.mean >= 1", "expected", ">=", 1.0, "mean"),
        ("triples >= 0", "triples", ">=", 0.0, None),
        ("p99.9(delay) <= 2s", "delay", "<=", 2000.0, "p99.9"),
        ("p100(delay) <= 2s", "delay", "<=", 2000.0, "p100"),
        ("delay.p99.5 <= 2s", "delay", "<=", 2000.0, "p99.5"),
        ("p0(f1) >= 0", "f1", ">=", 0.0, "p0"),
        # Spacing and number forms.
        ("  recall>=0.9  ", "recall", ">=", 0.9, None),
        ("mean( f1 ) >= 1e-1", "f1", ">=", 0.1, "mean"),
        ("delay <= -5", "delay", "<=", -5.0, None),
    ],
)
def test_parse(text: str, metric: str, op: str, value: float, aggregate: str | None) -> None:
    threshold = parse(text)
    assert threshold == Threshold(text, metric, op, pytest.approx(value), aggregate)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("delay <= 300ms", 300.0),
        ("delay <= 300", 300.0),  # no unit: milliseconds
        ("delay.p95 <= 0.3s", 300.0),
        ("delay <= 2s", 2000.0),
        ("recall >= 99%", 0.99),
        ("mean(precision) >= 50%", 0.5),
        ("f1 >= 100%", 1.0),
    ],
)
def test_units(text: str, value: float) -> None:
    assert parse(text).value == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        (
            "recall is high",
            "cannot read threshold 'recall is high'",
            "write '<metric> <op> <number> [in every window]' or "
            "'<aggregate>(<metric>) <op> <number>', "
            "e.g. 'recall >= 0.99 in every window'",
        ),
        ("recall >= ", "cannot read threshold 'recall >= '", None),
        ("recall => 0.9", "cannot read threshold 'recall => 0.9'", None),
        ("recall >= .9", "cannot read threshold 'recall >= .9'", None),
        ("recall >= 0.9 in all windows", "cannot read threshold", None),
        ("Recall >= 0.9", "cannot read threshold 'Recall >= 0.9'", None),
        (
            "recal >= 0.9",
            "unknown metric 'recal' in threshold 'recal >= 0.9'",
            "metrics are: "
            + ", ".join(WINDOW_METRICS + RUN_METRICS)
            + ", and mismatch(<engine>, <engine>). Did you mean 'recall'?",
        ),
        (
            "avg(recall) >= 0.9",
            "unknown aggregate 'avg' in threshold 'avg(recall) >= 0.9'",
            "use mean, min, max, median or pNN (e.g. p95)",
        ),
        ("recall.p999 >= 0.9", "unknown aggregate 'p999'", None),
        ("p101(delay) <= 5", "unknown aggregate 'p101'", None),
        (
            "mean(recall) >= 0.9 in every window",
            "'mean(recall) >= 0.9 in every window' aggregates over windows "
            "and also says 'in every window'",
            "drop one of the two",
        ),
        (
            "recall >= 1s",
            "unit 's' does not fit metric 'recall' in threshold 'recall >= 1s'",
            "ms and s are for delay and shifts, % for ratios (precision, recall, "
            "f1, iou, mismatch) and mean_cpu, B/KB/MB/GB/KiB/MiB/GiB for peak_rss; "
            "counts take a plain number",
        ),
        ("delay <= 50%", "unit '%' does not fit metric 'delay'", None),
        ("actual >= 5ms", "unit 'ms' does not fit metric 'actual'", None),
    ],
)
def test_parse_errors(text: str, message: str, hint: str | None) -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse(text)
    assert str(info.value).startswith(message)
    if hint is not None:
        assert info.value.hint == hint
    assert isinstance(info.value, ValueError)  # callers that only know Python


# --- per-window thresholds and mostly ---------------------------------------


def test_every_window_must_pass() -> None:
    outcome = evaluate(parse("recall >= 0.9 in every window"), rows("recall", 1, 0.9, 0.5, 1))
    assert not outcome.ok
    assert outcome.failing == (2,)
    assert outcome.measured == 0.75  # share of windows that pass
    assert outcome.detail == "3 of 4 windows pass"


def test_no_aggregate_means_per_window() -> None:
    outcome = evaluate(parse("precision >= 1"), rows("precision", 1, 1))
    assert outcome.ok
    assert (outcome.failing, outcome.measured, outcome.detail) == (
        (),
        1.0,
        "2 of 2 windows pass",
    )


@pytest.mark.parametrize(
    ("mostly", "ok", "detail"),
    [
        (0.75, True, "3 of 4 windows pass (need 75%)"),
        (0.8, False, "3 of 4 windows pass (need 80%)"),
        (1.0, False, "3 of 4 windows pass"),
    ],
)
def test_mostly(mostly: float, ok: bool, detail: str) -> None:
    outcome = evaluate(parse("recall >= 1"), rows("recall", 1, 1, 0, 1), mostly=mostly)
    assert (outcome.ok, outcome.detail, outcome.failing) == (ok, detail, (2,))


def test_mostly_tolerates_rounding() -> None:
    # 2 of 3 windows is 0.666...; 'mostly: 0.6666666666666666' must still pass.
    outcome = evaluate(parse("recall >= 1"), rows("recall", 1, 1, 0), mostly=2 / 3)
    assert outcome.ok


def test_no_windows_passes_a_per_window_threshold() -> None:
    outcome = evaluate(parse("recall >= 1"), [])
    assert outcome.ok
    assert (outcome.measured, outcome.detail) == (1.0, "0 of 0 windows pass")


@pytest.mark.parametrize(
    ("text", "value", "ok"),
    [
        ("recall >= 0.5", 0.5, True),
        ("recall > 0.5", 0.5, False),
        ("recall <= 0.5", 0.5, True),
        ("recall < 0.5", 0.5, False),
        ("recall == 0.5", 0.5, True),
        ("recall == 0.5", 0.51, False),
    ],
)
def test_operators_at_the_boundary(text: str, value: float, ok: bool) -> None:
    assert evaluate(parse(text), rows("recall", value)).ok is ok


# --- aggregates and percentiles ---------------------------------------------


@pytest.mark.parametrize(
    ("aggregate", "expected"),
    [
        # Values 10, 20, 30, 40, 50 (given out of order below).
        ("mean", 30.0),
        ("min", 10.0),
        ("max", 50.0),
        ("median", 30.0),
        ("p0", 10.0),
        ("p10", 14.0),  # rank (5-1)*0.10 = 0.4: 10 + 0.4*(20-10)
        ("p25", 20.0),  # rank 1.0 exactly
        ("p95", 48.0),  # rank 3.8: 40 + 0.8*(50-40)
        ("p100", 50.0),
    ],
)
def test_aggregates_by_hand(aggregate: str, expected: float) -> None:
    outcome = evaluate(parse(f"{aggregate}(delay) <= 1000"), rows("delay", 30, 10, 50, 20, 40))
    assert outcome.measured == pytest.approx(expected)
    assert outcome.ok
    assert outcome.failing == ()


def test_percentile_by_hand() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    # 1..20: p95 rank = 19*0.95 = 18.05 -> 19 + 0.05*(20-19).
    assert percentile(list(range(1, 21)), 95) == pytest.approx(19.05)
    assert percentile([7], 95) == 7
    assert percentile([3, 1, 2], 50) == 2  # sorted first
    assert math.isnan(percentile([], 50))


def test_aggregate_fails_when_its_value_misses() -> None:
    outcome = evaluate(parse("delay.p95 <= 300ms"), rows("delay", 100, 200, 900))
    assert not outcome.ok
    assert outcome.measured == pytest.approx(830.0)  # rank 1.9: 200 + 0.9*700


@given(
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30),
    st.floats(0, 100),
    st.floats(0, 100),
)
def test_percentile_is_monotone_and_bounded(values: list[float], q1: float, q2: float) -> None:
    low, high = sorted((q1, q2))
    assert min(values) <= percentile(values, low) <= percentile(values, high) + 1e-6
    assert percentile(values, 0) == min(values)
    assert percentile(values, 100) == max(values)


# --- NaN: windows without a value -------------------------------------------


def test_nan_is_left_out_of_a_per_window_threshold() -> None:
    # A window the engine reported nothing for has no delay; recall judges it.
    outcome = evaluate(parse("delay <= 300ms in every window"), rows("delay", 100, NAN, 200))
    assert outcome.ok
    assert outcome.failing == ()
    assert outcome.detail == "2 of 2 windows pass (1 without a value left out)"
    late = evaluate(parse("delay <= 300ms in every window"), rows("delay", 400, NAN))
    assert not late.ok
    assert late.failing == (0,)


@pytest.mark.parametrize(
    ("aggregate", "expected"),
    [
        ("mean", 150.0),
        ("min", 100.0),
        ("max", 200.0),
        ("median", 150.0),
        ("p50", 150.0),
    ],
)
def test_nan_is_left_out_of_aggregates_whatever_its_position(
    aggregate: str, expected: float
) -> None:
    threshold = parse(f"{aggregate}(delay) <= 300ms")
    for values in ((NAN, 100, 200), (100, NAN, 200), (100, 200, NAN)):
        outcome = evaluate(threshold, rows("delay", *values))
        assert outcome.measured == expected
        assert outcome.ok
        assert outcome.detail == (
            f"{aggregate}(delay) = {expected:g} ms (1 of 3 windows without a value left out)"
        )


def test_aggregate_over_no_values_fails() -> None:
    for values in ((), (NAN, NAN)):
        outcome = evaluate(parse("mean(delay) <= 300ms"), rows("delay", *values))
        assert math.isnan(outcome.measured)
        assert not outcome.ok


def test_nan_never_holds() -> None:
    for op in (">=", "<=", ">", "<", "=="):
        assert not parse(f"delay {op} 0").holds(NAN)


# --- run metrics, shares and mismatch ------------------------------------------


@pytest.mark.parametrize(
    ("text", "metric", "value", "scope"),
    [
        ("iou >= 0.9", "iou", 0.9, "run"),
        ("iou >= 90%", "iou", 0.9, "run"),
        ("peak_rss <= 1GB", "peak_rss", 1e9, "run"),
        ("peak_rss <= 512MiB", "peak_rss", 512 * 2**20, "run"),
        ("peak_rss <= 64KB", "peak_rss", 64_000, "run"),
        ("peak_rss <= 1000", "peak_rss", 1000, "run"),  # bytes
        ("mean_cpu <= 150%", "mean_cpu", 150, "run"),  # CPU % stays in %
        ("mean_cpu <= 150", "mean_cpu", 150, "run"),
        ("mismatch(rspjs, reference) <= 0.05", "mismatch", 0.05, "pair"),
        ("mismatch(a.b-1,c_2) <= 5%", "mismatch", 0.05, "pair"),
        ("delay.p95 <= 300ms", "delay", 300, "aggregate"),
        ("recall >= 0.99 in 90% of windows", "recall", 0.99, "window"),
        ("gracious_recall >= 1", "gracious_recall", 1, "window"),
        ("max(shift_end) <= 2s", "shift_end", 2000, "aggregate"),
    ],
)
def test_parse_run_and_pair_metrics(text: str, metric: str, value: float, scope: str) -> None:
    threshold = parse(text)
    assert (threshold.metric, threshold.scope) == (metric, scope)
    assert threshold.value == pytest.approx(value)


def test_parse_pair_engines_and_share() -> None:
    assert parse("mismatch(rspjs, reference) <= 0.05").engines == ("rspjs", "reference")
    assert parse("recall >= 0.99 in 90% of windows").share == pytest.approx(0.9)
    assert parse("recall >= 0.99 in 90% of the windows").share == pytest.approx(0.9)
    assert parse("recall >= 0.99").share is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "iou >= 0.9 in every window",
            "'iou >= 0.9 in every window' is one number per run",
        ),
        (
            "mean(iou) >= 0.9",
            "'iou' is one number per run; 'mean(iou) >= 0.9' cannot aggregate it",
        ),
        ("peak_rss <= 1s", "unit 's' does not fit metric 'peak_rss'"),
        ("recall >= 1GB", "unit 'GB' does not fit metric 'recall'"),
        ("recall >= 1 in 0% of windows", "share 0% in threshold"),
        ("recall >= 1 in 150% of windows", "share 150% in threshold"),
        (
            "mean(recall) >= 1 in 50% of windows",
            "'mean(recall) >= 1 in 50% of windows' aggregates",
        ),
        ("mismatch >= 1", "unknown metric 'mismatch'"),
        (
            "mismatch(a) <= 1",
            "mismatch in threshold 'mismatch(a) <= 1' needs two engines",
        ),
        ("ioo >= 0.9", "unknown metric 'ioo'"),
    ],
)
def test_parse_errors_of_new_forms(text: str, message: str) -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse(text)
    assert str(info.value).startswith(message)
    assert info.value.hint


def test_unknown_metric_suggests_the_closest() -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse("ioo >= 0.9")
    assert info.value.hint.endswith("Did you mean 'iou'?")


def test_run_metric_evaluation() -> None:
    ok = evaluate(parse("iou >= 0.9"), [], run={"iou": 0.95})
    assert (ok.ok, ok.measured, ok.detail) == (True, 0.95, "iou = 0.95")
    rss = evaluate(parse("peak_rss <= 1MiB"), [], run={"peak_rss": 2 * 2**20})
    assert not rss.ok and rss.detail == "peak_rss = 2.0 MiB (2097152 B)"
    missing = evaluate(parse("mean_cpu <= 100"), [], run={"mean_cpu": None})
    assert not missing.ok and "no CPU/memory samples" in missing.detail


def test_share_overrides_mostly() -> None:
    values = rows("recall", 1, 1, 1, 0)
    assert evaluate(parse("recall >= 1 in 75% of windows"), values, mostly=1.0).ok
    assert not evaluate(parse("recall >= 1 in 80% of windows"), values, mostly=0.5).ok


def test_mean_does_not_depend_on_summation_order() -> None:
    values = [1e16, 1.0, -1e16, 1.0]
    outcomes = {
        evaluate(parse("mean(delay) <= 1e20"), rows("delay", *order)).measured
        for order in (values, values[::-1], sorted(values))
    }
    assert outcomes == {0.5}
