"""The oracle and the reference engine are two independent implementations
of RSP-QL (they share no window or R2S code); on the same stream, query and
profile they must produce the same output stream, relation by relation."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rspbench_engines.reference.engine import ReferenceEngine

from pytest_rspbench.engine.api import Registration, Result, Semantics
from pytest_rspbench.oracle.oracle import expected_output
from pytest_rspbench.rsp import rspql
from pytest_rspbench.rsp.bags import bag
from pytest_rspbench.stream.model import Event, Stream

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("spark")]

EX = "http://example.org/"
INT = "http://www.w3.org/2001/XMLSchema#integer"


def stream(seed: int, iri: str = EX + "s", events: int = 14) -> Stream:
    rng = random.Random(seed)
    times = sorted({rng.randrange(0, 40) for _ in range(events)})
    out = []
    for t in times:
        triples = tuple(
            (
                f"<{EX}x{rng.randrange(5)}>",
                f"<{EX}{rng.choice('pq')}>",
                f'"{rng.randrange(10)}"^^<{INT}>',
            )
            for _ in range(rng.randrange(1, 4))
        )
        out.append(Event(t, triples))
    return Stream(iri, lambda: iter(out), f"random stream {seed}")


FILTER = """PREFIX : <http://example.org/>
REGISTER {r2s} :out AS SELECT ?x ?v
FROM NAMED WINDOW :w ON STREAM :s [RANGE {width} STEP {slide}]
WHERE {{ WINDOW :w {{ ?x :p ?v . FILTER(?v > 3) }} }}"""

JOIN = """PREFIX : <http://example.org/>
REGISTER {r2s} :out AS SELECT ?x ?v ?u
FROM NAMED WINDOW :w ON STREAM :s [RANGE {width} STEP {slide}]
WHERE {{ WINDOW :w {{ ?x :p ?v . ?x :q ?u }} }}"""

AGGREGATE = """PREFIX : <http://example.org/>
REGISTER {r2s} :out AS SELECT ?x (COUNT(?v) AS ?n)
FROM NAMED WINDOW :w ON STREAM :s [RANGE {width} STEP {slide}]
WHERE {{ WINDOW :w {{ ?x :p ?v }} }} GROUP BY ?x"""


def run_reference(
    text: str, streams: list[Stream], semantics: Semantics, end: int, static=()
) -> list[Result]:
    out: list[Result] = []
    engine = ReferenceEngine()
    engine.open(
        Registration(text, tuple(s.iri for s in streams), 0, semantics, tuple(static)), out.append
    )
    merged = sorted(
        ((e.time, k, s.iri, e) for k, s in enumerate(streams) for e in s.events()),
        key=lambda x: x[:2],
    )
    for _, _, iri, event in merged:
        engine.push(iri, event)
    engine.end(end)
    engine.close()
    return out


def compare(spark, text, streams, semantics, static_triples=(), static_files=()) -> None:
    query = rspql.parse(text)
    end = max(s.end if s.end is not None else max(e.time for e in s.events()) for s in streams)
    actual = run_reference(text, streams, semantics, end, static_files)
    expected = expected_output(spark, query, streams, semantics, static_triples)
    assert len(expected.classes) == 1
    relations = expected.classes[0].relations
    assert [(r.time, r.window) for r in actual] == [(r.time, r.window) for r in relations]
    assert [bag(r.bindings) for r in actual] == [bag(r.bindings) for r in relations]


PROFILES = [
    ("(o,c]", ("window-close",), "RStream", False),
    ("[o,c)", ("window-close", "non-empty-content"), "RStream", False),
    ("[o,c]", ("window-close",), "IStream", True),
    ("(o,c]", ("window-close", "non-empty-content"), "DStream", True),
    ("[o,c)", ("content-change",), "RStream", False),
    ("(o,c]", ("content-change",), "IStream", False),
]


@pytest.mark.parametrize(("bounds", "report", "r2s", "empty"), PROFILES)
@pytest.mark.parametrize(("width", "slide"), [(6, 3), (5, 5), (7, 2)])
def test_filter_query(spark, bounds, report, r2s, empty, width, slide):
    semantics = Semantics(
        bounds=bounds, t0=0, report=report, r2s=(r2s,), empty_relations=empty, reports_window=True
    )
    text = FILTER.format(r2s=r2s, width=width, slide=slide)
    compare(spark, text, [stream(width * 10 + slide)], semantics)


@pytest.mark.parametrize("query", [JOIN, AGGREGATE], ids=["join", "aggregate"])
@pytest.mark.parametrize(("bounds", "report", "r2s", "empty"), PROFILES[:4])
def test_join_and_aggregate(spark, query, bounds, report, r2s, empty):
    semantics = Semantics(
        bounds=bounds, t0=0, report=report, r2s=(r2s,), empty_relations=empty, reports_window=True
    )
    compare(spark, query.format(r2s=r2s, width=8, slide=4), [stream(7)], semantics)


def test_two_windows_over_two_streams_with_static_data(spark, tmp_path: Path):
    """RSP-QL Example 10 (the discount coupons): reported at 8, 9 and 16."""

    def event(t, *triples):
        return Event(
            t,
            tuple(
                (f"<{EX}{s}>", f"<{EX}{p}>", o if o.startswith('"') else f"<{EX}{o}>")
                for s, p, o in triples
            ),
        )

    nearby = [
        event(2, ("diana", "isNearby", "a"), ("eve", "isNearby", "b")),
        event(5, ("carl", "isNearby", "a")),
        event(7, ("eve", "isNearby", "a")),
        event(12, ("diana", "isNearby", "b")),
    ]
    coupons = [
        event(8, ("alice", "offers", '"10% off"')),
        event(15, ("bob", "offers", '"free coffee"')),
    ]
    streams = [
        Stream(EX + "nearby", lambda: iter(nearby), "nearby", end=17),
        Stream(EX + "coupons", lambda: iter(coupons), "coupons", end=17),
    ]
    shops = tmp_path / "shops.ttl"
    shops.write_text(f"<{EX}alice> <{EX}owns> <{EX}a> .\n<{EX}bob> <{EX}owns> <{EX}b> .\n")
    static = [
        (f"<{EX}alice>", f"<{EX}owns>", f"<{EX}a>"),
        (f"<{EX}bob>", f"<{EX}owns>", f"<{EX}b>"),
    ]
    text = (
        f"PREFIX : <{EX}>\nREGISTER RStream :out AS SELECT ?s ?shop ?owner ?coupon\n"
        "FROM NAMED WINDOW :w1 ON STREAM :nearby [RANGE 5 STEP 2]\n"
        "FROM NAMED WINDOW :w2 ON STREAM :coupons [RANGE 2 STEP 2]\n"
        "WHERE { WINDOW :w1 { ?s :isNearby ?shop } WINDOW :w2 { ?owner :offers ?coupon } ?owner :owns ?shop }"
    )
    for empty in (False, True):
        semantics = Semantics(
            bounds="(o,c]",
            t0=0,
            report=("window-close", "non-empty-content"),
            empty_relations=empty,
            reports_window=True,
        )
        compare(spark, text, streams, semantics, static, [shops])
    query = rspql.parse(text)
    quiet = Semantics(bounds="(o,c]", t0=0, report=("window-close", "non-empty-content"))
    out = expected_output(spark, query, streams, quiet, static).classes[0].relations
    assert [(r.time, r.window) for r in out] == [(8, (6, 8)), (9, (4, 9)), (16, (14, 16))]
    assert sorted(b["s"] for b in out[0].bindings) == [f"<{EX}carl>", f"<{EX}eve>"]


def test_aligned_t0_puts_every_close_on_a_multiple_of_the_slide(spark):
    """``t0: aligned`` (rsp-js's grid): RANGE 5 STEP 2 has t0 = -5 mod 2 = 1,
    the same output as the profile that fixes t0 = 1, one class."""
    text = FILTER.format(r2s="RStream", width=5, slide=2)
    query = rspql.parse(text)
    streams = [stream(52)]
    aligned = Semantics(
        bounds="[o,c)", t0="aligned", report=("window-close",), empty_relations=True
    )
    fixed = Semantics(bounds="[o,c)", t0=1, report=("window-close",), empty_relations=True)
    got = expected_output(spark, query, streams, aligned)
    assert len(got.classes) == 1 and got.classes[0].first == 1
    relations = got.classes[0].relations
    assert relations and all(r.window[1] % 2 == 0 for r in relations)
    want = expected_output(spark, query, streams, fixed).classes[0].relations
    assert [(r.time, r.window, bag(r.bindings)) for r in relations] == [
        (r.time, r.window, bag(r.bindings)) for r in want
    ]
