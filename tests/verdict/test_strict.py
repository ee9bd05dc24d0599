"""The strict verdict (equality and CSRBench containment) and thresholds.

Tumbling windows of 10 ms from t0 = 0 (class 0) or another t0 (class 1).
"""

from __future__ import annotations

import pytest

from pytest_rspbench.rsp.outputs import ExpectedRelation, Received, Result
from pytest_rspbench.verdict.strict import assess, match_class

from helpers.verdict import TRUSTED, UNTRUSTED, case, expected, got, num, output, rel, sols

E = (rel(0, "a"), rel(1, "b"), rel(2, "c"), rel(3, "d"), rel(4, "e"))


def results(*names: str, timed: bool = True) -> list:  # type: ignore[type-arg]
    """One result per name, for the window of the same letter in E."""
    out = []
    for name in names:
        index = "abcdexyz".index(name)
        time = index * 10 + 10 if timed else None
        out.append(got(name, time=time, window=(index * 10, index * 10 + 10) if timed else None))
    return out


@pytest.mark.parametrize(
    ("names", "equal", "contained"),
    [
        ("abcde", (0, 5), (0, 5)),
        ("bcd", None, (1, 3)),  # starts late, stops early
        ("abc", None, (0, 3)),  # stops early
        ("cde", None, (2, 3)),  # starts late
        ("bd", None, None),  # a gap
        ("abx", None, None),  # something extra
        ("abcdee", None, None),  # one relation too many
        ("", None, (0, 0)),  # nothing is contained in anything
    ],
)
def test_equality_and_containment(names: str, equal, contained) -> None:  # type: ignore[no-untyped-def]
    cls = expected(E).classes[0]
    for timed in (True, False):
        received = results(*names, timed=timed)
        for mode, want in (("strict", equal), ("containment", contained)):
            span = match_class(cls, received, 0, case(mode=mode).comparison)
            got_span = None if span is None else (span.first, span.count)
            assert got_span == want, (mode, names, timed)


def test_containment_reports_the_matched_relations() -> None:
    a = assess(expected(E), output(*results("b", "c", "d")), TRUSTED, case(mode="containment"))
    assert a.passed
    assert a.span is not None and a.span.label == "relations 2-4 of 5"
    assert a.matched is not None and a.matched.label == "0"


def test_strict_reports_which_t0_matched() -> None:
    shifted = tuple(rel(i, n, t0=3) for i, n in enumerate("xyz"))
    a = assess(
        expected(E, shifted),
        output(*[got(n, time=t) for n, t in zip("xyz", (13, 23, 33), strict=True)]),
        TRUSTED,
        case(mode="strict"),
    )
    assert a.passed
    assert a.matched is not None and a.matched.first == 1


def test_strict_compares_from_the_stable_start() -> None:
    # Relations before t_s = 15 may differ (RSP-QL Def. 26).
    received = [got("q", time=10), *results("b", "c", "d", "e")]
    assert assess(
        expected(E, stable_from=15), output(*received), TRUSTED, case(mode="strict")
    ).passed
    assert not assess(expected(E), output(*received), TRUSTED, case(mode="strict")).passed


