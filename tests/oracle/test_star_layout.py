"""Subject stars over a property table against the triple table, output for output.

With ``RSPBENCH_STAR_LAYOUT=on`` the compiler reads a BGP's subject stars
from the stream's property table (oracle/sparql/stars.py); with ``off`` every
pattern reads the triple table. For hand-written and generated streams (with
predicates that some subject has twice, at one time or at two, and
predicates a query names that the stream lacks) and star queries of 2 to 5
patterns (with OPTIONAL, FILTER, a star joined to another subject, count and
session windows), both must give the same expected output.
"""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.oracle.sparql import patterns, stars
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Event, Stream

from helpers.properties import explore

pytestmark = pytest.mark.spark

EX = "http://ex.org/"
INT = "http://www.w3.org/2001/XMLSchema#integer"
STREAM = EX + "s"


def iri(name: str) -> str:
    return f"<{EX}{name}>"


def num(value: int) -> str:
    return f'"{value}"^^<{INT}>'


def observation(name: str, **values: str) -> list[tuple[str, str, str]]:
    return [(iri(name), iri(p), o) for p, o in values.items()]


# obs1..obs6 are each seen at one time; :b is twice for obs3 (two objects at
# one time), :c is on obs2 at two times (one object), :link joins obs to a
# sensor whose :room is a star of its own; :zz is in no triple.
EVENTS = [
    Event(0, (*observation("o1", a=num(1), b=num(10), c=iri("x"), d='"one"'),
              (iri("o1"), iri("link"), iri("sen1")))),
    Event(500, (*observation("o2", a=num(2), b=num(20), c=iri("y")),
                *observation("sen1", room=iri("r1"), kind=iri("T")))),
    Event(1500, (*observation("o3", a=num(3), b=num(30), d='"three"'),
                 (iri("o3"), iri("b"), num(31)), (iri("o3"), iri("link"), iri("sen1")))),
    Event(2500, (*observation("o4", a=num(4), c=iri("x"), d='"four"', e=num(4)),
                 (iri("o2"), iri("c"), iri("y")))),
    Event(4000, (*observation("o5", a=num(5), b=num(50), c=iri("y"), d='"five"', e=num(5)),
                 (iri("o5"), iri("link"), iri("sen2")),
                 *observation("sen2", room=iri("r2"), kind=iri("H")))),
    Event(7000, (*observation("o6", a=num(6), b=num(60), c=iri("x"), d='"six"', e=num(6)),)),
]  # fmt: skip

STARS: dict[str, tuple[str, str]] = {
    "two": ("?o ?v ?w", "?o :a ?v ; :b ?w"),
    "three-constant": ("?o ?v", "?o :a ?v ; :c :x ; :d ?l"),
    "four": ("?o ?v ?w ?c ?l", "?o :a ?v ; :b ?w ; :c ?c ; :d ?l"),
    "five": ("?o ?v ?w ?c ?l ?e", "?o :a ?v ; :b ?w ; :c ?c ; :d ?l ; :e ?e"),
    "absent": ("?o ?v ?z", "?o :a ?v ; :d ?l ; :zz ?z"),
    "filter": ("?o ?v ?w", '?o :a ?v ; :b ?w ; :d ?l FILTER(?v + ?w > 22 && ?l != "six")'),
    "optional": ("?o ?v ?w ?c", "?o :a ?v ; :d ?l OPTIONAL { ?o :b ?w ; :c ?c }"),
    "optional-around": ("?o ?r", "?o :link ?s OPTIONAL { ?o :a ?v ; :d ?l } ?s :room ?r"),
    "two-stars": ("?o ?v ?r ?k", "?o :a ?v ; :link ?s . ?s :room ?r ; :kind ?k"),
    "same-object": ("?o ?v", "?o :a ?v ; :e ?v"),
    "same-predicate": ("?o ?v ?w", "?o :a ?v ; :a ?w ; :c ?c"),
    "blank": ("?v ?l", "[] :a ?v ; :d ?l"),
}
TIME = Semantics(bounds="(o,c]", t0="any", report=("window-close",))
COUNTED = Semantics(
    bounds="[o,c)", t0=0, report=("window-close", "non-empty-content"),
    windows=("time", "rows", "triples", "session"), count_order="time",
    count_ties="arrival", count_rampup="report", count_tick="tuple-driven",
    count_bounds="[first,last]", session_gap="split", session_bounds="[first,last]",
)  # fmt: skip


