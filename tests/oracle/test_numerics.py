"""Numbers computed by the compiled plan print exactly like the reference's.

Random values go through one query in both the compiled plan and pyoxigraph;
each example is one Spark job over many values.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from single_window import evaluate, reference

pytestmark = pytest.mark.spark

XSD = "http://www.w3.org/2001/XMLSchema#"
_slow = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _double(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "INF" if v > 0 else "-INF"
    return repr(v)


def _run(spark: Any, select: str, terms: list[tuple[str, str]]) -> None:
    triples = []
    for k, (a, b) in enumerate(terms):
        s = f"<http://ex.org/s{k}>"
        triples += [(s, "<http://ex.org/a>", a), (s, "<http://ex.org/b>", b)]
    query = f"SELECT ?s {select} WHERE {{ ?s <http://ex.org/a> ?a . ?s <http://ex.org/b> ?b }}"
    _, got = evaluate(spark, query, triples)
    want = reference(query, triples)
    key = lambda r: r["s"]  # noqa: E731
    assert sorted(got, key=key) == sorted(want, key=key)


doubles = st.floats(allow_nan=True, allow_infinity=True)
floats = st.floats(width=32, allow_nan=False, allow_infinity=True)
decimals = st.decimals(
    min_value=Decimal("-1e8"), max_value=Decimal("1e8"), places=6, allow_nan=False
)


@_slow
@given(st.lists(st.tuples(doubles, doubles), min_size=1, max_size=40))
def test_double_arithmetic_prints_like_the_reference(spark: Any, pairs: Any) -> None:
    terms = [(f'"{_double(a)}"^^<{XSD}double>', f'"{_double(b)}"^^<{XSD}double>') for a, b in pairs]
    _run(spark, "(+?a AS ?p) (?a + ?b AS ?x) (?a * ?b AS ?y) (?a / ?b AS ?z)", terms)


@_slow
@given(st.lists(st.tuples(floats, st.integers(-1000, 1000)), min_size=1, max_size=40))
def test_float_arithmetic_prints_like_the_reference(spark: Any, pairs: Any) -> None:
    terms = [(f'"{_double(a)}"^^<{XSD}float>', f'"{b}"^^<{XSD}integer>') for a, b in pairs]
    _run(spark, "(+?a AS ?p) (?a + ?b AS ?x) (?a / ?b AS ?z)", terms)


def test_ties_between_two_shortest_strings_print_like_the_reference(spark: Any) -> None:
    """Exactly halfway between two shortest digit strings, the reference
    (Rust) takes the one further from zero; Java the even one. Found by
    test_mixed_types_in_one_predicate_promote_like_the_reference."""
    doubles = ["-3028236509741.03125", "2111381949380.53125", "1125899906842624.25"]
    floats = ["2097152.25", "-2097152.75", "2097152.5", "0.1"]
    terms = [(f'"{v}"^^<{XSD}double>', f'"0"^^<{XSD}integer>') for v in doubles]
    terms += [(f'"{v}"^^<{XSD}float>', f'"0"^^<{XSD}integer>') for v in floats]
    _run(spark, "(+?a AS ?p) (?a + ?b AS ?x) (-?a AS ?n)", terms)


# The compiled division is exact for divisors of at most nine significant
# digits (numerics.decimal_divide); beyond that the plan defers to pyoxigraph,
# see test_decimal_division_beyond_the_exact_range_defers.
divisors = st.decimals(
    min_value=Decimal("-99999.999"), max_value=Decimal("99999.999"), places=3, allow_nan=False
)


def test_decimal_division_beyond_the_exact_range_defers(spark: Any) -> None:
    from pytest_rspbench.errors import UnsupportedQueryError

    terms = [(f'"1.0"^^<{XSD}decimal>', f'"12345678.123456"^^<{XSD}decimal>')]
    with pytest.raises(UnsupportedQueryError, match="beyond Spark's exact range"):
        _run(spark, "(?a / ?b AS ?z)", terms)


def test_the_oracle_falls_back_when_the_plan_meets_such_a_value(spark: Any) -> None:
    """The run-time "unsupported" of the compiled plan makes the oracle use
    pyoxigraph for the case, not fail the item."""
    from pytest_rspbench.engine.api import Semantics
    from pytest_rspbench.oracle.oracle import expected_output
    from pytest_rspbench.rsp.rspql import parse
    from pytest_rspbench.stream.model import Event, Stream

    a, b = f'"1.0"^^<{XSD}decimal>', f'"12345678.123456"^^<{XSD}decimal>'
    event = Event(1, (("<http://ex/x>", "<http://ex/a>", a), ("<http://ex/x>", "<http://ex/b>", b)))
    query = parse(
        "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT (?a / ?b AS ?z)\n"
        "FROM NAMED WINDOW :w ON STREAM <http://ex/s> [RANGE 10 STEP 10]\n"
        "WHERE { WINDOW :w { ?x :a ?a ; :b ?b } }"
    )
    out = expected_output(
        spark,
        query,
        [Stream("http://ex/s", lambda: iter([event]), "in memory", end=10)],
        Semantics(bounds="[o,c)", t0=0, report=("window-close",)),
    )
    assert out.evaluator == "spark-pyoxigraph"
    assert "beyond Spark's exact range" in out.fallback_reason
    (relation,) = out.classes[0].relations
    assert relation.bindings == ({"z": f'"0.000000081000005832"^^<{XSD}decimal>'},)


@_slow
@given(st.lists(st.tuples(decimals, divisors), min_size=1, max_size=40))
def test_decimal_arithmetic_is_exact(spark: Any, pairs: Any) -> None:
    def lexical(d: Decimal) -> str:
        text = format(d, "f")
        return text if "." in text else text + ".0"

    terms = [
        (f'"{lexical(a)}"^^<{XSD}decimal>', f'"{lexical(b)}"^^<{XSD}decimal>') for a, b in pairs
    ]
    _run(spark, "(?a + ?b AS ?x) (?a - ?b AS ?m) (?a * ?b AS ?y) (?a / ?b AS ?z)", terms)


@_slow
@given(
    st.lists(
        st.tuples(st.integers(-(10**12), 10**12), st.integers(-999, 999)), min_size=1, max_size=40
    )
)
def test_integer_division_truncates_like_the_reference(spark: Any, pairs: Any) -> None:
    terms = [(f'"{a}"^^<{XSD}integer>', f'"{b}"^^<{XSD}integer>') for a, b in pairs]
    _run(spark, "(?a / ?b AS ?z) (?a * ?b AS ?y) (?a < ?b AS ?c)", terms)


def test_overflow_and_division_by_zero(spark: Any) -> None:
    big = f'"9223372036854775807"^^<{XSD}integer>'
    terms = [
        (big, f'"1"^^<{XSD}integer>'),
        (f'"1"^^<{XSD}integer>', f'"0"^^<{XSD}integer>'),
        (f'"1.5"^^<{XSD}decimal>', f'"0.0"^^<{XSD}decimal>'),
        (f'"1"^^<{XSD}double>', f'"0"^^<{XSD}integer>'),
        (f'"-0"^^<{XSD}double>', f'"0"^^<{XSD}double>'),
        (f'"abc"^^<{XSD}integer>', f'"1"^^<{XSD}integer>'),
    ]
    _run(spark, "(?a + ?b AS ?x) (?a / ?b AS ?z) (-?a AS ?n)", terms)


# The plan has branches only for the numeric types the data holds per
# predicate (oracle.datatypes). The tests above each give a predicate one
# type; here every predicate mixes them, so all promotions are planned.
mixed = st.one_of(
    st.integers(-1000, 1000).map(lambda v: f'"{v}"^^<{XSD}integer>'),
    st.integers(-1000, 1000).map(lambda v: f'"{v}"^^<{XSD}int>'),
    decimals.map(lambda d: f'"{format(d, "f")}"^^<{XSD}decimal>'),
    floats.map(lambda v: f'"{_double(v)}"^^<{XSD}float>'),
    doubles.map(lambda v: f'"{_double(v)}"^^<{XSD}double>'),
    st.sampled_from(['"7"', f'"x"^^<{XSD}integer>', "<http://ex.org/iri>"]),
)


@_slow
@given(st.lists(st.tuples(mixed, mixed), min_size=1, max_size=40))
def test_mixed_types_in_one_predicate_promote_like_the_reference(spark: Any, pairs: Any) -> None:
    _run(spark, "(?a + ?b AS ?x) (?a * ?b AS ?y) (?a < ?b AS ?c) (?a = ?b AS ?e)", pairs)


def test_one_type_per_predicate_plans_one_branch(spark: Any) -> None:
    """``?v1 - ?v2 > 0.0`` over xsd:float data: no integer or double cases."""
    from pyspark.sql import functions as F
    from rdflib.term import Variable

    from pytest_rspbench.oracle.sparql import numerics as N
    from pytest_rspbench.oracle.sparql.compiler import translate
    from pytest_rspbench.oracle.sparql.expressions import Env, compile_filter

    algebra = translate("SELECT * WHERE { ?s <http://ex.org/v> ?v1, ?v2 FILTER(?v1 - ?v2 > 0.0) }")
    condition = algebra.p.p.expr
    assert isinstance(condition.expr.expr, Variable)
    scope = {"v1": F.col("v_v1"), "v2": F.col("v_v2")}

    def plan(ranks: dict[str, frozenset[int]]) -> str:
        env = Env(scope, ranks=ranks)
        text = str(compile_filter(condition, env))
        return text + "".join(str(column) for _, column in env.lets)

    floats_only = frozenset({N.FLOAT})
    specialised = plan({"v1": floats_only, "v2": floats_only})
    general = plan({})
    # One float comparison (isNaN on both sides), no integer subtraction.
    assert specialised.count("isNaN") == 2 and "try_subtract" not in specialised
    assert general.count("isNaN") == 4 and "try_subtract" in general
    assert len(specialised) * 2 < len(general)
