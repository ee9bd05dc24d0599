"""SPARQL FILTER expressions compiled to Spark column expressions.

Terms are N-Triples strings in string columns (see terms.py). SPARQL's
expression semantics (SPARQL 1.1 §17) map onto Spark's three-valued logic:
an expression *error* is SQL NULL, which FILTER treats as false, and
``||``/``&&`` follow the same truth tables as SPARQL (error || true = true,
error && false = false). Numeric operands are promoted to double.
"""

from __future__ import annotations

from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.terms import NUMERIC_TYPES

_NUMERIC_DT = "(" + "|".join(sorted(t.replace(".", r"\.") for t in NUMERIC_TYPES)) + ")"
_NUMERIC_RE = r'^"([^"]*)"\^\^<' + _NUMERIC_DT + ">$"
_PLAIN_RE = r'^"((?:[^"\\]|\\.)*)"(\^\^<http://www\.w3\.org/2001/XMLSchema#string>)?$'


class Expr:
    """A compiled operand: the term column and, lazily, its numeric value."""

    def __init__(self, term: Any, number: Any = None, is_bool: bool = False):
        self.term = term
        self._number = number
        self.is_bool = is_bool

    @property
    def number(self) -> Any:
        from pyspark.sql import functions as F

        if self._number is None:
            self._number = F.when(
                self.term.rlike(_NUMERIC_RE),
                F.regexp_extract(self.term, _NUMERIC_RE, 1).cast("double"),
            )
        return self._number

    @property
    def string(self) -> Any:
        from pyspark.sql import functions as F

        return F.when(self.term.rlike(_PLAIN_RE), F.regexp_extract(self.term, _PLAIN_RE, 1))


def compile_expr(expr: Any, columns: dict[str, str]) -> Any:
    """A boolean Spark Column for a FILTER expression (NULL = error = false)."""
    compiled = _compile(expr, columns)
    return compiled.term if compiled.is_bool else _ebv(compiled)


def _compile(expr: Any, columns: dict[str, str]) -> Expr:
    from pyspark.sql import functions as F
    from rdflib.term import Literal, URIRef, Variable

    if isinstance(expr, Variable):
        name = str(expr)
        if name not in columns:
            return Expr(F.lit(None).cast("string"))  # unbound: every use is an error
        return Expr(F.col(columns[name]))
    if isinstance(expr, (URIRef, Literal)):
        return _constant(expr)
    name = getattr(expr, "name", None)
    handler = _HANDLERS.get(name)  # type: ignore[arg-type]
    if handler is None:
        raise UnsupportedQueryError(f"FILTER uses {name or type(expr).__name__}")
    return handler(expr, columns)


def _constant(term: Any) -> Expr:
    from pyspark.sql import functions as F
    from rdflib.term import Literal

    text = term.n3()
    if isinstance(term, Literal):
        if term.datatype is not None and str(term.datatype) in NUMERIC_TYPES:
            return Expr(F.lit(_ntriples_literal(term)), F.lit(float(term.toPython())))
        if term.datatype is not None and str(term.datatype).endswith("#boolean"):
            return Expr(F.lit(bool(term.toPython())), is_bool=True)
        text = _ntriples_literal(term)
    return Expr(F.lit(text))


def _ntriples_literal(term: Any) -> str:
    import pyoxigraph

    if term.language:
        return str(pyoxigraph.Literal(str(term), language=term.language))
    if term.datatype is not None:
        return str(pyoxigraph.Literal(str(term), datatype=pyoxigraph.NamedNode(str(term.datatype))))
    return str(pyoxigraph.Literal(str(term)))


def _ebv(value: Expr) -> Any:
    """Effective boolean value (SPARQL 1.1 §17.2.2)."""
    from pyspark.sql import functions as F

    if value.is_bool:
        return value.term
    term = value.term
    return (
        F.when(term == F.lit('"true"^^<http://www.w3.org/2001/XMLSchema#boolean>'), True)
        .when(term == F.lit('"false"^^<http://www.w3.org/2001/XMLSchema#boolean>'), False)
        .when(value.number.isNotNull(), value.number != 0)
        .when(value.string.isNotNull(), F.length(value.string) > 0)
    )


def _relational(expr: Any, columns: dict[str, str]) -> Expr:
    from pyspark.sql import functions as F

    left, right = _compile(expr.expr, columns), _compile(expr.other, columns)
    op = expr.op
    if op == "IN" or op == "NOT IN":
        raise UnsupportedQueryError("FILTER uses IN")
    numeric = _compare(left.number, right.number, op)
    strings = _compare(left.string, right.string, op)
    both_numeric = left.number.isNotNull() & right.number.isNotNull()
    both_strings = left.string.isNotNull() & right.string.isNotNull()
    result = F.when(both_numeric, numeric).when(both_strings, strings)
    if op in ("=", "!="):
        # RDFterm-equal for everything else (IRIs, typed literals of one type).
        same = left.term == right.term
        result = result.otherwise(same if op == "=" else ~same)
    return Expr(result, is_bool=True)


def _compare(left: Any, right: Any, op: str) -> Any:
    return {
        "=": lambda: left == right, "!=": lambda: left != right,
        "<": lambda: left < right, "<=": lambda: left <= right,
        ">": lambda: left > right, ">=": lambda: left >= right,
    }[op]()


def _logical(kind: str):  # type: ignore[no-untyped-def]
    def handler(expr: Any, columns: dict[str, str]) -> Expr:
        result = compile_expr(expr.expr, columns)
        for other in expr.other:
            nxt = compile_expr(other, columns)
            result = (result & nxt) if kind == "and" else (result | nxt)
        return Expr(result, is_bool=True)

    return handler


def _not(expr: Any, columns: dict[str, str]) -> Expr:
    return Expr(~compile_expr(expr.expr, columns), is_bool=True)


def _bound(expr: Any, columns: dict[str, str]) -> Expr:
    return Expr(_compile(expr.arg, columns).term.isNotNull(), is_bool=True)


def _is_iri(expr: Any, columns: dict[str, str]) -> Expr:
    term = _compile(expr.arg, columns).term
    return Expr(term.startswith("<"), is_bool=True)


def _is_literal(expr: Any, columns: dict[str, str]) -> Expr:
    term = _compile(expr.arg, columns).term
    return Expr(term.startswith('"'), is_bool=True)


_HANDLERS = {
    "RelationalExpression": _relational,
    "ConditionalAndExpression": _logical("and"),
    "ConditionalOrExpression": _logical("or"),
    "UnaryNot": _not,
    "Builtin_BOUND": _bound,
    "Builtin_isIRI": _is_iri,
    "Builtin_isURI": _is_iri,
    "Builtin_isLITERAL": _is_literal,
}
