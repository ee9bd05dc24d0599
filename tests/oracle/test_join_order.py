"""The order in which a basic graph pattern's triple patterns are joined.

Only the plan's cost depends on it (the differential tests check the
answers); here the shape is pinned: each subject's star first, then stars
linked through a subject, and two stars sharing only an object last.
"""

from __future__ import annotations

from typing import Any

import pytest
from rdflib.plugins.sparql.parserutils import Expr

from pytest_rspbench.oracle.sparql.compiler import Relation
from pytest_rspbench.oracle.sparql.patterns import _best_pair


def rel(*variables: str) -> Relation:
    return Relation(None, variables, False)


def test_stars_linked_through_a_subject_join_before_a_shared_object() -> None:
    """YABench Q6: ``?ob1 :procedure ?sensor ; :result ?res1 . ?res1 :value ?v1``
    and the same for ``?ob2``; the two observations share only ``?sensor``."""
    groups = [
        (rel("ob1", "sensor", "res1"), frozenset({"ob1"})),
        (rel("ob2", "sensor", "res2"), frozenset({"ob2"})),
        (rel("res1", "v1"), frozenset({"res1"})),
        (rel("res2", "v2"), frozenset({"res2"})),
    ]
    assert _best_pair(groups) == (0, 2)  # ob1 with its result, not with ob2
    assert _best_pair(groups[1:]) == (0, 2)  # ob2 with its result


def test_a_shared_object_before_nothing_shared() -> None:
    groups = [
        (rel("a", "x"), frozenset({"a"})),
        (rel("c", "y"), frozenset({"c"})),
        (rel("b", "x"), frozenset({"b"})),
    ]
    assert _best_pair(groups) == (0, 2)


def test_disjoint_relations_are_crossed_in_order() -> None:
    groups = [(rel("a"), frozenset({"a"})), (rel("b"), frozenset({"b"}))]
    assert _best_pair(groups) == (0, 1)


@pytest.mark.spark
def test_a_filter_over_two_subjects_parses_its_numbers_in_the_patterns(spark: Any) -> None:
    """YABench Q6's ``FILTER(?v1 - ?v2 > 0)``: each value is parsed once, in
    its triple pattern, and the join carries the number to the FILTER,
    instead of parsing both values again in every joined pair."""
    from rdflib.term import URIRef, Variable

    from pytest_rspbench.oracle.sparql.numerics import FLOAT
    from pytest_rspbench.oracle.sparql.patterns import _join_patterns, _parsed_early, _pattern

    value, procedure = URIRef("http://ex.org/value"), URIRef("http://ex.org/procedure")
    float_one = '"1.5"^^<http://www.w3.org/2001/XMLSchema#float>'
    stream = spark.createDataFrame(
        [("<o1>", f"<{value}>", float_one, 1), ("<o1>", f"<{procedure}>", "<s>", 1)],
        "s string, p string, o string, t long",
    )
    ob1, ob2, v1, v2, sensor = (Variable(n) for n in ("ob1", "ob2", "v1", "v2", "sensor"))
    triples = [
        (ob1, value, v1),
        (ob1, procedure, sensor),
        (ob2, value, v2),
        (ob2, procedure, sensor),
    ]
    condition = Expr("RelationalExpression", None, expr=v1, op=">", other=v2)
    parse = _parsed_early(condition, [str(t[0]) for t in triples])
    assert parse == {"v1", "v2"}
    assert _parsed_early(condition, ["ob1", "ob1"]) == frozenset()  # one subject
    # The variables in scope (rdflib's ``_vars``) are not read by the FILTER,
    # and one that reads more than values (EXISTS) parses nothing early.
    scoped = Expr("RelationalExpression", None, expr=v1, op=">", other=v2, _vars={sensor})
    assert _parsed_early(scoped, [str(t[0]) for t in triples]) == {"v1", "v2"}
    exists = Expr("Builtin_EXISTS", None, graph=None)
    assert _parsed_early(exists, [str(t[0]) for t in triples]) == frozenset()

    def ranks(predicate: str | None) -> frozenset[int]:
        return frozenset({FLOAT}) if predicate == f"<{value}>" else frozenset()

    parts = [_pattern(stream, t, True, ranks, parse) for t in triples]
    assert [p.numbers for p in parts] == [{"v1"}, set(), {"v2"}, set()]
    joined = _join_patterns(parts, span=5, subjects=[str(t[0]) for t in triples])
    assert joined.numbers == {"v1", "v2"}
    row = joined.df.select("n_v1", "n_v2").first()
    assert (row.n_v1.r, row.n_v1.f, row.n_v2.f) == (FLOAT, 1.5, 1.5)


def _where(sparql: str) -> tuple[list[Any], Any]:
    """The triples and the FILTER of a SELECT's one filtered BGP."""
    from pytest_rspbench.oracle.sparql.compiler import translate

    node = translate(sparql)
    while node.name != "Filter":
        node = node.p
    return node.p.triples, node.expr


OBS = """PREFIX : <http://ex.org/>
SELECT * WHERE {
  ?obs :procedure ?sensor ; :result ?res .
  ?res :value ?value .
  FILTER(%s)
}"""


def test_a_conjunct_on_one_pattern_is_applied_in_that_pattern() -> None:
    """YABench Q1's ``FILTER(?value > 50)`` drops half of the values before
    the joins and their shuffles, not after them; a conjunct over two
    patterns stays above the join."""
    from pytest_rspbench.oracle.sparql.patterns import _pushed

    triples, condition = _where(OBS % "?value > 50 && ?sensor != :s9 && ?value != ?sensor")
    pushed, rest = _pushed(triples, condition)
    where = {str(t[1]).rsplit("/", 1)[1]: p for t, p in zip(triples, pushed, strict=True)}
    assert where["value"] is not None and where["procedure"] is not None
    assert where["result"] is None
    assert "value" in str(where["value"]) and "sensor" not in str(where["value"])
    assert "sensor" in str(where["procedure"]) and "value" not in str(where["procedure"])
    assert rest is not None and {"value", "sensor"} <= {str(v) for v in _read(rest)}


@pytest.mark.parametrize(
    "condition",
    ["?value > NOW()", "RAND() > 0.5", "true", "?value > 50 || ?sensor = :s1"],
)
def test_a_conjunct_that_reads_more_than_one_pattern_stays(condition: str) -> None:
    from pytest_rspbench.oracle.sparql.patterns import _pushed

    triples, expr = _where(OBS % condition)
    pushed, rest = _pushed(triples, expr)
    assert pushed == [None] * len(triples)
    assert rest is expr


def _read(expr: Any) -> frozenset[str]:
    from pytest_rspbench.oracle.sparql.expressions import variables_read

    return variables_read(expr) or frozenset()
