"""Streams whose triples never repeat skip the oracle's de-duplication.

A window's content is a set of triples (RSP-QL Def. 13), so a triple that
arrives twice inside one window counts once, and so does each solution built
from it. When the stream cache (or the in-memory path) finds that no triple
occurs twice in a stream, the plan leaves out both de-duplications: the
answers must be the same either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.oracle.store.streamcache import StreamCache
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.stream.model import Event, Stream

from helpers.spies import returns

pytestmark = pytest.mark.spark

IRI = "http://ex/s"
A = ("<http://ex/a>", "<http://ex/p>", "<http://ex/b>")
B = ("<http://ex/b>", "<http://ex/q>", "<http://ex/c>")
QUERY = parse(
    "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?x ?z\n"
    f"FROM NAMED WINDOW :w ON STREAM <{IRI}> [RANGE 10 STEP 10]\n"
    "WHERE { WINDOW :w { ?x :p ?y . ?y :q ?z } }"
)
SEMANTICS = Semantics(bounds="[o,c)", t0=0, report=("window-close",))

#   time   1    2    3                 window [0,10)
#   A      x         x                 A arrives twice: one triple in the set
#   B           x
REPEATED = [Event(1, (A,)), Event(2, (B,)), Event(3, (A,))]
UNIQUE = [Event(1, (A,)), Event(2, (B,))]


def stream(events: list[Event]) -> Stream:
    return Stream(IRI, lambda: iter(events), "in memory", end=10)


@pytest.mark.parametrize("cached", [True, False], ids=["parquet", "in-memory"])
@pytest.mark.parametrize("events", [REPEATED, UNIQUE], ids=["repeated", "unique"])
def test_a_window_is_a_set_of_triples(
    spark: Any, tmp_path: Path, cached: bool, events: list[Event]
) -> None:
    from pytest_rspbench.oracle.oracle import expected_output

    cache = StreamCache(tmp_path) if cached else None
    out = expected_output(spark, QUERY, [stream(events)], SEMANTICS, cache=cache)
    (cls,) = out.classes
    (relation,) = cls.relations
    assert relation.triples == 2
    assert relation.bindings == ({"x": "<http://ex/a>", "z": "<http://ex/c>"},)


def test_the_cache_records_whether_a_triple_repeats(spark: Any, tmp_path: Path) -> None:
    cache = StreamCache(tmp_path)
    assert cache.materialise(spark, stream(UNIQUE)).distinct
    assert not cache.materialise(spark, stream(REPEATED)).distinct


@pytest.mark.parametrize("cached", [True, False], ids=["parquet", "in-memory"])
def test_counts_from_event_sizes_equal_counting_triples(
    spark: Any, tmp_path: Path, cached: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A distinct stream's window counts are summed from each event time's
    triple count (no Spark job); they must equal the counts of the scan, for
    every t0 class of a sliding window, with several triples per time
    (tests/oracle/test_local_counts.py checks the same on random examples)."""
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.t0 import solutions

    events = [
        Event(
            t, tuple((f"<http://ex/o{t}_{k}>", "<http://ex/p>", f'"{k}"') for k in range(t % 3 + 1))
        )
        for t in range(0, 23, 2)
    ]
    sliding = parse(QUERY.text.replace("[RANGE 10 STEP 10]", "[RANGE 7 STEP 3]"))
    semantics = Semantics(bounds="[o,c]", t0="any", report=("window-close",), empty_relations=True)

    def counts() -> list[list[int]]:
        cache = StreamCache(tmp_path / str(cached)) if cached else None
        out = expected_output(
            spark, sliding, [Stream(IRI, lambda: iter(events), "in memory", end=23)], semantics,
            cache=cache, keep=False,
        )  # fmt: skip
        return [[r.triples for r in cls.relations] for cls in out.classes]

    used = returns(monkeypatch, solutions, "local_counts")
    by_sizes = counts()
    assert used and used[-1] is not None  # summed, no Spark job
    monkeypatch.setattr(solutions, "local_counts", lambda *args: None)
    by_scan = counts()
    assert by_sizes == by_scan
    assert len(by_sizes) == 3 and any(n > 2 for c in by_sizes for n in c)
