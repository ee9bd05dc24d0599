"""The reference engine on hand-computed cases (in-memory events, a list as emit).

Names: ``:x`` is ``<http://example.org/x>``. Each case draws its windows as a
timeline; ``e@t`` is an event at time ``t``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rspbench_engines.reference.engine import ReferenceEngine

from pytest_rspbench.engine.api import Registration, Result, Semantics
from pytest_rspbench.stream.model import Event

from helpers.reference import EX, STREAM, XSD, bag, iri, query, run, triple, who

TUMBLING_10 = "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 10]"
ANY_S = "WINDOW :w { ?s ?p ?o }"


# --- RSP-QL Example 7: alpha=5, beta=2, t0=1, bounds (o,c] ------------------------
#
#   time      1   2   3   4   5   6   7   8   9  10  11  12
#   events        d,e         c       e                   d'
#   W0 (1,6]  (-------------------]                          d, e, c
#   W1 (3,8]          (-------------------]                  c, e
#   W2 (5,10]                 (-------------------]          e
#   W3 (7,12]                         (-------------------]  d'
EXAMPLE_7 = [
    (2, [triple("diana", "isNearby", "a"), triple("eve", "isNearby", "b")]),
    (5, [triple("carl", "isNearby", "a")]),
    (7, [triple("eve", "isNearby", "a")]),
    (12, [triple("diana", "isNearby", "b")]),
]


def test_example_7_windows_and_contents() -> None:
    text = query(
        "RStream",
        "FROM NAMED WINDOW :w ON STREAM :s [RANGE 5 STEP 2]",
        "WINDOW :w { ?s :isNearby ?shop }",
    )
    out = run(text, EXAMPLE_7, end=12, bounds="(o,c]", t0=1)
    assert [(r.time, r.window) for r in out] == [
        (6, (1, 6)),
        (8, (3, 8)),
        (10, (5, 10)),
        (12, (7, 12)),
    ]
    assert [who(r) for r in out] == [
        ["carl", "diana", "eve"],
        ["carl", "eve"],
        ["eve"],
        ["diana"],
    ]


def test_windows_close_as_soon_as_time_passes_them() -> None:
    # (o,c]: W0 = (1,6] is complete once an event at 7 arrives, not before.
    text = query("RStream", "FROM NAMED WINDOW :w ON STREAM :s [RANGE 5 STEP 2]", ANY_S)
    out: list[Result] = []
    engine = ReferenceEngine()
    engine.open(
        Registration(
            text,
            (STREAM,),
            0,
            Semantics(bounds="(o,c]", t0=1, report=("window-close",)),
        ),
        out.append,
    )
    for time, triples in EXAMPLE_7[:2]:
        engine.push(STREAM, Event(time, tuple(triples)))
    engine.push(STREAM, Event(6, (triple("x", "p", "y"),)))  # 6 may still come
    assert out == []
    engine.push(STREAM, Event(7, ()))
    assert [r.time for r in out] == [6]
    engine.end(7)  # W1 = (3,8] is not complete at 7
    assert [r.time for r in out] == [6]


# --- bounds conventions at the edges: tumbling alpha = beta = 10, t0 = 0 -----------
#
#   time     0        10        20        30
#   events   a         b         c
#   (o,c]    (---W0---](---W1---](---W2---]     a is in no window (before W0)
#   [o,c)    [---W0---)[---W1---)[---W2---)
#   [o,c]    [---W0---][---W1---][---W2---]     b in W0 and W1, c in W1 and W2
EDGES = [
    (0, [triple("a", "p", "o")]),
    (10, [triple("b", "p", "o")]),
    (20, [triple("c", "p", "o")]),
]


@pytest.mark.parametrize(
    ("bounds", "expected"),
    [
        ("(o,c]", [((0, 10), ["b"]), ((10, 20), ["c"])]),
        ("[o,c)", [((0, 10), ["a"]), ((10, 20), ["b"]), ((20, 30), ["c"])]),
        ("[o,c]", [((0, 10), ["a", "b"]), ((10, 20), ["b", "c"]), ((20, 30), ["c"])]),
    ],
)
def test_bounds_conventions_at_the_edges(bounds: str, expected: list[object]) -> None:
    out = run(
        query("RStream", TUMBLING_10, ANY_S),
        EDGES,
        end=30,
        bounds=bounds,
        report=("window-close", "non-empty-content"),
    )
    assert [(r.window, who(r)) for r in out] == expected
    assert all(r.time == r.window[1] for r in out if r.window)


def test_closed_open_window_is_evaluated_when_an_event_lands_on_its_close() -> None:
    # [o,c): c is outside [0,10), so an event at 10 proves it complete.
    text = query("RStream", TUMBLING_10, ANY_S)
    for bounds, evaluated in (("[o,c)", [10]), ("[o,c]", []), ("(o,c]", [])):
        out: list[Result] = []
        engine = ReferenceEngine()
        engine.open(
            Registration(
                text,
                (STREAM,),
                0,
                Semantics(bounds=bounds, t0=0, report=("window-close",)),
            ),
            out.append,
        )
        engine.push(STREAM, Event(5, (triple("a", "p", "o"),)))
        engine.push(STREAM, Event(10, (triple("b", "p", "o"),)))
        assert [r.time for r in out] == evaluated, bounds


# --- t0 policies: tumbling 10, [o,c), events at 5, 12, 25 --------------------------
#
#   time            0    5    10   12   15   20   25   30   35
#   events               x         y              z
#   t0=0            [0,10)    [10,20)        [20,30)
#   registration 3     [3,13)         [13,23)        [23,33)      (13-23 empty)
#   first-event 5        [5,15)         [15,25)        [25,35)    (15-25 empty)
T0_EVENTS = [
    (5, [triple("x", "p", "o")]),
    (12, [triple("y", "p", "o")]),
    (25, [triple("z", "p", "o")]),
]


@pytest.mark.parametrize(
    ("t0", "expected"),
    [
        (0, [((0, 10), ["x"]), ((10, 20), ["y"]), ((20, 30), ["z"])]),
        ("registration", [((3, 13), ["x", "y"]), ((23, 33), ["z"])]),
        ("any", [((3, 13), ["x", "y"]), ((23, 33), ["z"])]),
        ("first-event", [((5, 15), ["x", "y"]), ((25, 35), ["z"])]),
    ],
)
def test_t0_policies(t0: object, expected: list[object]) -> None:
    out = run(
        query("RStream", TUMBLING_10, ANY_S),
        T0_EVENTS,
        end=40,
        start=3,
        t0=t0,
        report=("window-close", "non-empty-content"),
    )
    assert [(r.window, who(r)) for r in out] == expected


# --- first-event: one t0 per named window (RSP-QL Def. 13, 25) --------------------
#
#   time          0    3    8    10   13   15   18   20   23
#   :s            x         x2             y
#   :s2                u                        v
#   :w  [RANGE 10 STEP 10] t0 = 0 (x@0)   [0,10)         [10,20)
#   :w2 [RANGE 5 STEP 5]   t0 = 3 (u@3)   [3,8) [8,13) [13,18) [18,23)
#   closes: 8 {u} | 10 {x,x2} + w2's [3,8) {u} | 13, 18 empty (skipped)
#           | 20 {y} + w2's [13,18) {} | 23 {v} + w's [10,20) {y}
TWO_STREAMS = (
    "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 10]\n"
    "FROM NAMED WINDOW :w2 ON STREAM :s2 [RANGE 5 STEP 5]"
)
TWO_STREAM_EVENTS = [
    (0, [triple("x", "p", "o")]),
    (3, [triple("u", "q", "o")], EX + "s2"),
    (8, [triple("x2", "p", "o")]),
    (15, [triple("y", "p", "o")]),
    (18, [triple("v", "q", "o")], EX + "s2"),
]


def test_first_event_is_per_window_stream() -> None:
    where = "{ WINDOW :w { ?s :p ?o } } UNION { WINDOW :w2 { ?s :q ?o } }"
    out = run(
        query("RStream", TWO_STREAMS, where),
        TWO_STREAM_EVENTS,
        end=30,
        t0="first-event",
        report=("window-close", "non-empty-content"),
    )
    assert [(r.time, r.window, who(r)) for r in out] == [
        (8, (3, 8), ["u"]),
        (10, (0, 10), ["u", "x", "x2"]),
        (20, (10, 20), ["y"]),
        (23, (18, 23), ["v", "y"]),
    ]


# --- aligned: RANGE 3 STEP 2 registered at 2 ---------------------------------------
#
#   time        2    3    5    6    7    8    10
#   events      x         y         z
#   t0 in [2,4) with c = t0 + 3 a multiple of 2: t0 = 3 -> [3,6), [5,8), [7,10)
#   (registration would be t0 = 2: [2,5), [4,7), [6,9))
def test_aligned_t0_closes_windows_at_multiples_of_the_slide() -> None:
    window = "FROM NAMED WINDOW :w ON STREAM :s [RANGE 3 STEP 2]"
    events = [
        (2, [triple("x", "p", "o")]),
        (5, [triple("y", "p", "o")]),
        (7, [triple("z", "p", "o")]),
    ]
    out = run(query("RStream", window, ANY_S), events, end=10, start=2, t0="aligned")
    assert [(r.time, r.window, who(r)) for r in out] == [
        (6, (3, 6), ["y"]),
        (8, (5, 8), ["y", "z"]),
        (10, (7, 10), ["z"]),
    ]


# --- R2S over bags: tumbling 10, [o,c), t0 = 0, ?s of every triple ---------------
#
#   W0 [0,10)  a p1, a p2, b p1   -> [a, a, b]
#   W1 [10,20) a p1, c p1         -> [a, c]
#   W2 [20,30) a p1, a p2, a p3   -> [a, a, a]
#   W3 [30,40) (empty)            -> []
R2S_EVENTS = [
    (1, [triple("a", "p1", "x"), triple("a", "p2", "x"), triple("b", "p1", "x")]),
    (11, [triple("a", "p1", "x"), triple("c", "p1", "x")]),
    (21, [triple("a", "p1", "x"), triple("a", "p2", "x"), triple("a", "p3", "x")]),
]


@pytest.mark.parametrize(
    ("r2s", "expected", "times"),
    [
        ("RStream", [["a", "a", "b"], ["a", "c"], ["a", "a", "a"]], [10, 20, 30]),
        # IStream (new - previous): W0 - {} = {a:2, b}; W1 - W0 = {a, c} - {a:2, b}
        # = {c}; W2 - W1 = {a:3} - {a, c} = {a:2}; W3 - W2 = {} (not emitted)
        ("IStream", [["a", "a", "b"], ["c"], ["a", "a"]], [10, 20, 30]),
        # DStream (previous - new): {} at 10 (not emitted); W0 - W1 = {a, b};
        # W1 - W2 = {c}; W2 - W3 = {a:3}
        ("DStream", [["a", "b"], ["c"], ["a", "a", "a"]], [20, 30, 40]),
    ],
)
def test_r2s_bag_differences(r2s: str, expected: list[list[str]], times: list[int]) -> None:
    out = run(query(r2s, TUMBLING_10, ANY_S, "?s"), R2S_EVENTS, end=40)
    assert [who(r) for r in out] == expected
    assert [r.time for r in out] == times


def test_empty_relations_on_and_off() -> None:
    # Same stream as above; W3 is empty and evaluated (no non-empty-content).
    text = query("IStream", TUMBLING_10, ANY_S, "?s")
    quiet = run(text, R2S_EVENTS, end=40, empty_relations=False)
    loud = run(text, R2S_EVENTS, end=40, empty_relations=True)
    assert [r.time for r in quiet] == [10, 20, 30]
    assert [(r.time, r.bindings) for r in loud][3] == (40, ())
    assert [r.window for r in loud] == [(0, 10), (10, 20), (20, 30), (30, 40)]


def test_non_empty_content_skips_the_evaluation_altogether() -> None:
    #   W0 [0,10) a | W1 [10,20) empty | W2 [20,30) a
    # Without non-empty-content W1 is evaluated ([]) so IStream reports a again at
    # 30; with it, W1 is not an evaluation instant and W2 adds nothing new to W0.
    events = [(1, [triple("a", "p", "o")]), (21, [triple("a", "p", "o")])]
    text = query("IStream", TUMBLING_10, ANY_S, "?s")
    every = run(text, events, end=30, empty_relations=True)
    non_empty = run(
        text,
        events,
        end=30,
        empty_relations=True,
        report=("window-close", "non-empty-content"),
    )
    assert [(r.time, who(r)) for r in every] == [(10, ["a"]), (20, []), (30, ["a"])]
    assert [(r.time, who(r)) for r in non_empty] == [(10, ["a"]), (30, [])]


def test_window_content_is_a_set() -> None:
    # The same triple at 1 and 2 is one triple of W0: one solution, not two.
    events = [(1, [triple("a", "p", "o")]), (2, [triple("a", "p", "o")] * 2)]
    out = run(query("RStream", TUMBLING_10, ANY_S, "?s"), events, end=10)
    assert [who(r) for r in out] == [["a"]]


def test_filter_over_typed_literals() -> None:
    def value(lexical: str, datatype: str = "double") -> str:
        return f'"{lexical}"^^<{XSD}{datatype}>'

    events = [
        (
            1,
            [
                triple("o1", "v", value("54")),
                triple("o2", "v", value("81.5")),
                triple("o3", "v", value("80")),
                triple("o4", "v", value("90", "integer")),
                triple("o5", "v", '"95"'),
            ],
        )
    ]  # a plain string is not > 80
    out = run(
        query("RStream", TUMBLING_10, "WINDOW :w { ?s :v ?v } FILTER(?v > 80)"),
        events,
        end=10,
    )
    assert who(out[0]) == ["o2", "o4"]
    assert {b["v"] for b in out[0].bindings} == {value("81.5"), value("90", "integer")}


def test_join_with_static_data(tmp_path: Path) -> None:
    static = tmp_path / "shops.ttl"
    static.write_text(f"@prefix : <{EX}> .\n:alice :owns :a .\n:bob :owns :b .\n")
    events = [(1, [triple("carl", "isNearby", "a"), triple("eve", "isNearby", "c")])]
    text = query("RStream", TUMBLING_10, "WINDOW :w { ?s :isNearby ?shop } ?owner :owns ?shop")
    out = run(text, events, end=10, static=(static,))
    assert [
        {k: v.removeprefix(f"<{EX}").removesuffix(">") for k, v in b.items()}
        for b in out[0].bindings
    ] == [{"s": "carl", "shop": "a", "owner": "alice"}]


def test_unbound_variables_are_left_out() -> None:
    events = [(1, [triple("a", "p", "o"), triple("a", "label", '"A"'), triple("b", "p", "o")])]
    text = query(
        "RStream",
        TUMBLING_10,
        "WINDOW :w { ?s :p ?o OPTIONAL { ?s :label ?l } }",
        "?s ?l",
    )
    out = run(text, events, end=10)
    assert bag(out[0].bindings) == bag([{"s": iri("a"), "l": '"A"'}, {"s": iri("b")}])
