"""Late and duplicated deliveries: the harness sends them, the reference
engine with a lateness puts them back in order."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine_helpers import Recording
from engine_helpers import named_stream as stream
from hypothesis import given, settings
from hypothesis import strategies as st
from rspbench_engines.reference.engine import ReferenceEngine
from rspbench_engines.reference.reorder import Reorder

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Registration, Result, Semantics
from pytest_rspbench.stream.model import Event, Stream
from pytest_rspbench.stream.workloads import Disorder

EX = "http://example.org/"

QUERY = (
    f"PREFIX : <{EX}>\nREGISTER RStream :out AS SELECT ?x ?v\n"
    f"FROM NAMED WINDOW :w ON STREAM :s [RANGE 60 STEP 20]\n"
    "WHERE { WINDOW :w { ?x :p ?v } }"
)


def event(time: int, name: str) -> Event:
    return Event(time, ((f"<{EX}{name}>", f"<{EX}p>", f'"{time}"'),))


def test_the_timeline_of_the_module_docstring() -> None:
    reorder = Reorder(2)
    passed = [[e.time for _, e in reorder.push("s", event(t, f"e{t}"))] for t in (1, 4, 2, 5, 2, 7)]
    assert passed == [[], [1], [2], [], [], [4, 5]]
    assert [e.time for _, e in reorder.drain()] == [7]
    assert reorder.dropped == 1


def test_an_event_older_than_what_was_processed_is_dropped() -> None:
    reorder = Reorder(2)
    for t in (0, 10, 13):
        list(reorder.push("s", event(t, "a")))  # 10 is processed (13 - 2 = 11)
    assert list(reorder.push("s", event(3, "late"))) == []
    assert reorder.dropped == 1
    # Older than the newest time minus L, but not than what was processed:
    # still in order for the windows, so it is processed at once.
    assert [e.time for _, e in reorder.push("s", event(11, "b"))] == [11]


def test_the_harness_delivers_in_arrival_order_with_repeats() -> None:
    engine = Recording()
    streams = [stream("a", list(range(0, 200, 10)))]
    disorder = {streams[0].iri: Disorder(late=0.5, max_delay=25, duplicates=0.3, seed=4)}
    registration = Registration("", (streams[0].iri,), 0)
    harness.run(engine, registration, streams, 200, sample_interval=None, disorder=disorder)
    times = [t for _, t in engine.pushed]
    assert sorted(set(times)) == list(range(0, 200, 10))
    assert len(times) > 20  # some repeated
    assert times != sorted(times)  # some late
    in_order = Recording()
    harness.run(in_order, registration, streams, 200, sample_interval=None)
    assert [t for _, t in in_order.pushed] == list(range(0, 200, 10))


def outputs(events: Sequence[tuple[float, Event]], lateness: int) -> list[tuple]:
    results: list[Result] = []
    engine = ReferenceEngine()
    semantics = Semantics(bounds="[o,c)", t0=0, lateness=lateness)
    engine.open(Registration(QUERY, (EX + "s",), 0, semantics), results.append)
    for _, e in events:
        engine.push(EX + "s", e)
    engine.end(400)
    return [(r.time, r.window, sorted(map(str, r.bindings))) for r in results]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 399), min_size=1, max_size=40, unique=True).map(sorted),
    st.integers(1, 50),
    st.integers(0, 2**16),
)
def test_with_enough_lateness_disorder_changes_nothing(
    times: list[int], max_delay: int, seed: int
) -> None:
    events = [event(t, f"e{k % 5}") for k, t in enumerate(times)]
    ordered = [(e.time, e) for e in events]
    disorder = Disorder(late=0.4, max_delay=max_delay, duplicates=0.3, seed=seed)
    s = Stream(EX + "s", lambda: iter(events), "test")
    arrived = list(harness.deliveries([s], {s.iri: disorder}))
    shuffled = [(a, e) for a, _, e in arrived]
    assert outputs(shuffled, 2 * max_delay) == outputs(ordered, 0)


def test_without_lateness_a_late_event_is_missed() -> None:
    rng = random.Random(1)
    events = [event(t, f"e{t}") for t in range(0, 400, 7)]
    late = events[:]
    moved = late.pop(10)  # time 70 arrives after 140
    late.insert(20, moved)
    arrived = [(rng.random(), e) for e in late]
    assert outputs(arrived, 0) != outputs([(0, e) for e in events], 0)
    assert outputs(arrived, 80) == outputs([(0, e) for e in events], 0)
