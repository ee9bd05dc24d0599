"""Comparisons of variables bound only to literals of numeric datatypes.

The stream cache records, per predicate, whether its objects are all literals
of numeric datatypes (oracle.datatypes). A FILTER in the BGP that compares
such a variable with a number (``?value > 50``) then skips the test of the
term's kind (IRI, string, language string, boolean...). These tests check
that the shortcut is taken where it may be, that it is not taken where a
predicate has other objects, and that the answers stay those of pyoxigraph,
ill-typed literals included.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_window import evaluate, reference

from pytest_rspbench.oracle.sparql.datatypes import UNTYPED, Ranks, collect

XSD = "http://www.w3.org/2001/XMLSchema#"
V = "<http://ex.org/v>"
W = "<http://ex.org/w>"


def test_the_table_records_objects_that_are_not_typed_literals() -> None:
    table = collect(
        [
            ("<s>", V, f'"1.5"^^<{XSD}float>'),
            ("<s>", V, f'"abc"^^<{XSD}integer>'),  # ill-typed, still numeric-typed
            ("<s>", W, f'"2"^^<{XSD}int>'),
            ("<s>", W, "<http://ex.org/iri>"),
            ("<s>", "<l>", '"x"@en'),
            ("<s>", "<d>", f'"2020-01-01"^^<{XSD}date>'),
        ]
    )
    assert table[V] == [XSD + "float", XSD + "integer"]
    assert table[W] == [UNTYPED, XSD + "int"]
    ranks = Ranks({"s": table})
    assert ranks.numeric_only("s", V)
    assert not ranks.numeric_only("s", W)  # an IRI among its objects
    assert not ranks.numeric_only("s", "<l>")
    assert not ranks.numeric_only("s", "<d>")  # typed, but not a number
    assert not ranks.numeric_only("s", "<absent>")
    assert not ranks.numeric_only("s", None)  # a variable predicate
    assert not ranks.numeric_only("other", V)  # no table: anything


def _plan(spark: Any, sparql: str, triples: list[tuple[str, str, str]]) -> str:
    from single_window import context

    from pytest_rspbench.oracle.sparql.compiler import compile_select, translate

    relation = compile_select(translate(sparql), context(spark, triples))
    return relation.df._jdf.queryExecution().optimizedPlan().toString()


@pytest.mark.spark
def test_a_number_compared_with_a_numeric_only_object_skips_the_kind_test(spark: Any) -> None:
    query = "SELECT ?s WHERE { ?s <http://ex.org/p> ?o . ?s <http://ex.org/v> ?x FILTER(?x > 50) }"
    numbers = [("<s1>", "<http://ex.org/p>", "<o>"), ("<s1>", V, f'"51"^^<{XSD}integer>')]
    # The language-tag test is part of the kind test (literals._term_class).
    assert "@[a-zA-Z0-9-]+$" not in _plan(spark, query, numbers)
    mixed = [*numbers, ("<s2>", V, "<http://ex.org/iri>")]
    assert "@[a-zA-Z0-9-]+$" in _plan(spark, query, mixed)


# Objects of one predicate: numbers of several types, and ill-typed literals.
numeric_typed = st.one_of(
    st.integers(-100, 100).map(lambda v: f'"{v}"^^<{XSD}integer>'),
    st.integers(-100, 100).map(lambda v: f'"{v}.5"^^<{XSD}decimal>'),
    st.floats(-100, 100, width=32).map(lambda v: f'"{v!r}"^^<{XSD}float>'),
    st.sampled_from([f'"abc"^^<{XSD}float>', f'"NaN"^^<{XSD}double>', f'"1e400"^^<{XSD}integer>']),
)
# The same, with other kinds of term mixed in (the shortcut must not apply).
any_term = st.one_of(
    numeric_typed,
    st.sampled_from(['"50"', '"x"@en', "<http://ex.org/iri>", '"true"^^<' + XSD + "boolean>"]),
)

FILTERS = [
    "?a > 50",
    "?a <= 2.5",
    "!(?a = 3)",
    "?a != 0.5",
    "?a = ?b",
    "?a <= ?b",
    "?a - ?b > 0",
    "50 < ?a && ?b != 7",
]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(numeric_typed, numeric_typed), min_size=1, max_size=12),
    st.lists(st.tuples(any_term, any_term), max_size=6),
    st.sampled_from(FILTERS),
)
@pytest.mark.spark
def test_filters_on_typed_objects_answer_like_the_reference(
    spark: Any, typed: Any, mixed: Any, condition: str
) -> None:
    triples = []
    for k, (a, b) in enumerate(typed):
        s = f"<http://ex.org/s{k}>"
        triples += [(s, "<http://ex.org/a>", a), (s, "<http://ex.org/b>", b)]
    # Other predicates of the same subjects carry any kind of term.
    for k, (a, b) in enumerate(mixed):
        s = f"<http://ex.org/m{k}>"
        triples += [(s, "<http://ex.org/c>", a), (s, "<http://ex.org/d>", b)]
    for pair in (("a", "b"), ("c", "d")):
        query = (
            f"SELECT ?s WHERE {{ ?s <http://ex.org/{pair[0]}> ?a . "
            f"?s <http://ex.org/{pair[1]}> ?b FILTER({condition}) }}"
        )
        _, got = evaluate(spark, query, triples)
        want = reference(query, triples)
        assert sorted(r["s"] for r in got) == sorted(r["s"] for r in want), query
