"""Nested SPARQL functions: a plan linear in the nesting, the answers of pyoxigraph.

Every function reads its argument several times (``LCASE`` its lexical form,
its language tag and its kind), so a plan that repeated the argument's
expression at each read would grow as ``k**depth``: ``LCASE(?t) = "e"``
alone once took about a minute of Spark analysis. Each function's value is
materialised once, as a helper column (a lambda variable in a join
condition), so each level adds a bounded amount to the plan::

    depth   0      1          6
    plan    P0     P0 + L     at most P0 + 6 L   (L: what the costliest level adds)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from single_window import evaluate, reference

pytestmark = pytest.mark.spark

EX = "http://ex.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
TRIPLES = [
    (f"<{EX}s1>", f"<{EX}t>", '"Bleu"@en'),
    (f"<{EX}s2>", f"<{EX}t>", '"ROUGE"'),
    (f"<{EX}s3>", f"<{EX}t>", '"été Bleu"@fr'),
    (f"<{EX}s4>", f"<{EX}t>", '"Tab\\tEt \\"Quote\\""'),
    (f"<{EX}s5>", f"<{EX}t>", f'"8"^^<{XSD}integer>'),
    (f"<{EX}s6>", f"<{EX}t>", f"<{EX}Bleu>"),
    (f"<{EX}s1>", f"<{EX}u>", '"vert"@en'),
    (f"<{EX}s3>", f"<{EX}u>", '"Bleu"'),
]
FUNCTIONS = ("lcase", "str", "ucase", "str")


def nested(depth: int, var: str = "?t") -> str:
    """``lcase(str(ucase(str(...?t))))``, ``depth`` calls deep."""
    text = var
    for k in range(depth):
        text = f"{FUNCTIONS[k % len(FUNCTIONS)]}({text})"
    return text


def _plan_size(spark: Any, sparql: str) -> int:
    """The length of the compiled plan's text (the helper columns included)."""
    from single_window import context

    from pytest_rspbench.oracle.sparql.compiler import compile_select, translate

    relation = compile_select(translate(sparql), context(spark, TRIPLES))
    return len(relation.df._jdf.queryExecution().logical().toString())


def _filtered(condition: str) -> str:
    return f"SELECT ?t WHERE {{ ?x <{EX}t> ?t FILTER({condition}) }}"


def _optional(condition: str) -> str:
    # The FILTER inside OPTIONAL is a left join's condition (an inline Env).
    return (
        f"SELECT ?t ?u WHERE {{ ?x <{EX}t> ?t OPTIONAL {{ ?x <{EX}u> ?u FILTER({condition}) }} }}"
    )


@pytest.mark.parametrize(
    ("query", "var"), [(_filtered, "?t"), (_optional, "?u")], ids=["filter", "join-condition"]
)
def test_the_plan_grows_linearly_with_the_nesting(spark: Any, query: Any, var: str) -> None:
    sizes = {d: _plan_size(spark, query(f'{nested(d, var)} = "bleu"')) for d in (0, 1, 6)}
    level = sizes[1] - sizes[0]  # LCASE: the costliest function of the four
    assert level > 0
    assert sizes[6] <= sizes[0] + 6 * level, sizes


@pytest.mark.parametrize(
    "sparql",
    [
        _filtered(f'{nested(2)} = "bleu"'),
        _filtered(f'contains({nested(3)}, "E")'),
        _filtered(f'strstarts({nested(6)}, "b")'),
        f"SELECT ?t (ucase(lcase(ucase(str(?t)))) AS ?v) WHERE {{ ?x <{EX}t> ?t }}",
        f'SELECT ?t (strlen(concat(lcase(str(?t)), "!")) AS ?v) WHERE {{ ?x <{EX}t> ?t }}',
        f"SELECT ?t (lang(lcase(ucase(?t))) AS ?v) WHERE {{ ?x <{EX}t> ?t }}",
        f'SELECT ?t (lcase(concat(ucase(?t), "-", str(?t))) AS ?v) WHERE {{ ?x <{EX}t> ?t }}',
        _optional('contains(lcase(str(?u)), "e")'),
        _optional(f"{nested(4, '?u')} = lcase(str(?t))"),
    ],
)
def test_nested_functions_answer_as_pyoxigraph(spark: Any, sparql: str) -> None:
    _, compiled = evaluate(spark, sparql, TRIPLES)
    expected = reference(sparql, TRIPLES)
    assert expected, "the query should have answers over TRIPLES"
    assert Counter(frozenset(b.items()) for b in compiled) == Counter(
        frozenset(b.items()) for b in expected
    )
