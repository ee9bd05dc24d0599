"""The reference engine keeps literals as written (RDF term identity).

One tumbling window [0,10) holds ``:a :n "+8"``, ``:b :n "8"`` and ``:c :n "9"``
(xsd:integer) and ``:d :n "-1.75E0"`` (xsd:double). ``"+8"`` and ``"8"``
are two terms with one value: pyoxigraph's store alone would answer ``"8"``
for both and merge them.
"""

from __future__ import annotations

from collections import Counter

import pytest
from rspbench_engines.reference.lexical import rewrite

from helpers.reference import XSD, iri, query, run, triple

WINDOW = "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 10]"
PLUS_8, EIGHT, NINE = (f'"{x}"^^<{XSD}integer>' for x in ("+8", "8", "9"))
DOUBLE = f'"-1.75E0"^^<{XSD}double>'
EVENTS = [
    (
        1,
        [
            triple("a", "n", PLUS_8),
            triple("b", "n", EIGHT),
            triple("c", "n", NINE),
            triple("d", "n", DOUBLE),
        ],
    )
]


def answers(select: str, where: str, tail: str = "") -> Counter[tuple[tuple[str, str], ...]]:
    text = query("RStream", WINDOW, f"WINDOW :w {{ {where} }}", select) + tail
    out = run(text, EVENTS, end=10)  # one window; no relation when it has no answer
    return Counter(tuple(sorted(b.items())) for r in out for b in r.bindings)


def test_a_literal_is_answered_as_written() -> None:
    assert answers("?v", "?x :n ?v") == Counter(
        [(("v", PLUS_8),), (("v", EIGHT),), (("v", NINE),), (("v", DOUBLE),)]
    )


def test_two_forms_of_one_value_are_two_terms() -> None:
    assert answers("DISTINCT ?v", "?x :n ?v FILTER(?v = 8)") == Counter(
        [(("v", PLUS_8),), (("v", EIGHT),)]
    )
    grouped = answers("?v (COUNT(*) AS ?k)", "?x :n ?v FILTER(?v < 9)", " GROUP BY ?v")
    one = f'"1"^^<{XSD}integer>'
    assert set(grouped) == {
        (("k", one), ("v", PLUS_8)),
        (("k", one), ("v", EIGHT)),
        (("k", one), ("v", DOUBLE)),
    }
    assert answers("?x", f"?x :n ?v FILTER(sameTerm(?v, {EIGHT}))") == Counter([(("x", iri("b")),)])


def test_values_compare_and_compute_by_value() -> None:
    assert answers("?x", "?x :n ?v FILTER(?v > 7 && ?v < 9)") == Counter(
        [(("x", iri("a")),), (("x", iri("b")),)]
    )
    sums = answers("(SUM(?v) AS ?s)", f"?x :n ?v FILTER(datatype(?v) = <{XSD}integer>)")
    assert sums == Counter([(("s", f'"25"^^<{XSD}integer>'),)])
    plus_one = answers("?z", "?x :n ?v FILTER(sameTerm(?x, :a)) BIND(?v + 1 AS ?z)")
    assert plus_one == Counter([(("z", NINE),)])


def test_str_min_and_max_give_the_lexical_form_and_the_term() -> None:
    assert answers("(STR(?v) AS ?t)", "?x :n ?v FILTER(sameTerm(?x, :a))") == Counter(
        [(("t", '"+8"'),)]
    )
    extremes = answers("(MIN(?v) AS ?lo) (MAX(?v) AS ?hi)", "?x :n ?v FILTER(?v != 8)")
    assert extremes == Counter([(("hi", NINE), ("lo", DOUBLE))])


def test_a_join_needs_the_same_term() -> None:
    # :a's "+8" and :b's "8" are equal values but not the same term.
    same = answers("?x ?y", "?x :n ?v . ?y :n ?v FILTER(?x != ?y)")
    assert same == Counter()


@pytest.mark.parametrize(
    ("sparql", "expected"),
    [
        (
            "SELECT ?v WHERE { ?x <p> ?v BIND(?v AS ?w) }",
            "SELECT ?v WHERE { ?x <p> ?v BIND(?v AS ?w) }",
        ),
        (
            "SELECT (COUNT(DISTINCT ?v) AS ?n) WHERE { ?x <p> ?v } GROUP BY ?x",
            "SELECT (COUNT(DISTINCT ?v) AS ?n) WHERE { ?x <p> ?v } GROUP BY ?x",
        ),
        (
            "SELECT * WHERE { ?x <p> ?v FILTER(IF(?v > 1, ?v, 0) = 2) }",
            "SELECT * WHERE { ?x <p> ?v FILTER(IF(<urn:rspbench:value>(?v) > 1, ?v, 0) = 2) }",
        ),
        (
            "SELECT (MAX(?v) AS ?m) WHERE { ?x <p> ?v FILTER NOT EXISTS { ?x <q> ?v } }",
            "SELECT (<urn:rspbench:max>(?v) AS ?m) WHERE { ?x <p> ?v FILTER NOT EXISTS { ?x <q> ?v } }",
        ),
    ],
)
def test_the_rewrite_reads_values_only_where_a_value_is_needed(sparql: str, expected: str) -> None:
    assert rewrite(sparql) == expected


def test_a_window_without_odd_forms_runs_the_query_as_written() -> None:
    events = [(1, [triple("b", "n", EIGHT)])]
    text = query("RStream", WINDOW, "WINDOW :w { ?x :n ?v }", "?v")
    (result,) = run(text, events, end=10)
    assert result.bindings == ({"v": EIGHT},)
