"""Metamorphic relations of the oracle and the strict verdict together.

Each test draws a case (``rspbench explore``'s generator: a random RSP-QL
query within the reference engine's profile, random streams on a 250 ms
grid) and an engine's answer to it (the reference engine's, under the
declared profile or another one, sometimes damaged), judges it end to end
(stream files, replay, oracle on Spark, strict verdict: helpers/metamorphic),
then changes the case in a way that must not move the verdict and judges it
again. Whatever the engine sent, the two verdicts agree::

    case, answer ──judge──▶ pass / FAIL (departures)
        │ change                     ║  the same
        ▼                            ║
    case', answer' ─judge──▶ pass / FAIL (departures)

(a) time unit: on a grid of u ms, ``time_unit: u`` and ``time_unit: 1``
    (the engine's reported times not trusted);
(b) shift: every time, the registration and a fixed t0 moved by a multiple
    of the slide;
(c) renaming: IRIs (an order-keeping change of namespace) and blank nodes;
(d) triple order within an event (and solution order within a relation);
(e) layout: one stream written in every format spec sources read, one file
    or one file per event;
(f) an output that passes, with one relation repeated, dropped or moved,
    fails and names the departure.

The pinned examples run in every build; ``--hypothesis-profile=hunt`` draws
many more (tests/helpers/properties.py).
"""

from __future__ import annotations

import random
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, assume, example, given, reject, settings
from hypothesis import strategies as st

from pytest_rspbench.engine.api import Result
from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.explore.cases import generate
from pytest_rspbench.explore.queries import GRID
from pytest_rspbench.explore.scope import scope_of
from pytest_rspbench.explore.streams import Drawn
from pytest_rspbench.rsp.bags import bag
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.stream.model import Event

from helpers.metamorphic import LAYOUTS, Verdict, World, answer, damaged, judge, world_of
from helpers.properties import explore, hunting

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
# The reference engine's scope, streams in time order (disorder is a relation
# of its own: the harness's, not the verdict's).
SCOPE = replace(scope_of(resolve("reference", ROOT)), lateness=0)
NAMESPACE = "http://example.org/explore/"
RENAMED = "http://renamed.example/ns#"  # all IRIs share the prefix: their order is kept


def examples(count: int) -> settings:
    """``count`` examples on Spark (:func:`explore`); shrunk only in a hunt,
    where a minimal failure is worth its minutes (each step is two oracle runs)."""
    pinned = explore(count, spark=True)
    if hunting():
        return pinned
    return settings(pinned, phases=(Phase.explicit, Phase.reuse, Phase.generate))


seeds = st.integers(0, 2**31 - 1)
numbers = st.integers(0, 60)
ANSWERS = ("declared", "other-bounds", "other-t0", "damaged")
answers = st.sampled_from(ANSWERS)


def engine_semantics(declared: Semantics, how: str, rng: random.Random) -> Semantics:
    """What the engine whose answer is judged really runs."""
    if how == "other-bounds":
        others = [b for b in ("(o,c]", "[o,c)", "[o,c]") if b != declared.bounds.value]
        return replace(declared, bounds=rng.choice(others))
    if how == "other-t0":
        return replace(declared, t0=rng.choice(("registration", "first-event", "aligned", 750)))
    if declared.t0 == "any":  # the engine picks one
        return replace(declared, t0=rng.choice(("registration", "first-event", "aligned")))
    return declared


def drawn(
    seed: int,
    number: int,
    how: str,
    folder: Path,
    change: Callable[[Semantics], Semantics] | None = None,
) -> World:
    """Case ``number`` of ``seed`` and an engine's answer to it (see :data:`ANSWERS`)."""
    world = world_of(generate(seed, number, SCOPE))
    if change is not None:
        world = replace(world, semantics=change(world.semantics))
    rng = random.Random(f"{seed}:{number}:{how}")
    results = answer(world, engine_semantics(world.semantics, how, rng), folder / "engine")
    if how == "damaged":
        results = damaged(results, rng)
    return replace(world, results=results)


def verdict(world: World, folder: Path, spark: Any, layout: str = "ntriples-ts") -> Verdict:
    """:func:`judge`; a query the oracle refuses is no example."""
    try:
        return judge(world, Path(tempfile.mkdtemp(dir=folder)), spark, layout)
    except UnsupportedQueryError:
        reject()


def same(before: Verdict, after: Verdict, what: str) -> None:
    assert after.key == before.key, (
        f"{what} moved the verdict:\n  before: {before.headline}\n  after:  {after.headline}"
    )


# -- (a) the engine's time unit, on a grid of that unit --------------------------