@pytest.mark.parametrize(
    ("names", "says"),
    [
        (
            "abdce",
            "relation 3 from t_s on: the engine sent, at 40 for window [30,40), the "
            "relation expected at 40 (window [30,40)) where the one at 30 (window [20,30)) "
            "was due: out of order",
        ),
        (
            "abcd",
            "the engine sent 4 relation(s) from t_s on, 5 expected; the first missing "
            "is due at 50 (window [40,50))",
        ),
        (
            "abcdex",
            "the engine sent 6 relation(s) from t_s on, 5 expected; the first extra "
            "one came at 60 for window [50,60)",
        ),
        (
            "abxde",
            "relation 3 from t_s on: the engine sent 1 solution(s) at 60 for window "
            "[50,60); expected 1 at 30 (window [20,30))",
        ),
        # c never comes: a lost window, not an order problem
        (
            "abde",
            "relation 3 from t_s on: the engine sent, at 40 for window [30,40), the "
            "relation expected at 40 (window [30,40)) where the one at 30 (window [20,30)) "
            "was due: window [20,30) was never sent (lost window)",
        ),
        (
            "abbcde",
            "relation 3 from t_s on: the engine sent, at 20 for window [10,20), the "
            "relation expected at 20 (window [10,20)) where the one at 30 (window [20,30)) "
            "was due: the relation of window [10,20) again",
        ),
    ],
)
def test_a_strict_failure_says_where_the_stream_first_differs(names: str, says: str) -> None:
    """Even when every window matches on its own (out of order: D7 of rsp-js)."""
    a = assess(expected(E), output(*results(*names)), TRUSTED, case(mode="strict"))
    assert not a.passed
    assert a.difference == says


def test_a_lost_window_whose_content_the_next_repeats_is_named() -> None:
    """Windows [0,10) and [10,20) hold the same solutions; the engine sends
    [10,20) and [20,30) only: the window it never sent is [0,10), as the
    verdict line and the table say, not the last one."""
    same = (rel(0, "a"), rel(1, "a"), rel(2, "c"))
    sent = [got("a", time=20, window=(10, 20)), got("c", time=30, window=(20, 30))]
    a = assess(expected(same), output(*sent), TRUSTED, case(mode="strict"))
    assert not a.passed
    assert a.difference == (
        "relation 1 from t_s on: the engine sent, at 20 for window [10,20), the "
        "relation expected at 20 (window [10,20)) where the one at 10 (window [0,10)) "
        "was due: window [0,10) was never sent (lost window)"
    )
    assert "[0,10)" in a.headline(TRUSTED.bounds)


def test_a_passing_strict_verdict_has_no_difference() -> None:
    a = assess(expected(E), output(*results(*"abcde")), TRUSTED, case(mode="strict"))
    assert a.passed and a.difference is None


def test_untimed_output_may_have_a_transient_prefix() -> None:
    cls = expected(E, stable_from=15).classes[0]
    received = [got("q"), *results("b", "c", "d", "e", timed=False)]
    assert match_class(cls, received, 15, case(mode="strict").comparison) is not None
    two = [got("q"), got("r"), *results("b", "c", "d", "e", timed=False)]
    assert match_class(cls, two, 15, case(mode="strict").comparison) is None


def test_strict_by_value_and_tolerance() -> None:
    e = (ExpectedRelation(0, 10, (0, 10), ({"x": num("1")},), 0),)
    double = [Received(Result(({"x": num("1.0004", "double")},), 10, None), 0.0, None)]
    assert not assess(
        expected(e),
        output(*double),
        TRUSTED,
        case(mode="strict", literal_equality="value"),
    ).passed
    assert assess(
        expected(e),
        output(*double),
        TRUSTED,
        case(mode="strict", literal_equality="value", tolerance=0.001),
    ).passed


def test_engine_error_fails_even_a_matching_output() -> None:
    a = assess(
        expected(E),
        output(*results(*"abcde"), error="boom"),
        TRUSTED,
        case(mode="strict"),
    )
    assert not a.passed and a.matched is not None


def test_graded_default_thresholds_and_closest_class() -> None:
    shifted = tuple(rel(i, n, t0=3) for i, n in enumerate("abcde"))
    a = assess(expected(shifted, E), output(*results(*"abcde")), TRUSTED, case())
    assert a.chosen.first == 1  # the closest class by mean F1
    assert [o.threshold.text for o in a.outcomes] == [
        "precision >= 1 in every window",
        "recall >= 1 in every window",
    ]
    assert a.passed


