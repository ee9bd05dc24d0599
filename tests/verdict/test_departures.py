"""Named departures (:mod:`pytest_rspbench.verdict.departures`), one test per class.

Small outputs written by hand, no Spark, no engine. Unless a test says
otherwise: tumbling windows of 10 ms from t0 = 0, bounds ``[o,c)``, windows
reported by the engine and trusted; letters are solutions ``{?x=<.../a>}``::

    time      0    5   10   15   20   25   30
    windows   [0,10)   [10,20)   [20,30)
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_rspbench.rsp.outputs import ExpectedRelation, Received, Result
from pytest_rspbench.rsp.rspql import parse as parse_query
from pytest_rspbench.verdict.departures import (
    KINDS,
    NAMES,
    Departure,
    Evidence,
    names,
    summary,
)
from pytest_rspbench.verdict.strict import assess

from helpers.verdict import QUERY, TRUSTED, UNTRUSTED, case, expected, got, num, output, rel


def w(k: int) -> tuple[int, int]:
    return (10 * k, 10 * k + 10)


def sent(k: int, *letters: str) -> Received:
    """The engine's relation for window ``k``."""
    return got(*letters, window=w(k), time=w(k)[1])


def judge(relations, *received, semantics=TRUSTED, times=None, error=None, **kw):  # type: ignore[no-untyped-def]
    a = assess(
        expected(tuple(relations)),
        output(*received, error=error),
        semantics,
        kw.pop("the_case", None) or case(**({"mode": "strict"} | kw)),
        times=(lambda: times) if times is not None else None,
    )
    assert not a.passed
    return a


def found(a) -> dict[str, tuple[tuple[int, int], ...]]:  # type: ignore[no-untyped-def]
    return {d.name: d.windows for d in a.departures}


ABC = (rel(0, "a"), rel(1, "b"), rel(2, "c"))
ABCD = (*ABC, rel(3, "d"))


def test_every_class_has_a_stable_name_title_and_explanation() -> None:
    assert len(set(NAMES)) == len(KINDS) >= 16
    for kind in KINDS:
        assert kind.name == kind.name.lower() and " " not in kind.name
        assert kind.title and kind.explanation and "\n" not in kind.explanation


def test_lost_window() -> None:
    """[20,30) closes while the input goes on (events up to 31) and is never sent."""
    a = judge(ABCD, sent(0, "a"), sent(1, "b"), sent(3, "d"), times=[1, 11, 21, 31])
    assert found(a) == {"lost-window": (w(2),)}
    assert a.headline("[o,c)") == "strict: FAIL — lost window x1 at [20,30)"


def test_missing_final_window() -> None:
    """[20,30) is still open when the input ends at 21: nothing flushed it."""
    a = judge(ABC, sent(0, "a"), sent(1, "b"), times=[1, 11, 21])
    assert found(a) == {"missing-final-window": (w(2),)}


def test_lost_and_final_windows_together() -> None:
    a = judge(ABCD, sent(0, "a"), sent(2, "c"), times=[1, 11, 21, 31])
    assert names(a.departures) == ("lost-window", "missing-final-window")
    assert a.headline("[o,c)") == (
        "strict: FAIL — lost window x1 at [10,20); missing final window x1 at [30,40)"
    )


def test_no_output() -> None:
    a = judge(ABC)
    assert a.departures == (Departure("no-output", count=3, detail="3 relation(s) expected"),)


def test_a_window_closed_with_a_later_one_and_never_reported_is_lost() -> None:
    """b at 25 closes [0,10) and [10,20) at once; an engine that evaluates the
    newest only evaluates [10,20), empty, and sends nothing: [0,10) is lost,
    not "no output" (faulty-newest-only on shapes-empty-windows)::

        windows   [0,10) {a}   [10,20) {}   [20,30) {b}: still open at the end
    """
    a = judge((rel(0, "a"),), times=[5, 25])
    assert a.departures == (Departure("lost-window", (w(0),)),)
    assert judge((rel(0, "a"),), times=[5, 12]).departures == (
        Departure("no-output", count=1, detail="1 relation(s) expected"),
    )
    # A due window between them: no engine of the newest window sends nothing.
    assert names(judge((rel(0, "a"), rel(1, "b")), times=[5, 25]).departures) == ("no-output",)


