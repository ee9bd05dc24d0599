"""Aggregate values place relations (oracle/t0/aggregated.py), and never change the verdict.

The property test draws small random streams of distinct triples (so the
sweep applies), grouped and ungrouped aggregates, any bounds, window sizes
and registration start; the reference engine's output for a random t0,
perhaps damaged (a binding dropped, a value changed, a relation dropped,
times removed), is judged against the classes the narrowing computes and,
by brute force, against every class. The verdicts must agree, and a
correct output must pass.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.engine.api import Result, Semantics
from pytest_rspbench.engine.harness import Received
from pytest_rspbench.oracle.t0 import narrowing
from pytest_rspbench.oracle.t0.aggregated import applies, shape_of
from pytest_rspbench.oracle.t0.narrowing import Reported
from pytest_rspbench.oracle.t0.solutions import _algebra
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.verdict.strict import match_class

from helpers.properties import BOUNDS, ON_CLOSE, explore
from helpers.reference import run
from helpers.verdict import case

EX = "http://example.org/"
INT = "http://www.w3.org/2001/XMLSchema#integer"
END = 60

QUERIES = {
    "count-group": "SELECT ?g (COUNT(?v) AS ?n) WHERE {{ WINDOW :w {{ ?x :v ?v ; :g ?g }} }} "
    "GROUP BY ?g",
    "sum-group": "SELECT ?g (SUM(?v) AS ?n) WHERE {{ WINDOW :w {{ ?x :v ?v ; :g ?g }} }} GROUP BY ?g",
    "avg-group": "SELECT ?g (AVG(?v) AS ?n) WHERE {{ WINDOW :w {{ ?x :v ?v ; :g ?g "
    "FILTER(?v > 1) }} }} GROUP BY ?g",
    "max-group": "SELECT ?g (MAX(?v) AS ?n) WHERE {{ WINDOW :w {{ ?x :v ?v ; :g ?g }} }} GROUP BY ?g",
    "min-group": "SELECT ?g (MIN(?v) AS ?n) WHERE {{ WINDOW :w {{ ?x :v ?v ; :g ?g }} }} GROUP BY ?g",
    "count-all": "SELECT (COUNT(*) AS ?n) WHERE {{ WINDOW :w {{ ?x :v ?v }} }}",
    "sum-all": "SELECT (SUM(?v) AS ?n) WHERE {{ WINDOW :w {{ ?x :v ?v }} }}",
    "avg-all": "SELECT (AVG(?v) AS ?n) WHERE {{ WINDOW :w {{ ?x :v ?v FILTER(?v < 8) }} }}",
}


def query_text(kind: str, width: int, slide: int) -> str:
    select, where = QUERIES[kind].format().split(" WHERE ", 1)
    return (
        f"PREFIX : <{EX}>\nREGISTER RStream :out AS {select}\n"
        f"FROM NAMED WINDOW :w ON STREAM :s [RANGE {width} STEP {slide}]\nWHERE {where}"
    )


def events(seed: int) -> list[Event]:
    """Events at about half the milliseconds, each observation's triples
    distinct from every other's (an observation is a subject of its own)."""
    rng = random.Random(seed)
    out = []
    for t in sorted({rng.randrange(0, END) for _ in range(END // 2)}):
        triples: list[tuple[str, str, str]] = []
        for k in range(rng.randrange(1, 3)):
            x = f"<{EX}o{t}_{k}>"
            triples.append((x, f"<{EX}v>", f'"{rng.randrange(10)}"^^<{INT}>'))
            triples.append((x, f"<{EX}g>", f"<{EX}g{rng.randrange(3)}>"))
        out.append(Event(t, tuple(triples)))
    return out


def reference(text: str, evs: list[Event], start: int, **semantics: Any) -> list[Result]:
    """What the reference engine outputs with these semantics."""
    return run(text, [(e.time, e.triples) for e in evs], END, start=start, **semantics)


def damaged(results: list[Result], how: str, rng: random.Random) -> list[Result]:
    out = list(results)
    full = [k for k, r in enumerate(out) if r.bindings]
    if how == "none" or not full:
        return out
    k = rng.choice(full)
    r = out[k]
    if how == "drop binding":
        out[k] = Result(r.bindings[1:], r.time, r.window)
    elif how == "change value":
        first = dict(r.bindings[0])
        first["n"] = f'"{rng.randrange(1, 40)}"^^<{INT}>'
        out[k] = Result((first, *r.bindings[1:]), r.time, r.window)
    elif how == "drop relation":
        del out[k]
    elif how == "untimed":
        out = [Result(x.bindings) for x in out]
    return out


def test_only_whole_window_aggregates_are_swept() -> None:
    def shape(select: str) -> Any:
        head = f"PREFIX : <{EX}>\nREGISTER RStream :out AS "
        window = "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 5]\n"
        head_select, rest = select.split(" WHERE ", 1)
        return shape_of(_algebra(parse(head + head_select + "\n" + window + "WHERE " + rest)))

    assert shape("SELECT (COUNT(*) AS ?n) WHERE { WINDOW :w { ?x :v ?v } }") is not None
    assert shape("SELECT (COUNT(DISTINCT ?v) AS ?n) WHERE { WINDOW :w { ?x :v ?v } }") is None
    assert shape("SELECT (SUM(?v * 2) AS ?n) WHERE { WINDOW :w { ?x :v ?v } }") is None
    assert shape("SELECT (COUNT(*) + 1 AS ?n) WHERE { WINDOW :w { ?x :v ?v } }") is None
    assert (
        shape(
            "SELECT ?x (COUNT(*) AS ?n) WHERE { WINDOW :w { ?x :v ?v } } "
            "GROUP BY ?x HAVING (COUNT(*) > 1)"
        )
        is None
    )
    assert shape("SELECT (COUNT(*) AS ?n) WHERE { WINDOW :w { ?x :v ?v } } LIMIT 1") is None
    assert applies(Semantics(report=("window-close", "non-empty-content")))
    assert not applies(Semantics(report=("content-change",)))
    assert not applies(Semantics(r2s=("IStream",)))


@pytest.mark.slow
@pytest.mark.spark
@explore(25, spark=True)
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(sorted(QUERIES)),
    width=st.integers(3, 12),
    slide_part=st.integers(2, 12),
    bounds=BOUNDS,
    report=st.sampled_from(ON_CLOSE),
    start=st.integers(0, 4),
    how=st.sampled_from(
        ["none", "none", "none", "untimed", "drop binding", "change value", "drop relation"]
    ),
)
def test_aggregate_values_give_the_brute_force_verdict(
    spark: Any, monkeypatch: pytest.MonkeyPatch, seed: int, kind: str, width: int,
    slide_part: int, bounds: str, report: tuple[str, ...], start: int, how: str,
) -> None:  # fmt: skip
    from pytest_rspbench.oracle.oracle import expected_output

    monkeypatch.setattr(narrowing, "NARROW_ABOVE", 0)  # narrow even a few classes
    slide = min(slide_part, width)
    text = query_text(kind, width, slide)
    evs = events(seed)
    stream = Stream(EX + "s", lambda: iter(evs), f"random {seed}", end=END)
    rng = random.Random(seed)
    common = dict(bounds=bounds, report=report, r2s=("RStream",), reports_window=True)
    t0 = start + rng.randrange(slide)
    output = damaged(reference(text, evs, start, t0=t0, **common), how, rng)
    received = [Received(r, 0.0, None) for r in output]
    comparison = case(mode="strict").comparison
    any_t0 = Semantics(t0="any", **common)
    query = parse(text)
    starts = {EX + "s": start}

    every = expected_output(spark, query, [stream], any_t0, starts=starts)
    brute = any(match_class(c, received, every.stable_from, comparison) for c in every.classes)
    narrowed = expected_output(
        spark, query, [stream], any_t0, starts=starts, reported=Reported.of(output)
    )
    verdict = any(
        match_class(c, received, narrowed.stable_from, comparison) for c in narrowed.classes
    )
    assert verdict == brute, narrowed.narrowing
    if how == "none":
        assert brute, "the oracle reproduces the reference engine's output"
        if any(r.bindings for r in output) and every.total_classes > 1:
            assert "aggregate values" in (narrowed.narrowing or ""), narrowed.narrowing


@pytest.mark.spark
def test_a_sum_without_group_pins_t0(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """SUM without GROUP BY names no solution; its values still place the
    windows: of the 10 classes, only the engine's is computed."""
    from pytest_rspbench.oracle.oracle import expected_output

    monkeypatch.setattr(narrowing, "NARROW_ABOVE", 0)
    evs = [Event(t, ((f"<{EX}o{t}>", f"<{EX}v>", f'"{t * t % 97}"^^<{INT}>'),)) for t in range(60)]
    stream = Stream(EX + "s", lambda: iter(evs), "one a millisecond", end=60)
    text = query_text("sum-all", 10, 10)
    common = dict(bounds="[o,c)", report=("window-close",), r2s=("RStream",))
    output = reference(text, evs, 0, t0=4, **common)
    untimed = [Result(r.bindings) for r in output]
    expected = expected_output(
        spark, parse(text), [stream], Semantics(t0="any", **common), reported=Reported.of(untimed)
    )
    assert expected.total_classes == 10
    assert [c.label for c in expected.classes] == ["4"], expected.narrowing
    assert "aggregate values" in (expected.narrowing or "")
    received = [Received(r, 0.0, None) for r in untimed]
    comparison = case(mode="strict").comparison
    assert any(match_class(c, received, expected.stable_from, comparison) for c in expected.classes)


@pytest.mark.spark
@pytest.mark.parametrize("kind", ["count-group", "sum-all"])
def test_a_repeated_triple_is_counted_once_or_not_swept(
    spark: Any, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """A window holds a set of triples: a triple repeated in the stream is
    one solution in a window that holds both copies, while its two stream
    rows are two solutions of the sweep. The values must then place nothing
    (the narrowing falls back to the content), and a correct engine passes."""
    from pytest_rspbench.oracle.oracle import expected_output

    monkeypatch.setattr(narrowing, "NARROW_ABOVE", 0)

    def observation(k: int) -> tuple[tuple[str, str, str], ...]:
        x = f"<{EX}o{k}>"
        return (x, f"<{EX}v>", f'"{k % 5 + 1}"^^<{INT}>'), (x, f"<{EX}g>", f"<{EX}g{k % 2}>")

    # Observation 3 (at 9 ms) is sent again at 30 ms, triple for triple.
    evs = [Event(t, observation(3 if t == 30 else t // 3)) for t in range(0, 60, 3)]
    stream = Stream(EX + "s", lambda: iter(evs), "one observation repeated", end=60)
    text = query_text(kind, 40, 10)
    common = dict(bounds="[o,c)", report=("window-close",), r2s=("RStream",))
    output = reference(text, evs, 0, t0=7, **common)
    untimed = [Result(r.bindings) for r in output]
    expected = expected_output(
        spark, parse(text), [stream], Semantics(t0="any", **common), reported=Reported.of(untimed)
    )
    assert "aggregate values" not in (expected.narrowing or ""), expected.narrowing
    received = [Received(r, 0.0, None) for r in untimed]
    comparison = case(mode="strict").comparison
    assert any(match_class(c, received, expected.stable_from, comparison) for c in expected.classes)
