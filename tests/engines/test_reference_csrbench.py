"""The reference engine on the real CSRBench stream (34 events, 15,188 triples).

Expected answers are computed here without the engine: with rdflib's own
SPARQL engine on each window's triples (the benchmark's static query text),
and with a direct Python scan of the triples.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import rdflib
from rspbench_engines.reference.engine import ReferenceEngine

from pytest_rspbench.engine.api import Registration, Result, Semantics
from pytest_rspbench.stream.model import Event

from helpers.reference import bag

DATA = Path(__file__).resolve().parents[2] / "pytest_rspbench" / "data" / "csrbench"
OM = "http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#"
WEATHER = "http://knoesis.wright.edu/ssw/ont/weather.owl#"
STREAM = "http://example.org/csrbench"


@cache
def events() -> tuple[Event, ...]:
    """data_NN.ttl is the event at NN * 1000 ms."""
    found = []
    for path in sorted((DATA / "stream").glob("data_*.ttl")):
        quads = ox.parse(path=path, format=ox.RdfFormat.TURTLE)
        triples = tuple((str(q.subject), str(q.predicate), str(q.object)) for q in quads)
        found.append(Event(int(path.stem.split("_")[1]) * 1000, triples))
    return tuple(found)


def static_query(number: int) -> str:
    """``srb.queryN.booleanquery`` from the properties file (continuation lines)."""
    text = (DATA / "srbench-queries.properties").read_text()
    text = re.sub(r"\\[ \t]*\n[ \t]*", " ", text)
    match = re.search(rf"^srb\.query{number}\.booleanquery\s*=\s*(.*)$", text, re.M)
    assert match is not None
    return match.group(1)


def rspql(static: str, width: int, slide: int) -> str:
    """The static query as RSP-QL: REGISTER, one window, body inside WINDOW."""
    head, body = static.split("WHERE {", 1)
    prologue, select = head.split("SELECT", 1)
    return (
        f"{prologue} REGISTER RStream <http://example.org/out> AS SELECT {select}"
        f"FROM NAMED WINDOW <http://example.org/w> ON STREAM <{STREAM}> "
        f"[RANGE {width} STEP {slide}] "
        f"WHERE {{ WINDOW <http://example.org/w> {{ {body} }}"
    )


def window_triples(first: int, last: int) -> set[tuple[str, str, str]]:
    return {t for e in events() if first <= e.time <= last for t in e.triples}


def rdflib_answer(static: str, triples: set[tuple[str, str, str]]) -> list[dict[str, str]]:
    graph = rdflib.Graph()
    graph.parse(data="".join(f"{s} {p} {o} .\n" for s, p, o in triples), format="nt")
    rows = [row for row in graph.query(static) if isinstance(row, rdflib.query.ResultRow)]
    return [{str(v): term.n3() for v, term in row.asdict().items()} for row in rows]


def scan_q1(triples: set[tuple[str, str, str]]) -> Counter[tuple[str, str]]:
    """Q1 by hand: air-temperature observations whose float value is > 80."""
    by: dict[tuple[str, str], list[str]] = {}
    for s, p, o in triples:
        by.setdefault((s, p), []).append(o)
    found: Counter[tuple[str, str]] = Counter()
    for s, p, o in triples:
        if p != f"<{OM}observedProperty>" or o != f"<{WEATHER}_AirTemperature>":
            continue
        for sensor in by.get((s, f"<{OM}procedure>"), []):
            for res in by.get((s, f"<{OM}result>"), []):
                values = by.get((res, f"<{OM}floatValue>"), [])
                found[(sensor, s)] += sum(float(v.split('"')[1]) > 80 for v in values)
    return +found


def run(text: str, end: int, **semantics: Any) -> tuple[list[Result], float]:
    out: list[Result] = []
    engine = ReferenceEngine()
    started = time.perf_counter()
    engine.open(Registration(text, (STREAM,), 0, Semantics(**semantics)), out.append)
    for event in events():
        engine.push(STREAM, event)
    engine.end(end)
    return out, time.perf_counter() - started


def test_the_stream_is_what_the_design_notes_say() -> None:
    assert len(events()) == 34
    assert sum(len(e.triples) for e in events()) == 15188


def test_q1_tumbling_10s_reports_three_complete_windows() -> None:
    #   time (s)  0        10        20        30   34    40
    #             [---W0---)[---W1---)[---W2---)[--W3--|--)
    # W3 = [30,40) is not complete at end(34 s): not reported.
    static = static_query(1)
    out, _seconds = run(
        rspql(static, 10000, 10000),
        34000,
        bounds="[o,c)",
        t0=0,
        report=("window-close",),
        empty_relations=True,
        reports_window=True,
    )
    assert [(r.time, r.window) for r in out] == [
        (10000, (0, 10000)),
        (20000, (10000, 20000)),
        (30000, (20000, 30000)),
    ]
    for result in out:
        assert result.window is not None
        triples = window_triples(result.window[0], result.window[1] - 1)
        assert bag(result.bindings) == bag(rdflib_answer(static, triples))
        scanned = scan_q1(triples)
        assert Counter((b["sensor"], b["obs"]) for b in result.bindings) == scanned
    assert sum(len(r.bindings) for r in out) > 0  # the comparison is not vacuous
    later, _ = run(
        rspql(static, 10000, 10000),
        40000,
        bounds="[o,c)",
        t0=0,
        report=("window-close",),
        empty_relations=True,
    )
    assert [r.time for r in later] == [10000, 20000, 30000, 40000]


def test_q5_sliding_5s_every_second_matches_an_independent_scan() -> None:
    # RANGE 5000 STEP 1000, t0 = 0, [o,c): windows [k, k+5000) for k = 0..29 s
    # close by 34 s; with non-empty-content and no empty relations, exactly the
    # windows where the scan finds a hot reading are reported.
    out, _seconds = run(
        rspql(static_query(5), 5000, 1000),
        34000,
        bounds="[o,c)",
        t0=0,
        report=("window-close", "non-empty-content"),
        reports_window=True,
    )
    expected = {}
    for k in range(30):
        scanned = scan_q1(window_triples(k * 1000, k * 1000 + 4999))
        if scanned:
            expected[(k * 1000, k * 1000 + 5000)] = scanned
    assert {r.window: Counter((b["sensor"], b["obs"]) for b in r.bindings) for r in out} == expected
    assert len(out) == len(expected)