@examples(2)
@given(seeds, numbers, answers)
@example(seed=11, number=0, how="declared")
@example(seed=5, number=30, how="other-bounds")
def test_a_grid_judged_in_its_unit_or_in_ms_gives_one_verdict(
    spark: Any, tmp_path: Path, seed: int, number: int, how: str
) -> None:
    def untrusted(s: Semantics) -> Semantics:
        return replace(s, reports_window=False, time_unit=GRID)

    world = drawn(seed, number, how, tmp_path, untrusted)
    coarse = verdict(world, tmp_path, spark)
    fine = verdict(replace(world, semantics=replace(world.semantics, time_unit=1)), tmp_path, spark)
    same(coarse, fine, f"time_unit {GRID} -> 1")


# -- (b) a shift by a multiple of the slide ---------------------------------------


def shifted(world: World, by: int) -> World:
    def stream(s: Drawn) -> Drawn:
        events = tuple(Event(e.time + by, e.triples) for e in s.events)
        end = None if s.end is None else s.end + by
        return replace(s, events=events, start=s.start + by, end=end)

    def result(r: Result) -> Result:
        window = None if r.window is None else (r.window[0] + by, r.window[1] + by)
        return replace(r, time=None if r.time is None else r.time + by, window=window)

    t0 = world.semantics.t0
    semantics = replace(world.semantics, t0=t0 + by if isinstance(t0, int) else t0)
    return replace(
        world,
        streams=tuple(stream(s) for s in world.streams),
        semantics=semantics,
        results=tuple(result(r) for r in world.results),
    )


@examples(2)
@given(seeds, numbers, answers, st.integers(-3, 6).filter(bool))
@example(seed=3, number=2, how="damaged", slides=2)
@example(seed=8, number=14, how="other-t0", slides=-1)
def test_shifting_every_time_by_slides_moves_no_verdict(
    spark: Any, tmp_path: Path, seed: int, number: int, how: str, slides: int
) -> None:
    world = drawn(seed, number, how, tmp_path)
    by = slides * world.slide()
    same(verdict(world, tmp_path, spark), verdict(shifted(world, by), tmp_path, spark), f"+{by} ms")


# -- (c) renaming IRIs and blank nodes ----------------------------------------------

BLANK = re.compile(r"_:([A-Za-z0-9]+)")


def renamed(world: World) -> World:
    def term(t: str) -> str:
        t = t.replace(NAMESPACE, RENAMED)
        return BLANK.sub(r"_:renamed\1x", t) if t.startswith("_:") else t

    def triples(ts: tuple) -> tuple:
        return tuple(tuple(term(x) for x in t) for t in ts)

    def stream(s: Drawn) -> Drawn:
        events = tuple(Event(e.time, triples(e.triples)) for e in s.events)
        return replace(s, iri=term(s.iri), events=events)

    def result(r: Result) -> Result:
        return replace(r, bindings=tuple({k: term(v) for k, v in b.items()} for b in r.bindings))

    return replace(
        world,
        query=world.query.replace(NAMESPACE, RENAMED),
        streams=tuple(stream(s) for s in world.streams),
        static=triples(world.static),
        results=tuple(result(r) for r in world.results),
    )


@examples(2)
@given(seeds, numbers, answers)
@example(seed=2, number=26, how="declared")
@example(seed=21, number=40, how="damaged")
def test_renaming_iris_and_blank_nodes_moves_no_verdict(
    spark: Any, tmp_path: Path, seed: int, number: int, how: str
) -> None:
    world = drawn(seed, number, how, tmp_path)
    same(verdict(world, tmp_path, spark), verdict(renamed(world), tmp_path, spark), "renaming")


# -- (d) the order of triples within an event ----------------------------------------


def shuffled(world: World, rng: random.Random) -> World:
    """Each event's triples (and each relation's solutions) in another order.

    A count window cut inside an event breaks the tie by arrival
    (``count_ties: arrival``): there the order of an event's triples is the
    order they arrive in, and part of the input. With ``count_ties: any``
    (set by the test) every order is right, so the verdict must not depend on it.
    """

    def mixed(items: tuple) -> tuple:
        out = list(items)
        rng.shuffle(out)
        return tuple(out)

    streams = tuple(
        replace(s, events=tuple(Event(e.time, mixed(e.triples)) for e in s.events))
        for s in world.streams
    )
    results = tuple(replace(r, bindings=mixed(r.bindings)) for r in world.results)
    return replace(world, streams=streams, results=results)