def rspql(name: str, windows: tuple[str, ...] = ("[RANGE 3000 STEP 1000]",)) -> str:
    select, where = STARS[name]
    clauses = "\n".join(f"FROM NAMED WINDOW :w{n} ON STREAM :s {w}" for n, w in enumerate(windows))
    bodies = " ".join(f"WINDOW :w{n} {{ {where} }}" for n in range(len(windows)))
    return f"PREFIX : <{EX}>\nREGISTER RStream :out AS\nSELECT {select}\n{clauses}\nWHERE {{ {bodies} }}\n"


def stream_of(events: list[Event]) -> Stream:
    return Stream(STREAM, lambda: iter(events), "star layout")


def outputs(expected: Any) -> list[Any]:
    return [
        [
            (r.time, tuple(r.window), Counter(tuple(sorted(b.items())) for b in r.bindings))
            for r in c.relations
        ]
        for c in expected.classes
    ]


def both(
    spark: Any,
    text: str,
    events: list[Event],
    semantics: Semantics,
    monkeypatch: Any,
    cache: Any = None,
) -> tuple[Any, Any, int]:
    """The expected output with the layout and without it, and how many
    stars the first read from a property table."""
    from pytest_rspbench.oracle.oracle import expected_output

    used = []
    real = patterns.star_relation

    def counted(*args: Any, **kwargs: Any) -> Any:
        used.append(args[1])
        return real(*args, **kwargs)

    query, streams = parse(text), [stream_of(events)]
    with monkeypatch.context() as patch:
        patch.setattr(patterns, "star_relation", counted)
        patch.setenv(stars.ENV, "on")
        laid = expected_output(spark, query, streams, semantics, cache=cache)
        patch.setenv(stars.ENV, "off")
        plain = expected_output(spark, query, streams, semantics, cache=cache)
    return laid, plain, len(used)


@pytest.mark.parametrize("name", sorted(STARS))
def test_stars_in_time_windows(spark: Any, name: str, monkeypatch: Any) -> None:
    laid, plain, used = both(spark, rspql(name), EVENTS, TIME, monkeypatch)
    assert laid.evaluator == plain.evaluator == "spark-dataframe"
    assert outputs(laid) == outputs(plain)
    assert any(r.bindings for c in plain.classes for r in c.relations) or name == "absent"
    # :b is twice for obs3: "two" reads the triple table, the others a star
    # of :a, :d, :e, :link, :room or :kind at least (:zz, in no triple, never).
    assert bool(used) == (name != "two")


@pytest.mark.parametrize(
    ("name", "windows"),
    [
        ("four", ("[ROWS 2 STEP 1]",)),
        ("optional", ("[TRIPLES 7 STEP 3]",)),
        ("filter", ("[SESSION 1200]",)),
        ("two-stars", ("[RANGE 3000 STEP 1000]", "[SESSION 1000]")),
        ("four", ("[RANGE 2000 STEP 2000]", "[ROWS 3]")),
    ],
)
def test_stars_in_count_and_session_windows(
    spark: Any, name: str, windows: tuple[str, ...], monkeypatch: Any
) -> None:
    """Count and session windows keep the triple table; a time window
    beside them reads its stars from the property table."""
    laid, plain, used = both(spark, rspql(name, windows), EVENTS, COUNTED, monkeypatch)
    assert outputs(laid) == outputs(plain)
    assert any(r.bindings for c in plain.classes for r in c.relations)
    assert bool(used) == any(w.startswith("[RANGE") for w in windows)


def test_engine_clock(spark: Any, monkeypatch: Any) -> None:
    """On a coarse clock the table's times are truncated as the triples' are."""
    coarse = Semantics(bounds="[o,c)", t0="any", report=("window-close",), time_unit=1000)
    laid, plain, used = both(spark, rspql("four"), EVENTS, coarse, monkeypatch)
    assert outputs(laid) == outputs(plain) and used