def test_engine_error_takes_the_windows_it_cut_off() -> None:
    a = judge(ABC, sent(0, "a"), error="engine 'x' exited with status 3\nstderr: ...")
    assert a.departures == (Departure("engine-error", detail="engine 'x' exited with status 3"),)


def test_duplicate_report() -> None:
    a = judge(ABC, sent(0, "a"), sent(0, "a"), sent(1, "b"), sent(2, "c"))
    assert found(a) == {"duplicate-report": (w(0),)}


def test_a_second_evaluation_of_a_window_is_a_duplicate_report() -> None:
    """rsp-js D8: a right relation, then the same window again with part of it."""
    two = (rel(0, "a", "b"),)
    a = judge(two, sent(0, "a", "b"), sent(0, "b"))
    assert found(a) == {"duplicate-report": (w(0),)}


def test_a_window_reported_again_later_is_re_reported() -> None:
    """A late event opens [0,10) again: reported at 10 without b, at 22 with
    it (Flink's late firing; faulty-re-reports)::

        sent   {a} [0,10) at 10    {c} [10,20) at 20    {a, b} [0,10) at 22
    """
    e = (rel(0, "a", "b"), rel(1, "c"))
    again = got("a", "b", window=w(0), time=22)
    a = judge(e, got("a", window=w(0), time=10), sent(1, "c"), again, times=[2, 8, 12])
    assert found(a) == {"re-reported-window": (w(0),)}
    assert a.headline("[o,c)") == "strict: FAIL — re-reported window x1 at [0,10)"
    assert a.difference is not None
    assert a.difference.endswith("it reported that window again, at 22 for window [0,10)")


def test_early_report() -> None:
    """[0,10) fired at 6, before b (at 8) came: b is in none of its windows
    (faulty-early-firing)."""
    e = (rel(0, "a", "b"), rel(1, "c"))
    a = judge(e, got("a", window=w(0), time=6), sent(1, "c"), times=[2, 8, 12])
    assert found(a) == {"early-report": (w(0),)}
    assert a.headline("[o,c)") == "strict: FAIL — early report x1 at [0,10)"


def test_backlog() -> None:
    """[0,10) evaluated at 21, a slide after its close, over what the engine
    held by then (faulty-backlog); [10,20) on time."""
    e = (rel(0, "a"), rel(1, "b"), rel(2, "c"))
    late = got("a", "b", window=w(0), time=21)
    a = judge(e, late, sent(1, "b"), sent(2, "c"), times=[5, 15, 25])
    assert found(a) == {"backlog": (w(0),)}


def test_a_report_within_the_lateness_and_a_slide_is_no_backlog() -> None:
    e = (rel(0, "a"), rel(1, "b"), rel(2, "c"))
    on_time = got("a", "b", window=w(0), time=20)
    a = judge(e, on_time, sent(1, "b"), sent(2, "c"), times=[5, 15, 25])
    assert "backlog" not in found(a)


def test_times_are_not_read_where_the_profile_does_not_trust_them() -> None:
    e = (rel(0, "a", "b"), rel(1, "c"))
    untrusted = replace(TRUSTED, reports_window=False)
    received = (got("a", window=w(0), time=6), sent(1, "c"))
    a = judge(e, *received, semantics=untrusted, times=[2, 8, 12])
    assert "early-report" not in found(a)


def test_out_of_order() -> None:
    """rsp-js D7: every window is right, but [20,30) came before [10,20)."""
    a = judge(ABC, sent(0, "a"), sent(2, "c"), sent(1, "b"))
    assert names(a.departures) == ("out-of-order",)


def test_extra_window_before_the_first() -> None:
    """rsp-js D1: a partial window [-10,0) before t0."""
    a = judge(ABC, got("a", window=(-10, 0), time=0), sent(0, "a"), sent(1, "b"), sent(2, "c"))
    assert found(a) == {"extra-window": ((-10, 0),)}


def test_window_bounds() -> None:
    """The profile says [o,c); the engine runs (o,c]. Events at 5, 10, 15::

    [o,c)   [0,10) {a}      [10,20) {b, c}
    (o,c]   (0,10] {a, b}   (10,20] {c}      b sits on the border 10
    """
    e = (rel(0, "a"), rel(1, "b", "c"))
    a = judge(e, sent(0, "a", "b"), sent(1, "c"), times=[5, 10, 15])
    assert found(a) == {"window-bounds": (w(0), w(1))}