@examples(2)
@given(seeds, numbers, answers, st.randoms(use_true_random=False))
@example(seed=4, number=36, how="other-bounds", rng=random.Random(1))
def test_the_order_of_triples_in_an_event_moves_no_verdict(
    spark: Any, tmp_path: Path, seed: int, number: int, how: str, rng: random.Random
) -> None:
    world = drawn(seed, number, how, tmp_path)
    if world.semantics.count_ties is not None:
        world = replace(world, semantics=replace(world.semantics, count_ties="any"))
    mixed = shuffled(world, rng)
    assume(mixed.streams != world.streams)
    same(verdict(world, tmp_path, spark), verdict(mixed, tmp_path, spark), "reordering triples")


# -- (e) one stream, in every format and layout a spec source reads -------------------

layouts = st.lists(st.sampled_from(LAYOUTS[1:]), min_size=1, max_size=2, unique=True)


@examples(1)
@given(seeds, numbers, answers, layouts)
@example(seed=6, number=24, how="damaged", chosen=list(LAYOUTS[1:]))
def test_a_stream_in_any_format_or_split_into_files_gives_one_verdict(
    spark: Any, tmp_path: Path, seed: int, number: int, how: str, chosen: list[str]
) -> None:
    world = drawn(seed, number, how, tmp_path)
    base = verdict(world, tmp_path, spark)
    for layout in chosen:
        same(base, verdict(world, tmp_path, spark, layout), f"layout {layout}")


# -- (f) a passing output, one relation repeated, dropped or moved -------------------

EXPECTED = {
    "repeat": {"duplicate-report"},
    "drop": {"lost-window", "missing-final-window"},
    "move": {"out-of-order"},
}
# Over a count window, one more or one fewer relation at an event is also
# what an engine counting the other unit sends (an event of two triples is
# two rows of [TRIPLES 1] but one of [ROWS 1]): the verdict may name that.
COUNTED = {"count-unit", "count-size"}
FIXED = ("registration", "first-event", "aligned")


def contents(results: Sequence[Result]) -> list[Counter]:
    return [bag(r.bindings) for r in results]


def mutated(
    results: tuple[Result, ...], stable_from: int, how: str, rng: random.Random
) -> tuple[Result, ...] | None:
    """``results`` with one relation from ``t_s`` on repeated, dropped or
    moved; None when no change must fail.

    A relation before ``t_s`` is transient: the verdict skips it, so losing
    it is no departure. Nor is a change to relations that are alike: the
    verdict compares contents in order (times are not trusted to be
    application times), so the changed relation's content appears in no
    transient relation, and a move must change the order of contents::

        transient | from t_s on
        {}        | {a} {}  {b}      repeat {b}: {a} {} {b} {b}   fails
                  |                  drop {}: not chosen ({} is transient too)
    """
    stable = [k for k, r in enumerate(results) if r.time is not None and r.time >= stable_from]
    early = [b for k, b in enumerate(contents(results)) if k not in stable]
    chosen = [k for k in stable if bag(results[k].bindings) not in early]
    if not chosen or (how == "move" and len(stable) < 2):
        return None
    out = list(results)
    k = rng.choice(chosen)
    if how == "repeat":
        out.insert(k, out[k])
    elif how == "drop":
        del out[k]
    else:
        out.insert(rng.choice([j for j in stable if j != k]), out.pop(k))
        if contents(out) == contents(results):
            return None
    return tuple(out)


@examples(3)
@given(seeds, numbers, st.sampled_from(FIXED), st.sampled_from(sorted(EXPECTED)), st.randoms())
@example(seed=1, number=12, t0="registration", how="repeat", rng=random.Random(0))
@example(seed=1, number=12, t0="registration", how="drop", rng=random.Random(0))
@example(seed=1, number=12, t0="registration", how="move", rng=random.Random(0))
@example(seed=21002, number=13, t0="aligned", how="drop", rng=random.Random(0))  # all alike
@example(seed=741, number=27, t0="registration", how="repeat", rng=random.Random(1))  # ROWS 1
def test_a_relation_repeated_dropped_or_moved_fails_and_is_named(
    spark: Any, tmp_path: Path, seed: int, number: int, t0: str, how: str, rng: random.Random
) -> None:
    world = drawn(seed, number, "declared", tmp_path, lambda s: replace(s, t0=t0))
    assume(len(world.results) >= 2)
    base = verdict(world, tmp_path, spark)
    assume(base.passed)  # the reference engine's own departures are explore's to find
    changed = mutated(world.results, base.stable_from, how, rng)
    assume(changed is not None)
    assert changed is not None
    after = verdict(replace(world, results=changed), tmp_path, spark)
    assert not after.passed, f"{how} passed: {after.headline}"
    counted = any(w.kind in ("rows", "triples") for w in parse(world.query).declared)
    named = EXPECTED[how] | (COUNTED if counted and how != "move" else set())
    assert set(after.departures) & named, (
        f"{how}: named {after.departures or 'nothing'}: {after.headline}"
    )