def test_warmup_windows_are_not_judged() -> None:
    received = [got("x", window=(0, 10)), *results("b", "c", "d", "e")]
    failing = assess(expected(E), output(*received), TRUSTED, case("recall >= 1"))
    assert not failing.passed and failing.outcomes[0].failing == (0,)
    assert assess(expected(E), output(*received), TRUSTED, case("recall >= 1", warmup=1)).passed


def test_run_thresholds() -> None:
    received = [*results("a", "b", "c", "d"), got("x", window=(40, 50))]
    samples = [{"rss": 10, "cpu": 0.0}, {"rss": 2 * 10**6, "cpu": 40.0}]
    a = assess(
        expected(E),
        output(*received, samples=samples),
        TRUSTED,
        case(
            "iou >= 0.6",
            "iou >= 0.7",
            "peak_rss <= 2MB",
            "peak_rss < 2MB",
            "mean_cpu <= 40%",
        ),
    )
    # A = {a,b,c,d,x}, E = {a,b,c,d,e}: 4 / 6.
    assert [o.ok for o in a.outcomes] == [True, False, True, False, True]
    assert a.run is not None and a.run.iou == 4 / 6


def test_run_threshold_without_samples_fails_and_says_why() -> None:
    a = assess(expected(E), output(*results(*"abcde")), TRUSTED, case("peak_rss <= 1GB"))
    assert not a.passed
    assert (
        a.outcomes[0].detail == "peak_rss has no value in this run "
        "(no CPU/memory samples: the engine was not sampled)"
    )


def test_percentile_and_share_of_windows() -> None:
    received = [
        got("a", window=(0, 10)),
        got("x", window=(10, 20)),
        *results("c", "d", "e"),
    ]
    a = assess(
        expected(E),
        output(*received),
        TRUSTED,
        case(
            "p10(f1) >= 0.5",
            "p50(f1) >= 0.5",
            "f1 >= 1 in 80% of windows",
            "f1 >= 1 in 90% of windows",
        ),
    )
    # p10 of [0,1,1,1,1] = 0 + 0.4 * 1 = 0.4.
    assert [o.ok for o in a.outcomes] == [False, True, True, False]
    assert a.outcomes[0].measured == pytest.approx(0.4)


def test_mostly_applies_unless_the_threshold_says_otherwise() -> None:
    received = [
        got("a", window=(0, 10)),
        got("x", window=(10, 20)),
        *results("c", "d", "e"),
    ]
    a = assess(
        expected(E),
        output(*received),
        TRUSTED,
        case("f1 >= 1", "f1 >= 1 in 100% of windows", mostly=0.8),
    )
    assert [o.ok for o in a.outcomes] == [True, False]


def test_mismatch_thresholds_are_not_checked_per_engine() -> None:
    a = assess(
        expected(E),
        output(*results(*"abcde")),
        TRUSTED,
        case("mismatch(a, b) <= 0", mode="strict"),
    )
    assert a.outcomes == () and a.passed


def test_verdicts_are_reproducible_to_the_last_digit() -> None:
    received = [got(*"ab"[: i % 3], app=10 * i + 10.5 + i / 7) for i in range(5)]
    runs = {
        repr(assess(expected(E), output(*received), UNTRUSTED, case("mean(f1) >= 0.5")))
        for _ in range(3)
    }
    assert len(runs) == 1


def test_a_relation_stamped_before_t_s_after_later_ones_is_compared() -> None:
    """Only a leading warm-up before t_s is left out: the correct
    output plus a stale relation stamped 0 at the end is not reproduced."""
    received = [*results(*"abcde"), got("a", time=0)]
    verdict = assess(expected(E, stable_from=15), output(*received), TRUSTED, case(mode="strict"))
    assert not verdict.passed


