"""Oracle cases that must give the same output on every kind of Spark master.

Used by ``test_distributed.py``: in the test process (local mode) through
:func:`compute`, and as a script in a fresh interpreter for a cluster::

    python tests/distributed_cases.py spark://127.0.0.1:7077

which prints :func:`compute`'s result as one JSON document on stdout. A fresh
interpreter because a SparkSession already active in a process is reused,
whatever master it runs on.

The cases shuffle (joins, aggregates, distinct counts), use several t0
classes, two streams with static data, and the pyoxigraph fallback (a Python
UDF on the executors). They are small: the point is where they run.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EX = "http://example.org/"
INT = "http://www.w3.org/2001/XMLSchema#integer"
# Wall seconds of each case in the last compute() call (for timing reports).
SECONDS: dict[str, float] = {}

JOIN_FILTER_AGGREGATE = """PREFIX : <http://example.org/>
REGISTER RStream :out AS
SELECT ?x (COUNT(?v) AS ?n) (SUM(?u) AS ?total)
FROM NAMED WINDOW :w ON STREAM :s [RANGE 8 STEP 3]
WHERE { WINDOW :w { ?x :p ?v . ?x :q ?u FILTER(?v > 2) } }
GROUP BY ?x"""

DISCOUNT_COUPONS = """PREFIX : <http://example.org/>
REGISTER IStream :out AS SELECT ?s ?shop ?owner ?coupon
FROM NAMED WINDOW :w1 ON STREAM :nearby [RANGE 5 STEP 2]
FROM NAMED WINDOW :w2 ON STREAM :coupons [RANGE 2 STEP 2]
WHERE { WINDOW :w1 { ?s :isNearby ?shop } WINDOW :w2 { ?owner :offers ?coupon }
        ?owner :owns ?shop }"""


def random_stream(seed: int, iri: str = EX + "s", events: int = 40) -> Any:
    """Events at random times with :p and :q triples on five subjects."""
    from pytest_rspbench.stream.model import Event, Stream

    rng = random.Random(seed)
    times = sorted({rng.randrange(0, 60) for _ in range(events)})
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


def _join_filter_aggregate(spark: Any, force_fallback: bool = False) -> Any:
    from pytest_rspbench.engine.api import Semantics
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.rsp import rspql

    # t0 "any": several t0 classes, all computed in the same job.
    semantics = Semantics(bounds="[o,c)", t0="any", report=("window-close",), empty_relations=True)
    return expected_output(
        spark,
        rspql.parse(JOIN_FILTER_AGGREGATE),
        [random_stream(7)],
        semantics,
        force_fallback=force_fallback,
    )


def _discount_coupons(spark: Any) -> Any:
    from pytest_rspbench.engine.api import Semantics
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.rsp import rspql
    from pytest_rspbench.stream.model import Event, Stream

    def event(t: int, *triples: tuple[str, str, str]) -> Event:
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
    static = [
        (f"<{EX}alice>", f"<{EX}owns>", f"<{EX}a>"),
        (f"<{EX}bob>", f"<{EX}owns>", f"<{EX}b>"),
    ]
    semantics = Semantics(
        bounds="(o,c]", t0=0, report=("window-close", "non-empty-content"), r2s=("IStream",)
    )
    return expected_output(spark, rspql.parse(DISCOUNT_COUPONS), streams, semantics, static)


CASES: dict[str, Callable[[Any], Any]] = {
    "join-filter-aggregate": _join_filter_aggregate,
    "discount-coupons": _discount_coupons,
    "fallback": lambda spark: _join_filter_aggregate(spark, force_fallback=True),
}


def canonical(expected: Any) -> dict[str, Any]:
    """The output as plain JSON data; bindings (bags) sorted, so comparable."""
    return {
        "evaluator": expected.evaluator,
        "stable_from": expected.stable_from,
        "classes": [
            {
                "first": cls.first,
                "last": cls.last,
                "relations": [
                    {
                        "index": rel.index,
                        "time": rel.time,
                        "window": list(rel.window),
                        "triples": rel.triples,
                        # Lists, not tuples: the same after a JSON round trip.
                        "bindings": sorted(
                            sorted([k, v] for k, v in b.items()) for b in rel.bindings
                        ),
                    }
                    for rel in cls.relations
                ],
            }
            for cls in expected.classes
        ],
    }


def compute(spark: Any) -> dict[str, Any]:
    """Every case on ``spark``: name -> canonical output, or the error it raised."""
    out: dict[str, Any] = {}
    for name, case in CASES.items():
        began = time.perf_counter()
        try:
            out[name] = canonical(case(spark))
        except Exception as exc:  # reported per case, compared as such
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
        SECONDS[name] = round(time.perf_counter() - began, 1)
    return out


def main(master: str) -> None:
    from pytest_rspbench.oracle.spark import SparkProvider

    provider = SparkProvider(master)
    began = time.perf_counter()
    try:
        spark = provider.get()
        started = time.perf_counter()
        result = compute(spark)
        result["_seconds"] = {"start": round(started - began, 1), **SECONDS}
    finally:
        provider.stop()
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    main(sys.argv[1])
