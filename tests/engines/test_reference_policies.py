"""The reference engine: several windows, content-change, and profile knobs."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from rspbench_engines.reference import engine_profile
from rspbench_engines.reference.engine import ReferenceEngine

from pytest_rspbench.engine.api import Registration, Semantics

from helpers.reference import EX, STREAM, iri, query, run, triple, who

# --- two windows over two streams + static data: RSP-QL Examples 3-10 ------------
#
# W1 over :nearby (alpha=5, beta=2), W2 over :coupons (alpha=2, beta=2), one shared
# t0 = 0, bounds (o,c], window-close + non-empty-content, RStream.
#
#   time     0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17
#   nearby         d,e      c     e              d'
#   coupons                          A                    B
#   W1 closes at 5 7 9 11 13 15 17: (0,5] (2,7] (4,9] (6,11] (8,13] (10,15] (12,17]
#   W2 closes at 2 4 ... 16:        (0,2] ... (6,8]={A} ... (14,16]={B}
#
# At each close the query sees the latest closed window of each named window:
#   8  W2 (6,8]={A}, W1 (2,7]={c,e}           -> carl, eve with alice's coupon
#   9  W1 (4,9]={c,e}, W2 (6,8]={A}           -> the same two
#   16 W2 (14,16]={B}, W1 (10,15]={d'}        -> diana with bob's coupon
#   17 W1 (12,17] is empty (d' at 12 is on its open start): no evaluation
# Other closes have an empty window on one side: empty answers, not emitted.
# The rows at 8 and 16 are RSP-QL Table 1 (Example 10).
COUPONS = EX + "coupons"
NEARBY = EX + "nearby"
EXAMPLE_10 = (
    f"PREFIX : <{EX}>\nREGISTER RStream :out AS SELECT ?s ?shop ?owner ?coupon\n"
    "FROM NAMED WINDOW :w1 ON STREAM :nearby [RANGE 5 STEP 2]\n"
    "FROM NAMED WINDOW :w2 ON STREAM :coupons [RANGE 2 STEP 2]\n"
    "WHERE { WINDOW :w1 { ?s :isNearby ?shop } "
    "WINDOW :w2 { ?owner :offers ?coupon } ?owner :owns ?shop }"
)
EXAMPLE_10_EVENTS = [
    (2, [triple("diana", "isNearby", "a"), triple("eve", "isNearby", "b")], NEARBY),
    (5, [triple("carl", "isNearby", "a")], NEARBY),
    (7, [triple("eve", "isNearby", "a")], NEARBY),
    (8, [triple("alice", "offers", '"10% off"')], COUPONS),
    (12, [triple("diana", "isNearby", "b")], NEARBY),
    (15, [triple("bob", "offers", '"free coffee"')], COUPONS),
]


def test_two_windows_over_two_streams_join_static_data(tmp_path: Path) -> None:
    shops = tmp_path / "shops.ttl"
    shops.write_text(f"@prefix : <{EX}> .\n:alice :owns :a .\n:bob :owns :b .\n")
    out = run(
        EXAMPLE_10,
        EXAMPLE_10_EVENTS,
        end=17,
        static=(shops,),
        bounds="(o,c]",
        t0=0,
        report=("window-close", "non-empty-content"),
    )
    assert [(r.time, r.window) for r in out] == [
        (8, (6, 8)),
        (9, (4, 9)),
        (16, (14, 16)),
    ]
    assert [who(r) for r in out] == [["carl", "eve"], ["carl", "eve"], ["diana"]]
    assert {b["coupon"] for b in out[0].bindings} == {'"10% off"'}
    assert {b["owner"] for b in out[2].bindings} == {iri("bob")}
    # With empty relations on, the closes of a non-empty W1 while W2's latest
    # window is empty show up as empty answers: 5, 7, 11, 13, 15.
    loud = run(
        EXAMPLE_10,
        EXAMPLE_10_EVENTS,
        end=17,
        static=(shops,),
        bounds="(o,c]",
        t0=0,
        report=("window-close", "non-empty-content"),
        empty_relations=True,
    )
    assert [(r.time, len(r.bindings)) for r in loud] == [
        (5, 0),
        (7, 0),
        (8, 2),
        (9, 2),
        (11, 0),
        (13, 0),
        (15, 0),
        (16, 1),
    ]


# --- two windows over one stream: W1 tumbling 10, W2 RANGE 20 STEP 10, [o,c) ------
#
#   time     0    5    10   15   20   25   30
#   events        a         b
#   W1       [-a--)[--b--)[-----)                 closes 10, 20, 30
#   W2       [----a----b---)                      closes 20
#                  [------b-------)               closes 30
# 10: W1 [0,10)={a} fires; W2 has closed nothing yet -> empty graph, no rows
# 20: both fire, one evaluation, W1 reported: s in {b} x t in {a, b} -> 2 rows
# 30: W1 [20,30) is empty, W2 [10,30)={b} is not: W2 reported, no rows
SAME_STREAM = (
    f"PREFIX : <{EX}>\nREGISTER RStream :out AS SELECT ?s ?t\n"
    "FROM NAMED WINDOW :w1 ON STREAM :s [RANGE 10 STEP 10]\n"
    "FROM NAMED WINDOW :w2 ON STREAM :s [RANGE 20 STEP 10]\n"
    "WHERE { WINDOW :w1 { ?s :p :o } WINDOW :w2 { ?t :p :o } }"
)
SAME_STREAM_EVENTS = [(5, [triple("a", "p", "o")]), (15, [triple("b", "p", "o")])]


def test_two_windows_over_one_stream_evaluate_once_per_close() -> None:
    out = run(
        SAME_STREAM,
        SAME_STREAM_EVENTS,
        end=30,
        t0=0,
        empty_relations=True,
        report=("window-close", "non-empty-content"),
    )
    assert [(r.time, r.window, len(r.bindings)) for r in out] == [
        (10, (0, 10), 0),
        (20, (10, 20), 2),
        (30, (10, 30), 0),
    ]
    assert {b["t"] for b in out[1].bindings} == {iri("a"), iri("b")}


def test_content_change_over_two_windows_of_one_stream() -> None:
    # tuple-driven; at 5 the present windows are W1 [0,10) and W2 [0,20): a and
    # then b change both (one evaluation each); at 12 W1 [10,20) and W2 [10,30)
    # (opened at 10) hold only the new a.
    events = [
        (5, [triple("a", "p", "o"), triple("b", "p", "o")]),
        (12, [triple("a", "p", "o")]),
    ]
    out = run(
        SAME_STREAM,
        events,
        end=30,
        t0=0,
        report=("content-change",),
        tick="tuple-driven",
    )
    assert [(r.time, r.window, len(r.bindings)) for r in out] == [
        (5, (0, 10), 1),
        (5, (0, 10), 4),
        (12, (10, 20), 1),
    ]


# --- content-change: tumbling 10, [o,c), t0 = 0, RStream -------------------------
#
#   time     0  1     4     6        10  12
#   events      a     a     b,c          d
#   present  [------- W0 ---------)  [- W1 ...
# a at 4 is the triple of 1 at a new time: a new timestamped element of W0,
# so a change (the oracle's content-change: an event enters the window).
CHANGES = [
    (1, [triple("a", "p", "o")]),
    (4, [triple("a", "p", "o")]),
    (6, [triple("b", "p", "o"), triple("c", "p", "o")]),
    (12, [triple("d", "p", "o")]),
]
TUMBLING_10 = "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 10]"


@pytest.mark.parametrize(
    ("tick", "expected"),
    [
        ("graph-driven", [(1, ["a"]), (4, ["a"]), (6, ["a", "b", "c"]), (12, ["d"])]),
        ("time-driven", [(1, ["a"]), (4, ["a"]), (6, ["a", "b", "c"]), (12, ["d"])]),
        (
            "tuple-driven",
            [(1, ["a"]), (4, ["a"]), (6, ["a", "b"]), (6, ["a", "b", "c"]), (12, ["d"])],
        ),
    ],
)
def test_content_change_evaluates_on_each_change(tick: str, expected: object) -> None:
    out = run(
        query("RStream", TUMBLING_10, "WINDOW :w { ?s ?p ?o }"),
        CHANGES,
        end=20,
        report=("content-change",),
        tick=tick,
        t0=0,
    )
    assert [(r.time, who(r)) for r in out] == expected
    assert [r.window for r in out][-1] == (10, 20)


@pytest.mark.parametrize("tick", ["graph-driven", "time-driven"])
def test_content_change_skips_a_repeat_at_the_same_time(tick: str) -> None:
    # a at 1 twice (a repeated event) adds nothing at 1: one evaluation; a
    # again at 3 is the same triple at a new time, so an evaluation.
    events = [(1, [triple("a", "p", "o")]), (1, [triple("a", "p", "o")])]
    events.append((3, [triple("a", "p", "o")]))
    text = query("RStream", TUMBLING_10, "WINDOW :w { ?s ?p ?o }")
    out = run(text, events, end=9, report=("content-change",), tick=tick, t0=0)
    assert [(r.time, who(r), r.window) for r in out] == [(1, ["a"], (0, 10)), (3, ["a"], (0, 10))]


def test_time_driven_content_change_waits_for_the_instant_to_pass() -> None:
    # Two events at 6 (pushed separately): graph-driven evaluates twice,
    # time-driven once, after time moves past 6 (here: at end()).
    events = [(6, [triple("b", "p", "o")]), (6, [triple("c", "p", "o")])]
    text = query("RStream", TUMBLING_10, "WINDOW :w { ?s ?p ?o }")
    graph = run(text, events, end=9, report=("content-change",), tick="graph-driven")
    timed = run(text, events, end=9, report=("content-change",), tick="time-driven")
    assert [who(r) for r in graph] == [["b"], ["b", "c"]]
    assert [(r.time, who(r)) for r in timed] == [(6, ["b", "c"])]


def test_content_change_sees_the_most_recently_opened_window() -> None:
    # alpha=10, beta=5, [o,c): at 7 the present window is W1 = [5,15), holding
    # only what arrived in [5,7]; a at 1 (W0 only) is not in it.
    #   time  0  1     5  7     10       15
    #   W0    [--a---------)
    #   W1             [--b-----------)
    events = [(1, [triple("a", "p", "o")]), (7, [triple("b", "p", "o")])]
    out = run(
        query(
            "RStream",
            "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 5]",
            "WINDOW :w { ?s ?p ?o }",
        ),
        events,
        end=20,
        report=("content-change",),
        t0=0,
    )
    assert [(r.time, r.window, who(r)) for r in out] == [
        (1, (0, 10), ["a"]),
        (7, (5, 15), ["b"]),
    ]


# --- profile knobs ---------------------------------------------------------------
ONE_EVENT = [(1500, [triple("a", "p", "o")])]
TUMBLING_1000 = "FROM NAMED WINDOW :w ON STREAM :s [RANGE PT1S STEP PT1S]"


def test_time_unit_truncates_event_times() -> None:
    # (o,c]: 1500 is in (1000,2000]; truncated to seconds it is 1000, in (0,1000].
    text = query("RStream", TUMBLING_1000, "WINDOW :w { ?s ?p ?o }")
    fine = run(
        text,
        ONE_EVENT,
        end=3000,
        bounds="(o,c]",
        t0=0,
        report=("window-close", "non-empty-content"),
    )
    coarse = run(
        text,
        ONE_EVENT,
        end=3000,
        bounds="(o,c]",
        t0=0,
        time_unit=1000,
        report=("window-close", "non-empty-content"),
    )
    assert [r.window for r in fine] == [(1000, 2000)]
    assert [r.window for r in coarse] == [(0, 1000)]


def test_reports_window_false_leaves_the_window_out() -> None:
    text = query("RStream", TUMBLING_1000, "WINDOW :w { ?s ?p ?o }")
    out = run(
        text,
        ONE_EVENT,
        end=3000,
        t0=0,
        reports_window=False,
        report=("window-close", "non-empty-content"),
    )
    assert [(r.time, r.window) for r in out] == [(2000, None)]


def test_a_long_silent_gap_costs_no_loop_per_slide() -> None:
    # 1 ms slides, events a billion ms apart: non-empty-content jumps the gap.
    events = [(1, [triple("a", "p", "o")]), (10**9, [triple("b", "p", "o")])]
    text = query(
        "RStream",
        "FROM NAMED WINDOW :w ON STREAM :s [RANGE 2 STEP 1]",
        "WINDOW :w { ?s ?p ?o }",
    )
    out = run(text, events, end=10**9 + 5, t0=0, report=("window-close", "non-empty-content"))
    assert [(r.window, who(r)) for r in out] == [
        ((0, 2), ["a"]),
        ((1, 3), ["a"]),
        ((10**9 - 1, 10**9 + 1), ["b"]),
        ((10**9, 10**9 + 2), ["b"]),
    ]


@pytest.mark.parametrize(
    ("semantics", "message"),
    [
        ({"report": ("periodic",)}, "periodic"),
        ({"report": ("non-empty-content",)}, "exactly one"),
        ({"report": ("window-close", "content-change")}, "exactly one"),
        ({"r2s": ("IStream",)}, "registers RStream"),
        ({"t0": "whenever"}, "unknown t0"),
    ],
)
def test_unsupported_profiles_are_refused(semantics: dict, message: str) -> None:
    text = query("RStream", TUMBLING_10, "WINDOW :w { ?s ?p ?o }")
    with pytest.raises(ValueError, match=message):
        ReferenceEngine().open(Registration(text, (STREAM,), 0, Semantics(**semantics)), print)


@pytest.mark.parametrize(
    ("form", "message"),
    [("ASK", "SELECT queries only"), ("SELECT ?s ?s ?", "does not parse")],
)
def test_bad_query_forms_fail_at_open(form: str, message: str) -> None:
    text = (
        f"PREFIX : <{EX}> REGISTER RStream :o AS {form} {TUMBLING_10} "
        "WHERE { WINDOW :w { ?s ?p ?o } }"
    )
    with pytest.raises(ValueError, match=message):
        ReferenceEngine().open(Registration(text, (STREAM,), 0, Semantics()), print)


def test_push_before_open_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="open"):
        ReferenceEngine().end(0)


def test_engine_profile_points_at_the_adapter() -> None:
    profile = yaml.safe_load(engine_profile().read_text())
    assert profile["name"] == "reference"
    module, _, cls = profile["adapter"]["python"].partition(":")
    assert getattr(importlib.import_module(module), cls) is ReferenceEngine
    fields: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in profile["semantics"].items()
    }
    semantics = Semantics(**fields)
    assert semantics.reports_window and semantics.bounds == "[o,c)"


@pytest.mark.parametrize(
    "module",
    ["query", "sliding", "buffer", "relation", "engine", "counting", "sessions", "__init__"],
)
def test_docstring_examples(module: str) -> None:
    name = "rspbench_engines.reference" + ("" if module == "__init__" else f".{module}")
    failures, _ = doctest.testmod(importlib.import_module(name))
    assert failures == 0
