"""Replaying several streams: each event reaches the engine on its own stream.

Regression: ``harness.merged`` built its per-stream generators as generator
expressions inside a list comprehension, which read the stream lazily, so
every event was tagged with the last stream's IRI and a query over two
streams saw one empty window and one window holding both streams.
"""

from __future__ import annotations

from engine_helpers import Recording
from engine_helpers import named_stream as stream

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Registration

EX = "http://example.org/"


STREAMS = [stream("a", [1, 3, 3, 7]), stream("b", [0, 3, 5]), stream("c", [2])]


def test_merged_tags_each_event_with_its_own_stream_in_time_order():
    got = [(iri.removeprefix(EX), e.time, e.triples[0][0]) for iri, e in harness.merged(STREAMS)]
    assert got == [
        ("b", 0, f"<{EX}b0>"),
        ("a", 1, f"<{EX}a1>"),
        ("c", 2, f"<{EX}c2>"),
        ("a", 3, f"<{EX}a3>"),  # ties: the earlier stream first, each stream in order
        ("a", 3, f"<{EX}a3>"),
        ("b", 3, f"<{EX}b3>"),
        ("b", 5, f"<{EX}b5>"),
        ("a", 7, f"<{EX}a7>"),
    ]


def test_run_pushes_each_event_on_its_own_stream():
    engine = Recording()
    registration = Registration("", tuple(s.iri for s in STREAMS), 0)
    actual = harness.run(engine, registration, STREAMS, 8, sample_interval=None)
    assert actual.error is None and actual.events_sent == 8
    by_stream = {s.iri: [t for iri, t in engine.pushed if iri == s.iri] for s in STREAMS}
    assert by_stream == {EX + "a": [1, 3, 3, 7], EX + "b": [0, 3, 5], EX + "c": [2]}
