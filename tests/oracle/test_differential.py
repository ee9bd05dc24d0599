"""The compiled DataFrame plan against per-window pyoxigraph, window by window.

For generated streams and a corpus of queries covering every construct the
compiler supports, ``expected_output(..., force_fallback=False)`` (compiled
plan) and ``(..., force_fallback=True)`` (pyoxigraph per evaluation) must give
the same relations for every t0 class, every evaluation and every profile.

Data and query constants use canonical lexical forms ("2.5", not "2.50"):
pyoxigraph's store rewrites valid numbers to their canonical form, the
compiled plan keeps terms as written (see ``test_non_canonical_literals``).
GROUP_CONCAT's order is unspecified in SPARQL, so its tokens are compared
sorted.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.rsp.rspql import parse
from pytest_rspbench.stream.model import Event, Stream

from helpers.properties import BOUNDS, REPORTS, explore

pytestmark = pytest.mark.spark

EX = "http://ex.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
STREAM = EX + "s"


def iri(name: str) -> str:
    return f"<{EX}{name}>"


def num(lexical: str, datatype: str) -> str:
    return f'"{lexical}"^^<{XSD}{datatype}>'


SUBJECTS = [iri(f"s{i}") for i in range(1, 5)]
VALUES = [
    num("1", "integer"),
    num("2", "integer"),
    num("3", "integer"),
    num("5", "integer"),
    num("2.5", "decimal"),
    num("0.5", "decimal"),
    num("1.5", "double"),
    num("0.25", "double"),
    num("4", "double"),
]
# "a\u2028b": a line separator, which a regular expression's "." does not match
LABELS = ['"alpha"', '"beta"@en', '"Gamma"', '"a\\"b"', '"delta"@fr', '"ab"', '"a\u2028b"@en']
TYPES = [iri("Temp"), iri("Hum")]
STATIC = [
    (SUBJECTS[0], iri("room"), iri("r1")),
    (SUBJECTS[1], iri("room"), iri("r2")),
    (SUBJECTS[2], iri("room"), iri("r1")),
]


def generated_events(seed: int, count: int = 12) -> list[Event]:
    """A small deterministic stream: irregular times, 1-3 triples per event."""
    import random

    rng = random.Random(seed)
    events, time = [], 0
    for _ in range(count):
        time += rng.choice([0, 300, 700, 1000, 1500, 2500])
        triples = []
        for _ in range(rng.randint(1, 3)):
            s = rng.choice(SUBJECTS)
            kind = rng.random()
            if kind < 0.55:
                triples.append((s, iri("val"), rng.choice(VALUES)))
            elif kind < 0.8:
                triples.append((s, iri("label"), rng.choice(LABELS)))
            elif kind < 0.92:
                triples.append((s, iri("type"), TYPES[SUBJECTS.index(s) % 2]))
            else:
                triples.append((s, iri("link"), rng.choice(SUBJECTS)))
        if events and events[-1].time == time:
            events[-1] = Event(time, events[-1].triples + tuple(triples))
        else:
            events.append(Event(time, tuple(triples)))
    return events


def stream_of(events: list[Event]) -> Stream:
    return Stream(STREAM, lambda: iter(events), "generated")


WINDOW = "FROM NAMED WINDOW :w ON STREAM :s [RANGE 4000 STEP 2000]"

# name -> (SELECT ... part, WHERE body, tail); every construct of the compiler.
CORPUS: dict[str, tuple[str, str, str]] = {
    "filter": ("?s ?v", "WINDOW :w { ?s :val ?v FILTER(?v > 2) }", ""),
    "self-join": (
        "?s ?a ?b",
        "WINDOW :w { ?s :val ?a . ?s :val ?b FILTER(?a < ?b) }",
        "",
    ),
    "optional": ("?s ?v ?l", "WINDOW :w { ?s :val ?v OPTIONAL { ?s :label ?l } }", ""),
    "optional-filter": (
        "?s ?v ?w",
        "WINDOW :w { ?s :val ?v OPTIONAL { ?s :val ?w FILTER(?w > ?v) } }",
        "",
    ),
    "optional-bound": (
        "?s ?v",
        "WINDOW :w { ?s :val ?v OPTIONAL { ?s :label ?l } FILTER(!BOUND(?l)) }",
        "",
    ),
    "minus": ("?s ?v", "WINDOW :w { ?s :val ?v MINUS { ?s :label ?l } }", ""),
    "minus-disjoint": ("?s ?v", "WINDOW :w { ?s :val ?v MINUS { ?x :label ?l } }", ""),
    "union": ("?s ?o", "WINDOW :w { { ?s :val ?o } UNION { ?s :label ?o } }", ""),
    "union-unbound": (
        "?s ?v ?l",
        "WINDOW :w { { ?s :val ?v } UNION { ?s :label ?l } }",
        "",
    ),
    "bind": (
        "?s ?d ?q",
        "WINDOW :w { ?s :val ?v BIND(?v * 2 + 1 AS ?d) BIND(?v / 3 AS ?q) }",
        "",
    ),
    "group": (
        "?s (COUNT(*) AS ?n) (SUM(?v) AS ?sum) (MIN(?v) AS ?mn) (MAX(?v) AS ?mx) (AVG(?v) AS ?avg)",
        "WINDOW :w { ?s :val ?v }",
        "GROUP BY ?s",
    ),
    "avg-empty-group": (
        "(AVG(?v) AS ?avg) (COUNT(?v) AS ?n) (SUM(?v) AS ?sum)",
        "WINDOW :w { ?s :val ?v }",
        "",
    ),
    "count-star": ("(COUNT(*) AS ?n)", "WINDOW :w { ?s ?p ?o }", ""),
    "having": (
        "?s (AVG(?v) AS ?avg)",
        "WINDOW :w { ?s :val ?v }",
        "GROUP BY ?s HAVING (AVG(?v) > 2)",
    ),
    "distinct-aggregates": (
        "(COUNT(DISTINCT ?v) AS ?n) (SUM(DISTINCT ?v) AS ?sum) (AVG(DISTINCT ?v) AS ?avg)",
        "WINDOW :w { ?s :val ?v }",
        "",
    ),
    "group-concat": (
        '?s (GROUP_CONCAT(?l; separator=",") AS ?gc) (COUNT(?l) AS ?n)',
        'WINDOW :w { ?s :label ?l FILTER(!isLiteral(?l) || LANG(?l) = "") }',
        "GROUP BY ?s",
    ),
    "sample": ("?s (SAMPLE(?t) AS ?sa)", "WINDOW :w { ?s :type ?t }", "GROUP BY ?s"),
    "group-unbound-key": (
        "?l (COUNT(*) AS ?n) (SUM(?v) AS ?sum)",
        "WINDOW :w { ?s :val ?v OPTIONAL { ?s :label ?l } }",
        "GROUP BY ?l",
    ),
    "group-expression": (
        "?big (COUNT(*) AS ?n)",
        "WINDOW :w { ?s :val ?v }",
        "GROUP BY (?v > 2 AS ?big)",
    ),
    "distinct": ("DISTINCT ?s", "WINDOW :w { ?s ?p ?o }", ""),
    "order-limit": (
        "?s ?v",
        "WINDOW :w { ?s :val ?v }",
        "ORDER BY DESC(?v) ?s LIMIT 2",
    ),
    "order-offset": (
        "?s ?v",
        "WINDOW :w { ?s :val ?v }",
        "ORDER BY ?v DESC(?s) OFFSET 1 LIMIT 2",
    ),
    "order-strings": ("?l", "WINDOW :w { ?s :label ?l }", "ORDER BY ?l LIMIT 3"),
    "static-join": ("?s ?r ?v", "?s :room ?r . WINDOW :w { ?s :val ?v }", ""),
    "subquery": (
        "?s ?n",
        "{ SELECT ?s (COUNT(*) AS ?n) WHERE { WINDOW :w { ?s ?p ?o } } GROUP BY ?s } FILTER(?n >= 2)",
        "",
    ),
    "not-exists": (
        "?s ?v",
        "WINDOW :w { ?s :val ?v FILTER NOT EXISTS { ?s :label ?l } }",
        "",
    ),
    "exists": (
        "?s ?v",
        "WINDOW :w { ?s :val ?v FILTER EXISTS { ?s :type :Temp } }",
        "",
    ),
    "values": ("?s ?v", "VALUES ?s { :s1 :s2 } WINDOW :w { ?s :val ?v }", ""),
    "strings": (
        "?l ?u ?n ?c ?dt",
        "WINDOW :w { ?s :label ?l BIND(UCASE(?l) AS ?u) BIND(STRLEN(?l) AS ?n) "
        'BIND(CONTAINS(?l, "a") AS ?c) BIND(DATATYPE(?l) AS ?dt) }',
        "",
    ),
    "string-filters": (
        "?s ?l",
        'WINDOW :w { ?s :label ?l FILTER(REGEX(?l, "^a", "i") || STRSTARTS(STR(?l), "b") '
        '|| LCASE(?l) = "gamma" || LANG(?l) = "fr") }',
        "",
    ),
    "conditionals": (
        "?s ?x ?y ?z",
        'WINDOW :w { ?s :val ?v OPTIONAL { ?s :label ?l } BIND(IF(?v > 2, "big", "small") AS ?x) '
        "BIND(COALESCE(?l, ?v) AS ?y) BIND(?v IN (1, 2.5, 4) AS ?z) }",
        "",
    ),
    "type-tests": (
        "?s ?o ?a ?b ?c ?d",
        "WINDOW :w { ?s ?p ?o BIND(isIRI(?o) AS ?a) BIND(isLiteral(?o) AS ?b) BIND(isNumeric(?o) AS ?c) "
        "BIND(sameTerm(?o, :s1) AS ?d) }",
        "",
    ),
    "arithmetic-compare": (
        "?s ?a ?b ?d",
        "WINDOW :w { ?s :val ?a . ?s :val ?b FILTER(?a + ?b >= 4 && ?a != ?b) BIND(?a - ?b AS ?d) }",
        "",
    ),
    "ebv": ("?s ?o", "WINDOW :w { ?s ?p ?o FILTER(?o) }", ""),
    "link-join": ("?a ?b ?v", "WINDOW :w { ?a :link ?b . ?b :val ?v }", ""),
    # A FILTER over two subjects: the values are parsed in their patterns,
    # before the join (patterns._parsed_early), once per triple.
    "two-subject-filter": (
        "?s ?u ?a ?b",
        "WINDOW :w { ?s :val ?a . ?u :val ?b FILTER(?a - ?b > 0.5 || ?b = 2) }",
        "",
    ),
    "shared-value-filter": (
        "?s ?u ?a",
        "WINDOW :w { ?s :val ?a . ?u :val ?a FILTER(?a >= 2 && ?s != ?u) }",
        "",
    ),
}

PROFILES = [
    Semantics(bounds="(o,c]", t0="any", report=("window-close", "non-empty-content")),
    Semantics(
        bounds="[o,c)",
        t0="registration",
        report=("window-close",),
        empty_relations=True,
    ),
    Semantics(bounds="[o,c]", t0="any", report=("window-close",), empty_relations=False),
]
R2S = ["RStream", "IStream", "DStream"]


TWO_WINDOWS = WINDOW + "\nFROM NAMED WINDOW :w2 ON STREAM :s [RANGE 2000 STEP 2000]"
WINDOWS = {"two-windows": TWO_WINDOWS}
CORPUS["two-windows"] = ("?s ?v ?l", "WINDOW :w { ?s :val ?v } WINDOW :w2 { ?s :label ?l }", "")


def rspql(name: str, r2s: str = "RStream") -> str:
    select, where, tail = CORPUS[name]
    window = WINDOWS.get(name, WINDOW)
    return (
        f"PREFIX : <{EX}>\nREGISTER {r2s} :out AS\nSELECT {select}\n{window}\n"
        f"WHERE {{ {where} }}\n{tail}\n"
    )


def both(spark: Any, text: str, events: list[Event], semantics: Semantics) -> tuple[Any, Any]:
    from pytest_rspbench.oracle.oracle import expected_output

    query = parse(text)
    streams = [stream_of(events)]
    compiled = expected_output(spark, query, streams, semantics, static=STATIC)
    fallback = expected_output(spark, query, streams, semantics, static=STATIC, force_fallback=True)
    return compiled, fallback


def outline(output: Any) -> list[Any]:
    """Everything the two paths must agree on, with bags as Counters."""
    return [
        (
            c.first,
            c.last,
            [
                (
                    r.index,
                    r.time,
                    r.window,
                    r.triples,
                    Counter(_normal(b) for b in r.bindings),
                )
                for r in c.relations
            ],
        )
        for c in output.classes
    ]


def _normal(binding: Any) -> tuple[tuple[str, str], ...]:
    out = []
    for k, v in binding.items():
        if k.startswith("gc") and v.startswith('"'):
            body, _, suffix = v[1:].rpartition('"')
            v = '"' + ",".join(sorted(body.split(","))) + '"' + suffix
        out.append((k, v))
    return tuple(sorted(out))


def assert_same(compiled: Any, fallback: Any) -> None:
    assert compiled.evaluator == "spark-dataframe", compiled.fallback_reason
    assert fallback.evaluator == "spark-pyoxigraph"
    got, want = outline(compiled), outline(fallback)
    if got != want:
        for (f1, l1, rel1), (f2, l2, rel2) in zip(got, want, strict=False):
            for r1, r2 in itertools.zip_longest(rel1, rel2):
                assert r1 == r2, f"t0 class {f1}..{l1} / {f2}..{l2}: first difference"
        assert got == want


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_on_generated_stream(spark: Any, name: str) -> None:
    k = sorted(CORPUS).index(name)
    semantics = PROFILES[k % len(PROFILES)]
    compiled, fallback = both(spark, rspql(name, R2S[k % len(R2S)]), generated_events(k), semantics)
    assert_same(compiled, fallback)


def test_a_grouped_variable_is_its_key_not_an_aggregate(spark: Any, monkeypatch: Any) -> None:
    """SELECT ?s ... GROUP BY ?s: rdflib makes ?s a SAMPLE; its value is the
    key, so the groups hold no string state and Spark aggregates them by
    hash, without sorting the rows (the same output: the corpus above)."""
    from pytest_rspbench.oracle.sparql import compiler

    plans = []
    collect = compiler.collect_arrow

    def spy(df: Any) -> Any:
        plans.append(df._jdf.queryExecution().executedPlan().toString())
        return collect(df)

    monkeypatch.setattr(compiler, "collect_arrow", spy)
    semantics = PROFILES[0]
    compiled, _ = both(spark, rspql("having"), generated_events(1), semantics)
    assert compiled.evaluator == "spark-dataframe"
    assert plans and "HashAggregate" in plans[0] and "SortAggregate" not in plans[0]


PROFILED = ["group", "optional-filter", "order-limit", "minus", "avg-empty-group"]


@pytest.mark.slow
@pytest.mark.parametrize("profile", range(len(PROFILES)))
@pytest.mark.parametrize("name", PROFILED)
def test_profiles(spark: Any, name: str, profile: int) -> None:
    # Both paths share the R2S step (oracle.r2s runs after the bags are
    # computed), so one operator per combination is enough to compare the
    # bags; every operator still meets every query across the grid.
    r2s = R2S[(PROFILED.index(name) + profile) % len(R2S)]
    compiled, fallback = both(
        spark, rspql(name, r2s), generated_events(100 + profile), PROFILES[profile]
    )
    assert_same(compiled, fallback)


# :val holds numbers and :label strings, as in generated_events: MIN/MAX/ORDER
# BY between a number and a string is left undefined by SPARQL (§15.1), and the
# compiled key and pyoxigraph order such pairs differently (oracle/sparql/ordering.py).
_triple = st.one_of(
    st.tuples(st.sampled_from(SUBJECTS), st.just(iri("val")), st.sampled_from(VALUES)),
    st.tuples(st.sampled_from(SUBJECTS), st.just(iri("label")), st.sampled_from(LABELS[:3])),
)


@st.composite
def streams(draw: Any) -> list[Event]:
    gaps = draw(st.lists(st.integers(0, 3000), min_size=1, max_size=6))
    times = list(itertools.accumulate(gaps))
    return [
        Event(t, tuple(draw(st.lists(_triple, min_size=1, max_size=3)))) for t in sorted(set(times))
    ]


@pytest.mark.slow
@explore(6, spark=True)
@given(
    events=streams(),
    name=st.sampled_from(
        [
            "filter",
            "self-join",
            "optional-filter",
            "group",
            "minus",
            "order-limit",
            "bind",
        ]
    ),
    profile=st.sampled_from(PROFILES),
    r2s=st.sampled_from(R2S),
)
def test_hypothesis_streams(
    spark: Any, events: list[Event], name: str, profile: Semantics, r2s: str
) -> None:
    assert_same(*both(spark, rspql(name, r2s), events, profile))


@st.composite
def profiles(draw: Any) -> Semantics:
    """Any bounds, t0 rule, report policy, with or without empty relations."""
    return Semantics(
        bounds=draw(BOUNDS),
        t0=draw(st.sampled_from(["any", "registration"])),
        report=draw(REPORTS),
        empty_relations=draw(st.booleans()),
    )


@pytest.mark.slow
@explore(8, spark=True)
@given(
    events=streams(),
    name=st.sampled_from(sorted(CORPUS)),
    profile=profiles(),
    r2s=st.sampled_from(R2S),
)
def test_every_query_of_the_corpus_under_random_profiles(
    spark: Any, events: list[Event], name: str, profile: Semantics, r2s: str
) -> None:
    """Every query of the corpus, every profile: the compiled plan and
    pyoxigraph agree (a hunt runs it with many random examples)."""
    assert_same(*both(spark, rspql(name, r2s), events, profile))


@pytest.mark.xfail(
    strict=True,
    reason=(
        "pyoxigraph's store rewrites valid literals to canonical form ('30.0'^^xsd:float "
        "-> '30', '01'^^xsd:int -> '1'^^xsd:integer); the compiled plan keeps terms as "
        "written, as RDF term equality asks"
    ),
)
def test_non_canonical_literals(spark: Any) -> None:
    events = [
        Event(1000, ((SUBJECTS[0], iri("val"), num("30.0", "float")),)),
        # A later event closes the first windows, so there are relations to compare.
        Event(9000, ((SUBJECTS[1], iri("val"), num("1", "integer")),)),
    ]
    compiled, fallback = both(spark, rspql("filter"), events, PROFILES[0])
    assert any(r.bindings for c in compiled.classes for r in c.relations), "nothing compared"
    assert_same(compiled, fallback)


# BGPs of several subjects: under one t0 class whose instants are read by at
# most two evaluations (RANGE 4000 STEP 2000, reported on close), their parts
# are assigned to evaluations before they are joined (Context.assign_first).
SEVERAL_SUBJECTS = ["two-subject-filter", "shared-value-filter", "link-join"]


@pytest.mark.parametrize("name", SEVERAL_SUBJECTS)
def test_parts_assigned_before_they_are_joined(spark: Any, name: str, monkeypatch: Any) -> None:
    from pytest_rspbench.oracle.sparql import patterns

    calls = []
    original = patterns._assigned

    def spy(rel: Any, assign: Any) -> Any:
        calls.append(rel.variables)
        return original(rel, assign)

    monkeypatch.setattr(patterns, "_assigned", spy)
    k = SEVERAL_SUBJECTS.index(name)
    compiled, fallback = both(
        spark, rspql(name, R2S[k % len(R2S)]), generated_events(200 + k), PROFILES[1]
    )
    assert calls, "the parts were joined first"
    assert any(r.bindings for c in compiled.classes for r in c.relations), "nothing compared"
    assert_same(compiled, fallback)


def test_many_classes_join_their_parts_first(spark: Any, monkeypatch: Any) -> None:
    """``t0: any`` (thousands of classes): a star copied once per class and
    evaluation would be far larger than the pairs it saves."""
    from pytest_rspbench.oracle.sparql import patterns

    calls = []
    monkeypatch.setattr(patterns, "_assigned", lambda *a: calls.append(a))
    compiled, fallback = both(spark, rspql("link-join"), generated_events(7), PROFILES[0])
    assert not calls
    assert_same(compiled, fallback)


# Count and session windows (docs/count-and-session-windows.md): every named
# window runs on an axis (oracle/t0/axes.py), and both paths read the same
# rows; under count_ties any each class is one correct output.
COUNTED_BASE = Semantics(
    bounds="[o,c)",
    t0=0,
    report=("window-close", "non-empty-content"),
    windows=("time", "rows", "triples", "session"),
    count_order="time",
    count_ties="arrival",
    count_rampup="report",
    count_tick="tuple-driven",
    count_bounds="[first,last]",
    session_gap="split",
    session_bounds="[first,last]",
)
COUNTED = [
    ("filter", "[ROWS 3 STEP 2]", {}),
    ("self-join", "[TRIPLES 4]", {"count_ties": "any"}),
    ("optional", "[TRIPLES 5 STEP 3]", {"count_tick": "graph-driven", "count_rampup": "skip"}),
    ("group", "[SESSION 1000]", {"session_gap": "merge"}),
    ("avg-empty-group", "[SESSION 700]", {"report": ("window-close",), "empty_relations": True}),
    ("minus", "[ROWS 2]", {"count_order": "arrival", "count_bounds": "none"}),
    ("two-windows", ("[RANGE 4000 STEP 2000]", "[ROWS 2]"), {}),
    ("two-windows", ("[SESSION 1500]", "[TRIPLES 3 STEP 2]"), {"count_ties": "any"}),
]


@pytest.mark.parametrize("number", range(len(COUNTED)))
def test_count_and_session_windows(spark: Any, number: int) -> None:
    name, windows, fields = COUNTED[number]
    first, second = (windows, "") if isinstance(windows, str) else windows
    clauses = f"FROM NAMED WINDOW :w ON STREAM :s {first}"
    if second:
        clauses += f"\nFROM NAMED WINDOW :w2 ON STREAM :s {second}"
    select, where, tail = CORPUS[name]
    text = (
        f"PREFIX : <{EX}>\nREGISTER {R2S[number % 3]} :out AS\nSELECT {select}\n{clauses}\n"
        f"WHERE {{ {where} }}\n{tail}\n"
    )
    semantics = Semantics(**{**COUNTED_BASE.__dict__, **fields})
    events = generated_events(200 + number)
    if semantics.count_ties != "any":
        compiled, fallback = both(spark, text, events, semantics)
    else:
        compiled, fallback = picked_by_an_engine(spark, text, events, semantics)
    assert_same(compiled, fallback)
    assert compiled.classes and any(c.relations for c in compiled.classes)


def picked_by_an_engine(
    spark: Any, text: str, events: list[Event], semantics: Semantics
) -> tuple[Any, Any]:
    """Under count_ties any, these streams have more correct outputs than
    the oracle enumerates: the engine's output picks them (oracle/t0/ties.py).
    The engine here breaks ties by arrival (a correct resolution): both paths
    find it, the first class (fewer outputs are all enumerated)."""
    from dataclasses import replace

    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.oracle.t0.narrowing import Reported

    query, streams = parse(text), [stream_of(events)]
    arrival = replace(semantics, count_ties="arrival")
    (engine,) = expected_output(spark, query, streams, arrival, static=STATIC).classes
    told = Reported.of(engine.relations)
    compiled = expected_output(spark, query, streams, semantics, static=STATIC, reported=told)
    fallback = expected_output(
        spark, query, streams, semantics, static=STATIC, reported=told, force_fallback=True
    )

    def relations(cls: Any) -> list[Any]:
        return [(r.time, Counter(_normal(b) for b in r.bindings)) for r in cls.relations]

    assert relations(compiled.classes[0]) == relations(engine)  # the arrival resolution
    return compiled, fallback