def test_bindings_emitted_one_by_one_within_one_time_unit_are_one_relation() -> None:
    """An engine with a 10 ms clock that streams out one binding at a time."""
    from dataclasses import replace

    two = (rel(0, "a", "b"), rel(1, "c"))
    one_by_one = [got("a", time=10), got("b", time=14), got("c", time=20)]
    coarse = replace(TRUSTED, time_unit=10, reports_window=False)
    merged = assess(expected(two), output(*one_by_one), coarse, case(mode="strict"), regroup=10)
    assert merged.passed
    assert merged.merged == (
        "3 relations reported within one time unit (10 ms) were merged into 2 "
        "(regroup: true in the engine's adapter)"
    )
    assert not assess(expected(two), output(*one_by_one), coarse, case(mode="strict")).passed


def test_two_windows_reported_at_one_instant_stay_two_relations() -> None:
    """Without regroup, relations an engine sent apart are judged apart, even
    stamped within one time unit: two windows closing at 10 (two named
    windows, or a count window sliding twice in one event)::

        expected   {a} window [0,10) at 10     {b} window [5,10) at 10
        sent       {a} at 10                   {b} at 10
    """
    from dataclasses import replace

    from pytest_rspbench.report.text import failure_text

    two = (
        ExpectedRelation(0, 10, (0, 10), sols("a"), 1),
        ExpectedRelation(1, 10, (5, 10), sols("b"), 1),
    )
    sent = [got("a", time=10), got("b", time=10)]
    coarse = replace(TRUSTED, time_unit=10, reports_window=False)
    verdict = assess(expected(two), output(*sent), coarse, case(mode="strict"))
    assert verdict.passed and verdict.merged == ""
    regrouped = assess(expected(two), output(*sent), coarse, case(mode="strict"), regroup=10)
    assert not regrouped.passed
    text = failure_text(regrouped, coarse.bounds, None)
    assert "2 relations reported within one time unit (10 ms) were merged into 1" in text


def test_a_pass_says_which_t0_reproduce_the_output() -> None:
    same = tuple(rel(i, n) for i, n in enumerate("abcde"))
    verdict = assess(
        expected(E, same, tuple(rel(i, "z") for i in range(5))),
        output(*results(*"abcde", timed=False)),
        UNTRUSTED,
        case(mode="strict"),
    )
    assert verdict.passed
    assert verdict.narrowing == "t0 in [0, 2): 2 equivalent starts"


@pytest.mark.parametrize("report", [("content-change",), ("periodic",)])
def test_reported_windows_are_part_of_the_output_under_every_report_policy(
    report: tuple[str, ...],
) -> None:
    """With ``reports_window: true`` a window that differs fails, also while
    windows are open (the oracle lists the active window the engine is in).
    Two windows, ``[RANGE 250 STEP 500]`` and ``[RANGE 500 STEP 500]``; at
    500 an event enters the second one's ``[500,1000]``::

        expected   {} at 0 window [0,500]   {} at 250 [250,500]   {} at 500 [500,1000]
        sent       {} at 0 window [0,500]   {} at 250 [500,1000]  {} at 500 [500,1000]
    """
    from dataclasses import replace

    windows = ((0, 500), (250, 500), (500, 1000))
    times = (0, 250, 500)
    due = tuple(
        ExpectedRelation(k, t, w, (), 1)
        for k, (t, w) in enumerate(zip(times, windows, strict=True))
    )
    semantics = replace(TRUSTED, report=report, period=250 if "periodic" in report else None)

    def sent(*said: tuple[int, int]) -> list[Received]:
        return [Received(Result((), t, w), 0.0, None) for t, w in zip(times, said, strict=True)]

    right = assess(expected(due), output(*sent(*windows)), semantics, case(mode="strict"))
    assert right.passed
    moved = sent((0, 500), (500, 1000), (500, 1000))
    wrong = assess(expected(due), output(*moved), semantics, case(mode="strict"))
    assert not wrong.passed
    assert "[500,1000) where [250,500) is due" in wrong.headline(semantics.bounds)
    untrusted = replace(semantics, reports_window=False)
    assert assess(expected(due), output(*moved), untrusted, case(mode="strict")).passed
