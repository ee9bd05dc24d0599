"""Content narrowing never changes the strict verdict (a property test).

On small random streams and queries (any bounds, report policy, R2S, time
unit and registration start), an engine's output (the reference engine's
for a random t0, then perhaps damaged) is judged twice: against
the classes the content narrowing computes, and by brute force against
every t0 in ``[a, a + slide)`` (all the oracle's classes, each the output of
the t0 it holds, as a fixed-t0 run gives it). The two verdicts must agree:
narrowing only drops classes that cannot reproduce the output.

The examples are derandomized (the same every run); a hunt draws many new
ones: ``pytest -m property --hypothesis-profile=hunt``
(``tests/helpers/properties.py``).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.engine.api import Result, Semantics
from pytest_rspbench.engine.harness import Received
from pytest_rspbench.oracle.t0 import narrowing
from pytest_rspbench.oracle.t0.narrowing import Reported
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.verdict.strict import match_class

from helpers.properties import BOUNDS, REPORTS, explore
from helpers.reference import run
from helpers.verdict import case

EX = "http://example.org/"
INT = "http://www.w3.org/2001/XMLSchema#integer"
END = 60

QUERIES = {
    "filter": "SELECT ?x ?v WHERE {{ WINDOW :w {{ ?x :p ?v FILTER(?v > 3) }} }}",
    "join": "SELECT ?x ?v ?u WHERE {{ WINDOW :w {{ ?x :p ?v . ?x :q ?u }} }}",
    "group": "SELECT ?x (COUNT(?v) AS ?n) WHERE {{ WINDOW :w {{ ?x :p ?v }} }} GROUP BY ?x",
    "count": "SELECT (COUNT(*) AS ?n) WHERE {{ WINDOW :w {{ ?x :p ?v }} }}",
    "union": "SELECT ?x WHERE {{ WINDOW :w {{ {{ ?x :p ?v }} UNION {{ ?x :q ?v }} }} }}",
    "optional": "SELECT ?x ?u WHERE {{ WINDOW :w {{ ?x :p ?v OPTIONAL {{ ?x :q ?u }} }} }}",
    "distinct": "SELECT DISTINCT ?v WHERE {{ WINDOW :w {{ ?x ?p ?v }} }}",
    # Two sides (?x's and ?y's) sharing ?v: placed apart (spans.sides).
    "self-join": "SELECT ?x ?y ?v WHERE {{ WINDOW :w {{ ?x :p ?v . ?y :q ?v FILTER(?x != ?y) }} }}",
    # ?x's side a star: each side placed by one pattern first (sides.relaxed).
    "star": "SELECT ?x ?y ?v WHERE {{ WINDOW :w {{ ?x :p ?v ; :q ?u . ?y :p ?v }} }}",
}


def query_text(kind: str, r2s: str, width: int, slide: int) -> str:
    body = QUERIES[kind].format()
    select, where = body.split(" WHERE ", 1)
    return (
        f"PREFIX : <{EX}>\nREGISTER {r2s} :out AS {select}\n"
        f"FROM NAMED WINDOW :w ON STREAM :s [RANGE {width} STEP {slide}]\nWHERE {where}"
    )


def events(seed: int) -> list[Event]:
    """Events at about half the milliseconds: many t0 classes, and subjects
    that recur now and then (so bindings say a little about their times)."""
    rng = random.Random(seed)
    out = []
    for t in sorted({rng.randrange(0, END) for _ in range(END // 2)}):
        triples = tuple(
            (
                f"<{EX}x{rng.randrange(12)}>",
                f"<{EX}{rng.choice('pq')}>",
                f'"{rng.randrange(6)}"^^<{INT}>',
            )
            for _ in range(rng.randrange(1, 3))
        )
        out.append(Event(t, triples))
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
    elif how == "borrow binding":
        other = out[rng.choice(full)].bindings[0]
        out[k] = Result((*r.bindings, other), r.time, r.window)
    elif how == "drop relation":
        del out[k]
    elif how == "untimed":
        out = [Result(x.bindings) for x in out]
    elif how == "late stamps":  # every time 1 ms after the window's close
        out = [Result(x.bindings, None if x.time is None else x.time + 1, x.window) for x in out]
    return out


KINDS = st.sampled_from(sorted(QUERIES))

# The space of the first property; the second widens it.
SPACE = {
    "seed": st.integers(0, 10_000),
    "kind": KINDS,
    "width": st.integers(3, 12),
    "slide_part": st.integers(2, 12),
    "bounds": BOUNDS,
    "report": REPORTS,
    "r2s": st.sampled_from(["RStream", "IStream"]),
    "unit": st.sampled_from([1, 1, 2, 3]),
    "start": st.integers(0, 4),
    "how": st.sampled_from(
        ["none", "none", "none", "untimed", "drop binding", "borrow binding", "drop relation"]
    ),
}
WIDER = SPACE | {
    "seed": st.integers(0, 100_000),
    "width": st.integers(2, 15),
    "slide_part": st.integers(1, 15),
    "r2s": st.sampled_from(["RStream", "IStream", "DStream"]),
    "unit": st.sampled_from([1, 2, 3, 5]),
    "start": st.integers(0, 7),
    "how": st.sampled_from(
        ["none", "none", "untimed", "late stamps", "drop binding", "borrow binding",
         "drop relation"]
    ),
}  # fmt: skip


# Each example runs the oracle on Spark: few, slow, and the same every run
# (many and random in a hunt: helpers/properties.py).
@pytest.mark.slow
@pytest.mark.spark
@explore(30, spark=True)
@given(**SPACE)
def test_content_narrowing_gives_the_brute_force_verdict(
    spark: Any, monkeypatch: pytest.MonkeyPatch, seed: int, kind: str, width: int,
    slide_part: int, bounds: str, report: tuple[str, ...], r2s: str, unit: int,
    start: int, how: str,
) -> None:  # fmt: skip
    judged_alike(spark, monkeypatch, seed, kind, width, slide_part, bounds, report, r2s, unit,
                 start, how)  # fmt: skip


@pytest.mark.slow
@pytest.mark.spark
@explore(10, spark=True)
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["join", "star"]),
    width=st.integers(3, 12),
    slide_part=st.integers(2, 12),
    bounds=BOUNDS,
    start=st.integers(0, 4),
    how=st.sampled_from(["none", "none", "drop binding", "borrow binding"]),
)
def test_one_pattern_a_side_allows_every_window_the_whole_pattern_does(
    spark: Any, monkeypatch: pytest.MonkeyPatch, seed: int, kind: str, width: int,
    slide_part: int, bounds: str, start: int, how: str,
) -> None:  # fmt: skip
    """The queries whose sides are placed by one pattern first (sides.relaxed)."""
    judged_alike(spark, monkeypatch, seed, kind, width, slide_part, bounds, ("window-close",),
                 "RStream", 1, start, how)  # fmt: skip


@pytest.mark.slow
@pytest.mark.spark
@explore(12, spark=True)
@given(
    **WIDER,
    reports_window=st.booleans(),
    empty=st.booleans(),
    active=st.sampled_from(["present", "earliest"]),
)
def test_content_narrowing_under_every_profile_field(
    spark: Any, monkeypatch: pytest.MonkeyPatch, seed: int, kind: str, width: int,
    slide_part: int, bounds: str, report: tuple[str, ...], r2s: str, unit: int,
    start: int, reports_window: bool, empty: bool, active: str, how: str,
) -> None:  # fmt: skip
    """The same property over the rest of the profile: windows reported or
    not, empty relations, the earliest active window, DStream, and stamps a
    millisecond late."""
    judged_alike(spark, monkeypatch, seed, kind, width, slide_part, bounds, report, r2s, unit,
                 start, how, reports_window=reports_window, empty_relations=empty,
                 active_window=active)  # fmt: skip


def judged_alike(
    spark: Any, monkeypatch: pytest.MonkeyPatch, seed: int, kind: str, width: int,
    slide_part: int, bounds: str, report: tuple[str, ...], r2s: str, unit: int,
    start: int, how: str, **profile: Any,
) -> None:  # fmt: skip
    """The narrowed verdict is the brute-force one; a side placed by one
    pattern allows every window the whole pattern allows. ``profile``: more
    of the engine's semantics (windows reported by default)."""
    from pytest_rspbench.oracle.oracle import expected_output

    monkeypatch.setattr(narrowing, "NARROW_ABOVE", 0)  # narrow even a few classes
    slide = min(slide_part, width)
    text = query_text(kind, r2s, width, slide)
    evs = events(seed)
    stream = Stream(EX + "s", lambda: iter(evs), f"random {seed}", end=END)
    rng = random.Random(seed)
    common = {"bounds": bounds, "report": report, "r2s": (r2s,), "reports_window": True,
              "time_unit": unit, **profile}  # fmt: skip
    t0 = start + rng.randrange(slide)
    output = damaged(reference(text, evs, start, t0=t0, **common), how, rng)
    received = [Received(r, 0.0, None) for r in output]
    comparison = case(mode="strict").comparison
    any_t0 = Semantics(t0="any", **common)
    query = parse(text)

    starts = {EX + "s": start}
    every = expected_output(spark, query, [stream], any_t0, starts=starts)
    placed, relaxed = narrowing._opens, []

    def opens(spark: Any, algebra: Any, ctx: Any, *more: Any) -> Any:
        found = placed(spark, algebra, ctx, *more)
        if ctx.relaxed:  # one pattern a side allows whatever the whole pattern does
            relaxed.append((found, placed(spark, algebra, replace(ctx, relaxed=False), *more)))
        return found

    monkeypatch.setattr(narrowing, "_opens", opens)
    brute = any(match_class(c, received, every.stable_from, comparison) for c in every.classes)
    narrowed = expected_output(
        spark, query, [stream], any_t0, starts=starts, reported=Reported.of(output)
    )
    verdict = any(
        match_class(c, received, narrowed.stable_from, comparison) for c in narrowed.classes
    )
    assert verdict == brute, narrowed.narrowing
    for loose, whole in relaxed:
        bounds = {o.relation: o for o in loose}
        for o in whole:
            if o.possible:
                assert bounds[o.relation].possible
                for i, (lo, hi) in o.bounds.items():
                    wide = bounds[o.relation].bounds[i]
                    assert wide[0] <= lo and hi <= wide[1], (wide, (lo, hi))
    if how == "none":
        assert brute, "the oracle reproduces the reference engine's output"
