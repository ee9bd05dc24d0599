"""The reference engine's own RSP-QL parser and window arithmetic."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rspbench_engines.reference.query import parse_duration, parse_query
from rspbench_engines.reference.sliding import Sliding

TWO_WINDOWS = """
PREFIX : <http://example.org/>
PREFIX ex: <http://ex.org/ns#>
REGISTER DStream <http://out> AS
SELECT ?s ?c
FROM NAMED WINDOW :w1 ON STREAM :nearby [RANGE PT5S STEP PT2S]
FROM NAMED WINDOW <http://example.org/w2> ON ex:coupons [RANGE 2000]
WHERE {
  WINDOW :w1 { ?s ex:isNearby ?shop }
  WINDOW :w2 { ?o ex:offers ?c }
  ?o ex:owns ?shop .
}
"""


def test_parse_expands_prefixes_and_reads_every_window() -> None:
    query = parse_query(TWO_WINDOWS)
    assert query.r2s == "DStream"
    assert query.output == "http://out"
    assert [(w.name, w.stream, w.width, w.slide) for w in query.windows] == [
        ("http://example.org/w1", "http://example.org/nearby", 5000, 2000),
        # no STEP: a tumbling window
        ("http://example.org/w2", "http://ex.org/ns#coupons", 2000, 2000),
    ]


def test_static_sparql_drops_register_and_from_and_uses_graphs() -> None:
    sparql = parse_query(TWO_WINDOWS).sparql
    assert "REGISTER" not in sparql
    assert "FROM" not in sparql
    assert "WINDOW" not in sparql
    assert "GRAPH <http://example.org/w1> {" in sparql
    assert "GRAPH <http://example.org/w2> {" in sparql
    assert "PREFIX ex: <http://ex.org/ns#>" in sparql


def test_keywords_are_case_insensitive() -> None:
    query = parse_query(
        "prefix : <http://e/> register istream :o as select * "
        "from named window :w on stream :s [range 10 step 5] "
        "where { window :w { ?a ?b ?c } }"
    )
    assert query.r2s == "IStream"
    assert (query.windows[0].width, query.windows[0].slide) == (10, 5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SELECT * WHERE { ?s ?p ?o }", "REGISTER"),
        (
            "REGISTER Foo <o> AS SELECT * FROM NAMED WINDOW <w> ON <s> [RANGE 1] "
            "WHERE { WINDOW <w> { ?s ?p ?o } }",
            "unknown R2S",
        ),
        ("REGISTER RStream <o> AS SELECT * WHERE { ?s ?p ?o }", "declares no window"),
        (
            "REGISTER RStream <o> AS SELECT * FROM NAMED WINDOW <w> ON <s> [RANGE 1] "
            "WHERE { WINDOW <v> { ?s ?p ?o } }",
            "no FROM NAMED WINDOW",
        ),
        (
            "REGISTER RStream <o> AS SELECT * FROM NAMED WINDOW x:w ON <s> [RANGE 1] "
            "WHERE { WINDOW x:w { ?s ?p ?o } }",
            "not declared",
        ),
        (
            "REGISTER RStream <o> AS SELECT * FROM NAMED WINDOW <w> ON <s> [RANGE 0] "
            "WHERE { WINDOW <w> { ?s ?p ?o } }",
            "positive",
        ),
    ],
)
def test_bad_queries_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_query(text)


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("10000", 10000),
        ("PT10S", 10000),
        ("PT0.5S", 500),
        ("PT2M", 120000),
        ("PT1H", 3600000),
        ("P1D", 86400000),
        ("PT1M30S", 90000),
    ],
)
def test_durations(text: str, ms: int) -> None:
    assert parse_duration(text) == ms


def test_bad_duration() -> None:
    with pytest.raises(ValueError, match="ISO-8601"):
        parse_duration("10x")


def test_durations_with_a_unit_as_the_spec_format_has_them() -> None:
    assert [parse_duration(t) for t in ("500ms", "10s", "2m", "1h")] == [
        500,
        10000,
        120000,
        3600000,
    ]


def test_example_7_windows() -> None:
    # RSP-QL Example 7: alpha=5, beta=2, t0=1 -> (1,6], (3,8], (5,10]
    #   time   1 2 3 4 5 6 7 8 9 10
    #   W0     (---------]
    #   W1         (---------]
    #   W2             (---------]
    w = Sliding(5, 2, 1, "(o,c]")
    assert [(w.opening(i), w.closing(i)) for i in range(3)] == [(1, 6), (3, 8), (5, 10)]
    assert [w.inside(i) for i in range(3)] == [(2, 6), (4, 8), (6, 10)]


@given(
    width=st.integers(1, 30),
    slide=st.integers(1, 30),
    t0=st.integers(-50, 50),
    t=st.integers(-100, 200),
    bounds=st.sampled_from(["(o,c]", "[o,c)", "[o,c]"]),
)
def test_arithmetic_matches_brute_force(
    width: int, slide: int, t0: int, t: int, bounds: str
) -> None:
    w = Sliding(width, slide, t0, bounds)
    windows = range(0, 260)  # enough to pass t = 200 with slide 1, t0 = -50

    def holds(i: int, time: int) -> bool:
        o, c = t0 + i * slide, t0 + i * slide + width
        low = o < time if bounds[0] == "(" else o <= time
        high = time < c if bounds[-1] == ")" else time <= c
        return low and high

    def edges(i: int) -> tuple[int, int]:
        o = t0 + i * slide
        held = [x for x in range(o - 1, o + width + 2) if holds(i, x)]
        return held[0], held[-1]

    inside = [edges(i) for i in windows]
    assert all(w.contains(i, t) == holds(i, t) for i in windows)
    assert all(w.inside(i) == inside[i] for i in windows)
    opened = [i for i in windows if inside[i][0] <= t]
    assert w.present(t) == (max(opened) if opened else None)
    assert w.first_holding_from(t) == min(i for i in windows if inside[i][1] >= t)
    limit = w.complete_through(t)
    assert all((w.closing(i) <= limit) == (inside[i][1] < t) for i in windows)
