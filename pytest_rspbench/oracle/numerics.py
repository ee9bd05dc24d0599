"""SPARQL numbers in Spark columns: parsing, type promotion, arithmetic, lexical form.

XPath numeric type promotion (SPARQL 1.1 §17.3, XPath F&O §6.2): the result of
an operation on two numbers has the "higher" of their types in
integer < decimal < float < double; integer / integer is a decimal. The types
are modelled the way pyoxigraph (the per-window reference) models them, so the
results are equal as RDF terms:

- xsd:integer and its derived types: a signed 64-bit integer (``long``);
  overflow is an error;
- xsd:decimal: 18 fractional digits (Spark ``decimal(38,18)``); division
  truncates at the 18th digit;
- xsd:float: 32-bit, xsd:double: 64-bit IEEE 754 (division by zero gives
  INF/NaN, not an error).

Computed numbers print in the reference's canonical form: integers in plain
digits, decimals without trailing zeros (``"2"``, ``"0.5"``), floats and
doubles as the shortest decimal that reads back to the same value, without
exponent (``"1.5"``, ``"100000000000000000000"``, ``"0.0000001"``, ``"INF"``,
``"NaN"``, ``"-0"``).

Where Spark's decimal arithmetic cannot give the exact 18-digit result
(operands past about 1e9 with many fractional digits), the plan raises the
"unsupported" error at run time instead of answering, and the oracle falls
back to per-window evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.oracle.literals import (
    lexical,
    typed_literal,
    unsupported,
    xsd_type,
)
from pytest_rspbench.terms import XSD

INTEGER, DECIMAL, FLOAT, DOUBLE = 0, 1, 2, 3
DEC = "decimal(38,18)"
_TYPE_NAMES = {INTEGER: "integer", DECIMAL: "decimal", FLOAT: "float", DOUBLE: "double"}
_LEXICAL = {
    "integer": r"^[+-]?[0-9]+$",
    "decimal": r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$",
    "float": (
        r"^[+-]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?"
        r"|(?i:inf|infinity|nan))$"
    ),
}
_LEXICAL["double"] = _LEXICAL["float"]
Let = Callable[[Any], Any]
"""Materialises a column (returns a reference to it) to keep plans small."""


def _same(column: Any) -> Any:
    return column


_INTEGER_TYPES = (
    "integer nonPositiveInteger negativeInteger long int short byte nonNegativeInteger "
    "unsignedLong unsignedInt unsignedShort unsignedByte positiveInteger"
).split()


@dataclass(frozen=True)
class Num:
    """A numeric value: its type rank and one value column per type.

    ``rank`` is NULL when the operand is not a number (a SPARQL type error);
    only the value column of the rank is meaningful.
    """

    rank: Any
    i: Any
    d: Any
    f: Any
    x: Any

    def as_decimal(self) -> Any:
        from pyspark.sql import functions as F

        return F.when(self.rank == INTEGER, self.i.cast(DEC)).when(
            self.rank == DECIMAL, self.d
        )

    def as_float(self) -> Any:
        from pyspark.sql import functions as F

        return (
            F.when(self.rank == INTEGER, self.i.cast("float"))
            .when(self.rank == DECIMAL, self.d.cast("float"))
            .when(self.rank == FLOAT, self.f)
        )

    def as_double(self) -> Any:
        from pyspark.sql import functions as F

        return (
            F.when(self.rank == INTEGER, self.i.cast("double"))
            .when(self.rank == DECIMAL, self.d.cast("double"))
            .when(self.rank == FLOAT, self.f.cast("double"))
            .when(self.rank == DOUBLE, self.x)
        )


def build(rank: Any, i: Any = None, d: Any = None, f: Any = None, x: Any = None) -> Num:
    """A Num whose rank is NULL wherever the value of that rank is NULL (an error)."""
    from pyspark.sql import functions as F

    none = F.lit(None)
    i, d = (
        (i if i is not None else none.cast("long")),
        (d if d is not None else none.cast(DEC)),
    )
    f, x = (
        (f if f is not None else none.cast("float")),
        (x if x is not None else none.cast("double")),
    )
    checked = (
        F.when((rank == INTEGER) & i.isNotNull(), rank)
        .when((rank == DECIMAL) & d.isNotNull(), rank)
        .when((rank == FLOAT) & f.isNotNull(), rank)
        .when((rank == DOUBLE) & x.isNotNull(), rank)
    )
    return Num(checked, i, d, f, x)


def constant(rank: int, lexical_form: str) -> Num:
    """A Num for a numeric constant of the query."""
    from pyspark.sql import functions as F

    return parse(F.lit(f'"{lexical_form}"^^<{XSD}{_TYPE_NAMES[rank]}>'))


def valid_lexical(lex: Any, family: str) -> Any:
    return lex.rlike(_LEXICAL[family])


def parse(term: Any, let: Let = _same) -> Num:
    """The numeric value of a term column (rank NULL unless it is a valid number)."""
    from pyspark.sql import functions as F

    kind = let(xsd_type(term))
    lex = let(lexical(term))
    casts = {
        INTEGER: lex.try_cast("long"),
        DECIMAL: lex.try_cast(DEC),
        FLOAT: lex.try_cast("float"),
        DOUBLE: lex.try_cast("double"),
    }
    valid = {
        INTEGER: kind.isin(*_INTEGER_TYPES) & valid_lexical(lex, "integer"),
        DECIMAL: (kind == "decimal") & valid_lexical(lex, "decimal"),
        FLOAT: (kind == "float") & valid_lexical(lex, "float"),
        DOUBLE: (kind == "double") & valid_lexical(lex, "double"),
    }
    rank = F.lit(None).cast("int")
    for r in (DOUBLE, FLOAT, DECIMAL, INTEGER):
        rank = F.when(valid[r] & casts[r].isNotNull(), F.lit(r)).otherwise(rank)
    rank = let(rank)
    return Num(
        rank,
        F.when(rank == INTEGER, casts[INTEGER]),
        F.when(rank == DECIMAL, casts[DECIMAL]),
        F.when(rank == FLOAT, casts[FLOAT]),
        F.when(rank == DOUBLE, casts[DOUBLE]),
    )


def promoted(a: Num, b: Num) -> Any:
    """The rank both operands are promoted to; NULL if either is not a number."""
    from pyspark.sql import functions as F

    return F.when(a.rank.isNotNull() & b.rank.isNotNull(), F.greatest(a.rank, b.rank))


def arithmetic(op: str, a: Num, b: Num, let: Let = _same) -> Num:
    """``a op b`` for op in + - * / with promotion (errors give rank NULL)."""
    from pyspark.sql import functions as F

    rank = promoted(a, b)
    if op == "/":
        rank = F.when(rank == INTEGER, F.lit(DECIMAL)).otherwise(rank)
    rank = let(rank)
    ints = {"+": F.try_add, "-": F.try_subtract, "*": F.try_multiply}
    i = ints[op](a.i, b.i) if op in ints else None
    # Guard the decimal inputs by rank: materialised columns are computed for
    # every row, and decimal arithmetic may raise "unsupported".
    ad = let(F.when(rank == DECIMAL, a.as_decimal()))
    bd = let(F.when(rank == DECIMAL, b.as_decimal()))
    if op == "/":
        d = let(decimal_divide(ad, bd, let))
    else:
        d = let({"+": _dec_add, "-": _dec_sub, "*": _dec_mul}[op](ad, bd))
    af, bf = a.as_float(), b.as_float()
    ax, bx = a.as_double(), b.as_double()
    if op == "/":
        f = _ieee_div(af.cast("double"), bf.cast("double")).cast("float")
        x = _ieee_div(ax, bx)
    else:
        f = _float_op(op, af, bf).cast("float")
        x = _float_op(op, ax, bx)
    return build(
        rank,
        i=F.when(rank == INTEGER, i) if i is not None else None,
        d=F.when(rank == DECIMAL, d),
        f=F.when(rank == FLOAT, f),
        x=F.when(rank == DOUBLE, x),
    )


def negate(a: Num) -> Num:
    from pyspark.sql import functions as F

    return build(
        a.rank,
        i=F.try_subtract(F.lit(0).cast("long"), a.i),
        d=-a.d,
        f=-a.f,
        x=-a.x,
    )


def compare(op: str, a: Num, b: Num) -> Any:
    """``a op b`` for op in = != < <= > >= after promotion; NULL for an error.

    NaN is unequal to everything and makes ordering comparisons an error, as in
    the reference evaluator.
    """
    from pyspark.sql import functions as F

    rank = promoted(a, b)
    cmp = _COMPARE[op]
    af, bf = a.as_float(), b.as_float()
    ax, bx = a.as_double(), b.as_double()
    nan_f = F.isnan(af) | F.isnan(bf)
    nan_x = F.isnan(ax) | F.isnan(bx)
    on_nan = F.lit(op == "!=") if op in ("=", "!=") else F.lit(None).cast("boolean")
    return (
        F.when(rank == INTEGER, cmp(a.i, b.i))
        .when(rank == DECIMAL, cmp(a.as_decimal(), b.as_decimal()))
        .when(rank == FLOAT, F.when(nan_f, on_nan).otherwise(cmp(af, bf)))
        .when(rank == DOUBLE, F.when(nan_x, on_nan).otherwise(cmp(ax, bx)))
    )


_COMPARE = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def is_true(a: Num) -> Any:
    """Effective boolean value of a number: non-zero and not NaN."""
    from pyspark.sql import functions as F

    return (
        F.when(a.rank == INTEGER, a.i != 0)
        .when(a.rank == DECIMAL, a.d != 0)
        .when(a.rank == FLOAT, (a.f != 0) & ~F.isnan(a.f))
        .when(a.rank == DOUBLE, (a.x != 0) & ~F.isnan(a.x))
    )


def to_term(a: Num, let: Let = _same) -> Any:
    """The canonical N-Triples term of a number (NULL for an error)."""
    from pyspark.sql import functions as F

    return (
        F.when(a.rank == INTEGER, typed_literal(a.i.cast("string"), XSD + "integer"))
        .when(a.rank == DECIMAL, typed_literal(format_decimal(a.d), XSD + "decimal"))
        .when(
            a.rank == FLOAT,
            typed_literal(format_ieee(a.f, "float", let), XSD + "float"),
        )
        .when(
            a.rank == DOUBLE,
            typed_literal(format_ieee(a.x, "double", let), XSD + "double"),
        )
    )


def format_decimal(d: Any) -> Any:
    """``1.500`` -> ``1.5``, ``2.000`` -> ``2`` (Spark prints decimals plainly)."""
    from pyspark.sql import functions as F

    return F.regexp_replace(d.cast("string"), r"\.?0*$", "")


def format_ieee(value: Any, kind: str, let: Let = _same) -> Any:
    """Shortest round-tripping digits, printed without exponent (Rust's Display).

    Java's ``toString`` digits are the shortest since Java 19; Java 17 and 18
    sometimes give one or two digits more (seen: ``3.49578791E16`` for the
    float ``3.495788E16``). Two and one digits less are tried, in that order,
    and the first that reads back to the same value is kept.
    """
    from pyspark.sql import functions as F

    java = F.regexp_replace(value.cast("string"), "E.*$|^-|\\.", "")
    n = let(F.greatest(F.length(F.regexp_replace(java, "^0+|0+$", "")), F.lit(1)))

    def digits(count: Any) -> Any:
        pattern = F.concat(F.lit("%."), F.greatest(count - 1, F.lit(0)).cast("string"), F.lit("e"))
        return F.call_function("format_string", pattern, value)

    two_less, one_less, exact = digits(n - 2), digits(n - 1), digits(n)
    sci = let(
        F.when((n >= 3) & (two_less.try_cast(kind) == value), two_less)
        .when((n >= 2) & (one_less.try_cast(kind) == value), one_less)
        .otherwise(exact)
    )
    parts = r"^(-?)([0-9])(?:\.([0-9]*))?e([+-][0-9]+)$"
    sign = F.regexp_extract(sci, parts, 1)
    mantissa = let(
        F.concat(F.regexp_extract(sci, parts, 2), F.regexp_extract(sci, parts, 3))
    )
    exp = let(F.regexp_extract(sci, parts, 4).try_cast("int"))
    n = F.length(mantissa)
    plain = (
        F.when(exp >= n - 1, F.concat(mantissa, F.repeat(F.lit("0"), exp - n + 1)))
        .when(
            exp >= 0,
            F.concat(
                mantissa.substr(F.lit(1), exp + 1),
                F.lit("."),
                mantissa.substr(exp + 2, F.lit(1 << 20)),
            ),
        )
        .otherwise(F.concat(F.lit("0."), F.repeat(F.lit("0"), -exp - 1), mantissa))
    )
    return (
        F.when(F.isnan(value), F.lit("NaN"))
        .when(value == float("inf"), F.lit("INF"))
        .when(value == float("-inf"), F.lit("-INF"))
        .when(
            value == 0,
            F.when(value.cast("string").startswith("-"), "-0").otherwise("0"),
        )
        .otherwise(F.concat(sign, plain))
    )


def _float_op(op: str, a: Any, b: Any) -> Any:
    return {"+": a + b, "-": a - b, "*": a * b}[op]


def _ieee_div(a: Any, b: Any) -> Any:
    """IEEE division (x/0 is ±INF, 0/0 NaN) without Spark's divide-by-zero error."""
    from pyspark.sql import functions as F

    negative_zero = b.cast("string").startswith("-")
    signed_inf = F.when((a > 0) != negative_zero, float("inf")).otherwise(float("-inf"))
    return F.when(b != 0, F.try_divide(a, b)).otherwise(
        F.when(F.isnan(a) | (a == 0), float("nan")).otherwise(signed_inf)
    )


def _exact(value: Any, precision: int, scale: int, what: str) -> Any:
    """``value`` as decimal(precision, scale), or the unsupported error if inexact."""
    from pyspark.sql import functions as F

    cast = value.try_cast(f"decimal({precision},{scale})")
    inexact = value.isNotNull() & (cast.isNull() | (cast != value))
    return F.when(
        inexact, unsupported(f"xsd:decimal {what} beyond Spark's exact range")
    ).otherwise(cast)


def _dec_add(a: Any, b: Any) -> Any:
    return _exact(a, 37, 18, "addition") + _exact(b, 37, 18, "addition")


def _dec_sub(a: Any, b: Any) -> Any:
    return _exact(a, 37, 18, "subtraction") - _exact(b, 37, 18, "subtraction")


def _dec_mul(a: Any, b: Any) -> Any:
    # decimal(19,9) * decimal(18,9) fits decimal(38,18) exactly.
    return _exact(a, 19, 9, "multiplication") * _exact(b, 18, 9, "multiplication")


def decimal_divide(a: Any, b: Any, let: Let = _same) -> Any:
    """``a / b`` on decimal(38,18) columns, truncated at 18 digits; NULL if b = 0.

    Spark would round a decimal quotient at 6 digits, so the quotient is built
    exactly: the divisor is scaled to an integer ``n`` (|n| < 1e9), then
    ``a / n = (a - r) / n + r / n`` with ``r = a % n``; ``r / n`` is computed
    at 29 digits, which the 18-digit truncation cannot tell from exact (the
    distance from ``r / n`` to the 18-digit grid is 0 or at least 1e-27).
    """
    from pyspark.sql import functions as F

    b_text = let(F.regexp_replace(b.cast("string"), "0+$", ""))
    k = let(F.length(F.substring_index(b_text, ".", -1)))
    n = let(F.regexp_replace(b_text, r"\.", "").try_cast("decimal(38,0)"))
    a_text = let(a.cast("string"))
    a_frac = F.substring_index(a_text, ".", -1)
    shifted = let(
        F.concat(
            F.substring_index(a_text, ".", 1),
            a_frac.substr(F.lit(1), k),
            F.lit("."),
            a_frac.substr(k + 1, F.lit(18)),
            F.lit("0"),
        ).try_cast(DEC)
    )
    small = n.isNotNull() & (F.abs(n) < 1_000_000_000) & shifted.isNotNull()
    n10 = F.when(small & (n != 0), n).cast("decimal(10,0)")
    rest = let(shifted % n10)
    whole = _exact(let((shifted - rest) / n10), 37, 18, "division")
    part = let(rest.cast("decimal(27,18)") / n10)
    part = (
        F.when(part >= 0, F.floor(part, 18))
        .otherwise(F.ceil(part, 18))
        .cast("decimal(19,18)")
    )
    return (
        F.when(a.isNull() | b.isNull() | (b == 0), F.lit(None).cast(DEC))
        .when(~small, unsupported("xsd:decimal division beyond Spark's exact range"))
        .otherwise((whole + part).cast(DEC))
    )


_dec_div = decimal_divide