def test_the_table_is_kept_in_the_stream_cache(
    spark: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    from pytest_rspbench.oracle.store import housekeeping, starcache
    from pytest_rspbench.oracle.store.streamcache import CacheRepairWarning, StreamCache

    cache = StreamCache(tmp_path)
    try:
        laid, plain, used = both(spark, rspql("four"), EVENTS, TIME, monkeypatch, cache)
        assert outputs(laid) == outputs(plain) and used
        (entry,) = [e for e in housekeeping.entries(tmp_path) if e.kind == "stream"]
        with warnings.catch_warnings():
            # The triples' check ignores the table's folder: found, not repaired.
            warnings.simplefilter("error", CacheRepairWarning)
            stored = cache.materialise(None, stream_of(EVENTS))
        assert stored.path == entry.path
        meta = starcache.table_folder(stored) / starcache.META
        assert meta.is_file()
        assert "<http://ex.org/b>" not in meta.read_text()  # obs3 has two
        # Read back, not written again: the same answer.
        again, _, _ = both(spark, rspql("four"), EVENTS, TIME, monkeypatch, cache)
        assert outputs(again) == outputs(plain)
    finally:
        cache.close()


def test_the_setting(monkeypatch: Any) -> None:
    from pytest_rspbench.errors import OracleError

    monkeypatch.setenv(stars.ENV, "OFF")
    assert not stars.enabled()
    monkeypatch.setenv(stars.ENV, "on")
    assert stars.enabled()
    monkeypatch.delenv(stars.ENV)
    assert stars.enabled() == (stars.DEFAULT == "on")
    monkeypatch.setenv(stars.ENV, "maybe")
    with pytest.raises(OracleError, match="on or off"):
        stars.enabled()


PREDICATES = ["a", "b", "c", "d"]


@st.composite
def streams(draw: Any) -> list[Event]:
    """A few events of a few observations from a small pool of subjects (so
    a subject comes again, at another time), each with some of the
    predicates, now and then one of them twice."""
    time = 0
    out = []
    for _ in range(draw(st.integers(1, 6))):
        time += draw(st.sampled_from([100, 500, 1000, 2500]))
        triples = []
        for _ in range(draw(st.integers(1, 3))):
            s = iri(f"o{draw(st.integers(1, 5))}")
            for p in draw(st.lists(st.sampled_from(PREDICATES), min_size=1, unique=True)):
                for _ in range(draw(st.sampled_from([1, 1, 1, 2]))):
                    triples.append((s, iri(p), num(draw(st.integers(0, 3)))))
        out.append(Event(time, tuple(triples)))
    return out


GENERATED = [
    ("?o ?v ?w", "?o :a ?v ; :b ?w", "[RANGE 2000 STEP 1000]"),
    ("?o ?v ?w ?x", "?o :a ?v ; :b ?w ; :c ?x FILTER(?v <= ?w)", "[RANGE 3000 STEP 1000]"),
    ("?o ?v ?w ?x ?y", "?o :a ?v ; :b ?w ; :c ?x ; :d ?y", "[RANGE 5000 STEP 2500]"),
    ("?o ?v ?w", "?o :a ?v OPTIONAL { ?o :b ?w ; :d ?w }", "[RANGE 2000 STEP 500]"),
    ("?o ?v ?z", "?o :a ?v ; :zz ?z ; :c ?x", "[RANGE 2000 STEP 1000]"),
    ("?o ?v ?w", "?o :a ?v ; :b ?w", "[ROWS 3 STEP 2]"),
    ("?o ?v ?w", "?o :c ?v ; :d ?w", "[SESSION 600]"),
]


@pytest.mark.slow
@explore(15, spark=True)
@given(events=streams(), number=st.integers(0, len(GENERATED) - 1))
def test_generated_streams(spark: Any, events: list[Event], number: int) -> None:
    select, where, window = GENERATED[number]
    text = (
        f"PREFIX : <{EX}>\nREGISTER RStream :out AS\nSELECT {select}\n"
        f"FROM NAMED WINDOW :w ON STREAM :s {window}\nWHERE {{ WINDOW :w {{ {where} }} }}\n"
    )
    semantics = COUNTED if window.startswith(("[ROWS", "[SESSION")) else TIME
    with pytest.MonkeyPatch.context() as patch:
        laid, plain, _ = both(spark, text, events, semantics, patch)
    assert outputs(laid) == outputs(plain)