def test_shifted_windows() -> None:
    """Windows drift 5 ms later: b (8) and d (18) land one window late; no
    event sits on a border, so no bounds convention explains it::

        expected  [0,10) {a, b}   [10,20) {c, d}
        actual    [0,10) {a}      [10,20) {b, c}   [20,30) {d}
    """
    e = (rel(0, "a", "b"), rel(1, "c", "d"))
    a = judge(e, sent(0, "a"), sent(1, "b", "c"), sent(2, "d"), times=[2, 8, 12, 18])
    assert found(a) == {"shifted-windows": (w(0), w(1), w(2))}


def test_a_border_event_moved_under_a_drift_elsewhere_is_shifted() -> None:
    """The same move over a border with an event on it, next to moves that no
    border explains: the class that explains more windows wins."""
    e = (rel(0, "a", "b"), rel(1, "c", "d"), rel(2, "e"))
    received = (sent(0, "a"), sent(1, "b", "c"), sent(2, "d", "e"))
    a = judge(e, *received, times=[2, 10, 12, 18, 25])
    assert names(a.departures) == ("shifted-windows",)


def test_when_the_stream_says_where_solutions_come_from() -> None:
    """Events a@0, b@5, c@10, d@15; the engine keeps a and b in [10,20).

    Without knowing when a and b occurred, they might be the border event 10
    under another bounds convention; the stream says they are from 0 and 5,
    well inside [0,10): stale content (CQELS), not window bounds::

        expected  [0,10) {a, b}   [10,20) {c, d}
        actual    [0,10) {a, b}   [10,20) {a, b, c, d}
    """
    e = (rel(0, "a", "b"), rel(1, "c", "d"))
    received = (sent(0, "a", "b"), sent(1, "a", "b", "c", "d"))
    at = {"a": 0, "b": 5, "c": 10, "d": 15}

    def locate(terms: set[str]) -> dict[str, set[int]]:
        return {f"<http://ex/{n}>": {t} for n, t in at.items() if f"<http://ex/{n}>" in terms}

    blind = judge(e, *received, times=list(at.values()))
    assert names(blind.departures) == ("window-bounds",)
    told = judge(e, *received, times=Evidence(list(at.values()), locate))
    assert found(told) == {"stale-content": (w(1),)}


def test_late_events() -> None:
    """The profile waits 5 ms for late events; b (due at 8) arrived late and
    the engine put it in the next window."""
    e = (rel(0, "a", "b"), rel(1, "c"))
    a = judge(
        e, sent(0, "a"), sent(1, "b", "c"), semantics=replace(TRUSTED, lateness=5), times=[2, 8, 12]
    )
    assert found(a) == {"late-events": (w(0), w(1))}


def test_dropped_late_event() -> None:
    """The profile waits 5 ms for late events; b (due at 8) arrived late and
    the engine dropped it: it is in no window (faulty-drops-late)."""
    e = (rel(0, "a", "b"), rel(1, "c"))
    late = replace(TRUSTED, lateness=5)
    a = judge(e, sent(0, "a"), sent(1, "c"), semantics=late, times=[2, 8, 12])
    assert found(a) == {"dropped-late-event": (w(0),)}


def test_stale_content() -> None:
    """CQELS on CSRBench Q6/Q7: expired solutions stay."""
    a = judge(ABC, sent(0, "a"), sent(1, "a", "b"), sent(2, "a", "b", "c"))
    assert found(a) == {"stale-content": (w(1), w(2))}


def test_r2s_mismatch() -> None:
    """IStream asked, the whole answer sent (rsp-js D4): a repeats."""
    istream = parse_query(QUERY.text.replace("RStream", "IStream"))
    the_case = replace(case(mode="strict"), query=istream)
    e = (rel(0, "a"), rel(1, "b"))
    a = judge(e, sent(0, "a"), sent(1, "a", "b"), the_case=the_case)
    assert found(a) == {"r2s-mismatch": (w(1),)}


def test_report_policy_an_empty_relation_the_profile_does_not_send() -> None:
    a = judge((rel(0, "a"), rel(2, "c")), sent(0, "a"), sent(1), sent(2, "c"))
    assert found(a) == {"report-policy": (w(1),)}


def test_report_policy_an_empty_relation_due_and_not_sent() -> None:
    """The profile sends empty relations; this engine never does."""
    a = judge((rel(0, "a"), rel(1), rel(2, "c")), sent(0, "a"), sent(2, "c"))
    assert found(a) == {"report-policy": (w(1),)}


def test_empty_group_aggregate() -> None:
    """SPARQLstream on CSRBench Q4: AVG of no values unbound instead of 0."""
    zero = (ExpectedRelation(0, 10, w(0), ({"avg": num("0")},), 3),)
    a = judge(zero, Received(Result(({},), 10, w(0)), 0.0, None))
    assert found(a) == {"empty-group-aggregate": (w(0),)}


def test_lexical_form() -> None:
    one = (ExpectedRelation(0, 10, w(0), ({"x": num("1")},), 1),)
    a = judge(one, Received(Result(({"x": num("1.0E0", "double")},), 10, w(0)), 0.0, None))
    assert found(a) == {"lexical-form": (w(0),)}


def test_term_form() -> None:
    """The stream has "+8"^^xsd:integer; the engine answers "8": it rewrote
    the term (pyoxigraph does), whatever else the windows show."""
    plus = (ExpectedRelation(0, 10, w(0), ({"x": num("+8")},), 1),)
    a = judge(plus, Received(Result(({"x": num("8")},), 10, w(0)), 0.0, None))
    assert found(a) == {"term-form": (w(0),)}
    late = replace(TRUSTED, lateness=5)
    a = judge(plus, Received(Result(({"x": num("8")},), 10, w(0)), 0.0, None), semantics=late)
    assert found(a) == {"term-form": (w(0),)}


def test_wrong_solutions() -> None:
    a = judge(ABC, sent(0, "a"), sent(1, "z"), sent(2, "c"))
    assert found(a) == {"wrong-solutions": (w(1),)}


def test_without_reported_windows_results_are_matched_by_content() -> None:
    """Position alignment would pair d with c and call every later window
    wrong; matched by content, one window was lost."""
    received = [got(n) for n in "abd"]
    a = judge(ABCD, *received, semantics=UNTRUSTED, times=[1, 11, 21, 31])
    assert found(a) == {"lost-window": (w(2),)}


def test_containment_may_start_late_and_stop_early() -> None:
    """CSRBench's containment: missing ends are not departures, a gap is."""
    a = judge(ABCD, sent(1, "b"), sent(3, "d"), mode="containment", times=[1, 11, 21, 31])
    assert found(a) == {"lost-window": (w(2),)}


def test_a_passing_item_has_no_departures() -> None:
    a = assess(expected(ABC), output(sent(0, "a"), sent(1, "b"), sent(2, "c")), TRUSTED, case())
    assert a.passed and a.departures == ()


@pytest.mark.parametrize(
    ("departures", "line"),
    [
        ((Departure("lost-window", (w(3),)),), "lost window x1 at [30,40)"),
        (
            (Departure("stale-content", tuple(w(k) for k in range(5)), 5),),
            "stale content x5 at [0,10), [10,20), [20,30) and 2 more",
        ),
        (
            (
                Departure("engine-error", detail="timed out after 30 s"),
                Departure("no-output", count=2),
            ),
            "engine error: timed out after 30 s; no output",
        ),
    ],
)
def test_summary(departures, line) -> None:  # type: ignore[no-untyped-def]
    assert summary(departures, "[o,c)") == line


def test_a_missed_threshold_is_in_the_headline() -> None:
    a = assess(
        expected(ABC),
        output(sent(0, "a"), sent(1, "b")),
        TRUSTED,
        case("recall >= 1 in every window"),
        times=lambda: [1, 11, 21],
    )
    assert a.headline("[o,c)") == (
        "graded: FAIL — missing final window x1 at [20,30); "
        "threshold missed: 'recall >= 1 in every window'"
    )


def test_the_spec_schema_offers_every_class_for_known_failures() -> None:
    """One vocabulary: a spec's known_failures take exactly these names."""
    import json
    from pathlib import Path

    import pytest_rspbench

    path = Path(pytest_rspbench.__file__).parent / "schemas" / "spec-v1.schema.json"
    known = json.loads(path.read_text())["properties"]["known_failures"]["items"]
    assert tuple(known["properties"]["departures"]["items"]["enum"]) == NAMES
