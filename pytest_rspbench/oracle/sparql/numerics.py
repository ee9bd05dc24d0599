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

Every :class:`Num` also knows, at compile time, which ranks it *can* have
(``ranks``): the datatypes found in the data for the pattern that binds a
variable (:mod:`pytest_rspbench.oracle.sparql.datatypes`), a constant's own type, and
what promotion makes of its operands'. Only those ranks get a branch in the
plan, so ``?v1 - ?v2 > 0.0`` over xsd:float data is one float subtraction and
one comparison, not the sixteen cases of full promotion. The ranks are an
upper bound: a value outside them would be read as an error, so every source
of values must report all it may produce (unknown sources report ``ALL``).

Where Spark's decimal arithmetic cannot give the exact 18-digit result
(operands past about 1e9 with many fractional digits), the plan raises the
"unsupported" error at run time instead of answering, and the oracle falls
back to per-window evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.oracle.sparql.literals import (
    lexical,
    typed_literal,
    unsupported,
    xsd_type,
)
from pytest_rspbench.rsp.terms import XSD

INTEGER, DECIMAL, FLOAT, DOUBLE = 0, 1, 2, 3
ALL = frozenset((INTEGER, DECIMAL, FLOAT, DOUBLE))
"""Every rank: what a term of unknown origin may be."""
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


INTEGER_TYPES = (
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
    ranks: frozenset[int] = ALL

    def cases(self, branches: dict[int, Callable[[], Any]], null: str) -> Any:
        """``CASE rank WHEN r THEN branches[r]() ...`` over the ranks it can have."""
        return cases(self.rank, branches, self.ranks, null)

    def as_decimal(self) -> Any:
        return self.cases({INTEGER: lambda: self.i.cast(DEC), DECIMAL: lambda: self.d}, DEC)

    def as_float(self) -> Any:
        return self.cases(
            {
                INTEGER: lambda: self.i.cast("float"),
                DECIMAL: lambda: self.d.cast("float"),
                FLOAT: lambda: self.f,
            },
            "float",
        )

    def as_double(self) -> Any:
        return self.cases(
            {
                INTEGER: lambda: self.i.cast("double"),
                DECIMAL: lambda: self.d.cast("double"),
                FLOAT: lambda: self.f.cast("double"),
                DOUBLE: lambda: self.x,
            },
            "double",
        )


def packed(number: Num) -> Any:
    """``number`` as one struct column (rank and one value field per type)."""
    from pyspark.sql import functions as F

    return F.struct(
        number.rank.alias("r"),
        number.i.alias("i"),
        number.d.alias("d"),
        number.f.alias("f"),
        number.x.alias("x"),
    )


def unpacked(column: Any, ranks: frozenset[int] = ALL) -> Num:
    """The number a :func:`packed` struct column holds."""
    return Num(column["r"], column["i"], column["d"], column["f"], column["x"], ranks)


def cases(
    rank: Any, branches: dict[int, Callable[[], Any]], ranks: frozenset[int], null: str
) -> Any:
    """A CASE over ``rank`` with a branch for each of ``ranks`` that has one.

    Branches are built only when needed (they may be large); with none left,
    the result is a NULL of type ``null`` (an error, as for any other rank).
    """
    from pyspark.sql import functions as F

    result = None
    for r in sorted(ranks):
        if r not in branches:
            continue
        value = branches[r]()
        result = F.when(rank == r, value) if result is None else result.when(rank == r, value)
    return F.lit(None).cast(null) if result is None else result


def promotions(a: frozenset[int], b: frozenset[int]) -> frozenset[int]:
    """The ranks ``a op b`` can be promoted to."""
    return frozenset(max(x, y) for x in a for y in b)


def build(
    rank: Any,
    i: Any = None,
    d: Any = None,
    f: Any = None,
    x: Any = None,
    ranks: frozenset[int] = ALL,
) -> Num:
    """A Num whose rank is NULL wherever the value of that rank is NULL (an error).

    ``ranks`` are the ranks ``rank`` can have; the value columns of the others
    are not used.
    """
    from pyspark.sql import functions as F

    none = F.lit(None)
    values = {
        INTEGER: i if i is not None and INTEGER in ranks else none.cast("long"),
        DECIMAL: d if d is not None and DECIMAL in ranks else none.cast(DEC),
        FLOAT: f if f is not None and FLOAT in ranks else none.cast("float"),
        DOUBLE: x if x is not None and DOUBLE in ranks else none.cast("double"),
    }
    checked = None
    for r in sorted(ranks):
        holds = (rank == r) & values[r].isNotNull()
        checked = F.when(holds, rank) if checked is None else checked.when(holds, rank)
    if checked is None:
        checked = none.cast("int")
    i, d, f, x = values.values()
    return Num(checked, i, d, f, x, ranks=frozenset(ranks))


def constant(rank: int, lexical_form: str) -> Num:
    """A Num for a numeric constant of the query."""
    from pyspark.sql import functions as F

    term = F.lit(f'"{lexical_form}"^^<{XSD}{_TYPE_NAMES[rank]}>')
    return parse(term, ranks=frozenset((rank,)))


def valid_lexical(lex: Any, family: str) -> Any:
    return lex.rlike(_LEXICAL[family])


def valid_constant(lexical_form: str, rank: int) -> bool:
    """Whether a constant of the query surely parses to a number of ``rank``.

    >>> valid_constant("0.0", DECIMAL), valid_constant("1e3", DECIMAL)
    (True, False)
    """
    import math
    import re

    if not re.match(_LEXICAL[_TYPE_NAMES[rank]], lexical_form):
        return False
    if rank == INTEGER:
        return -(2**63) <= int(lexical_form) < 2**63
    if rank == DECIMAL:
        whole, _, fraction = lexical_form.lstrip("+-").partition(".")
        return len(whole) <= 20 and len(fraction) <= 18
    return math.isfinite(float(lexical_form))


def parse(term: Any, let: Let = _same, ranks: frozenset[int] = ALL) -> Num:
    """The numeric value of a term column (rank NULL unless it is a valid number).

    ``ranks``: the numeric types the term can have (see the module's text);
    a number of another type would be read as an error.
    """
    from pyspark.sql import functions as F

    ranks = frozenset(ranks)
    none = F.lit(None)
    if not ranks:
        return Num(
            none.cast("int"),
            none.cast("long"),
            none.cast(DEC),
            none.cast("float"),
            none.cast("double"),
            ranks,
        )
    kind = let(xsd_type(term))
    lex = let(lexical(term))
    casts = {
        INTEGER: lambda: lex.try_cast("long"),
        DECIMAL: lambda: lex.try_cast(DEC),
        FLOAT: lambda: lex.try_cast("float"),
        DOUBLE: lambda: lex.try_cast("double"),
    }
    valid = {
        INTEGER: lambda: kind.isin(*INTEGER_TYPES) & valid_lexical(lex, "integer"),
        DECIMAL: lambda: (kind == "decimal") & valid_lexical(lex, "decimal"),
        FLOAT: lambda: (kind == "float") & valid_lexical(lex, "float"),
        DOUBLE: lambda: (kind == "double") & valid_lexical(lex, "double"),
    }
    rank = F.lit(None).cast("int")
    for r in (DOUBLE, FLOAT, DECIMAL, INTEGER):
        if r in ranks:
            rank = F.when(valid[r]() & casts[r]().isNotNull(), F.lit(r)).otherwise(rank)
    rank = let(rank)
    nulls = {INTEGER: "long", DECIMAL: DEC, FLOAT: "float", DOUBLE: "double"}
    values = [
        F.when(rank == r, casts[r]()) if r in ranks else none.cast(nulls[r])
        for r in (INTEGER, DECIMAL, FLOAT, DOUBLE)
    ]
    i, d, f, x = values
    return Num(rank, i, d, f, x, ranks=ranks)


def promoted(a: Num, b: Num) -> Any:
    """The rank both operands are promoted to; NULL if either is not a number."""
    from pyspark.sql import functions as F

    return F.when(a.rank.isNotNull() & b.rank.isNotNull(), F.greatest(a.rank, b.rank))


def arithmetic(op: str, a: Num, b: Num, let: Let = _same) -> Num:
    """``a op b`` for op in + - * / with promotion (errors give rank NULL)."""
    from pyspark.sql import functions as F

    ranks = promotions(a.ranks, b.ranks)
    rank = promoted(a, b)
    if op == "/":
        ranks = frozenset(DECIMAL if r == INTEGER else r for r in ranks)
        if INTEGER in a.ranks and INTEGER in b.ranks:
            rank = F.when(rank == INTEGER, F.lit(DECIMAL)).otherwise(rank)
    rank = let(rank)
    ints = {"+": F.try_add, "-": F.try_subtract, "*": F.try_multiply}
    i = d = f = x = None
    if INTEGER in ranks and op in ints:
        i = F.when(rank == INTEGER, ints[op](a.i, b.i))
    if DECIMAL in ranks:
        # Guard the decimal inputs by rank: materialised columns are computed
        # for every row, and decimal arithmetic may raise "unsupported".
        ad = let(F.when(rank == DECIMAL, a.as_decimal()))
        bd = let(F.when(rank == DECIMAL, b.as_decimal()))
        if op == "/":
            d = let(decimal_divide(ad, bd, let))
        else:
            d = let({"+": _dec_add, "-": _dec_sub, "*": _dec_mul}[op](ad, bd))
        d = F.when(rank == DECIMAL, d)
    if FLOAT in ranks:
        af, bf = a.as_float(), b.as_float()
        if op == "/":
            f = _ieee_div(af.cast("double"), bf.cast("double")).cast("float")
        else:
            f = _float_op(op, af, bf).cast("float")
        f = F.when(rank == FLOAT, f)
    if DOUBLE in ranks:
        ax, bx = a.as_double(), b.as_double()
        x = _ieee_div(ax, bx) if op == "/" else _float_op(op, ax, bx)
        x = F.when(rank == DOUBLE, x)
    return build(rank, i=i, d=d, f=f, x=x, ranks=ranks)


def negate(a: Num) -> Num:
    from pyspark.sql import functions as F

    return build(
        a.rank,
        i=F.try_subtract(F.lit(0).cast("long"), a.i),
        d=-a.d,
        f=-a.f,
        x=-a.x,
        ranks=a.ranks,
    )


def compare(op: str, a: Num, b: Num) -> Any:
    """``a op b`` for op in = != < <= > >= after promotion; NULL for an error.

    NaN is unequal to everything and makes ordering comparisons an error, as in
    the reference evaluator.
    """
    from pyspark.sql import functions as F

    rank = promoted(a, b)
    cmp = _COMPARE[op]
    on_nan = F.lit(op == "!=") if op in ("=", "!=") else F.lit(None).cast("boolean")

    def ieee(x: Any, y: Any) -> Any:
        return F.when(F.isnan(x) | F.isnan(y), on_nan).otherwise(cmp(x, y))

    return cases(
        rank,
        {
            INTEGER: lambda: cmp(a.i, b.i),
            DECIMAL: lambda: cmp(a.as_decimal(), b.as_decimal()),
            FLOAT: lambda: ieee(a.as_float(), b.as_float()),
            DOUBLE: lambda: ieee(a.as_double(), b.as_double()),
        },
        promotions(a.ranks, b.ranks),
        "boolean",
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

    return a.cases(
        {
            INTEGER: lambda: a.i != 0,
            DECIMAL: lambda: a.d != 0,
            FLOAT: lambda: (a.f != 0) & ~F.isnan(a.f),
            DOUBLE: lambda: (a.x != 0) & ~F.isnan(a.x),
        },
        "boolean",
    )


def to_term(a: Num, let: Let = _same) -> Any:
    """The canonical N-Triples term of a number (NULL for an error)."""

    return a.cases(
        {
            INTEGER: lambda: typed_literal(a.i.cast("string"), XSD + "integer"),
            DECIMAL: lambda: typed_literal(format_decimal(a.d), XSD + "decimal"),
            FLOAT: lambda: typed_literal(format_ieee(a.f, "float", let), XSD + "float"),
            DOUBLE: lambda: typed_literal(format_ieee(a.x, "double", let), XSD + "double"),
        },
        "string",
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
    mantissa = let(F.concat(F.regexp_extract(sci, parts, 2), F.regexp_extract(sci, parts, 3)))
    exp = let(F.regexp_extract(sci, parts, 4).try_cast("int"))
    mantissa, exp = _tie_up(value, kind, mantissa, exp, let)
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


_POWERS_OF_5 = tuple(5**k for k in range(28))  # exact in a long (5^27 < 2^63)


def _tie_up(value: Any, kind: str, mantissa: Any, exp: Any, let: Let) -> tuple[Any, Any]:
    """The digits Rust prints where two shortest digit strings are equally close.

    A value can lie exactly halfway between two strings of the shortest
    length that both read back to it: the double -3028236509741.03125 is
    ...0312 or ...0313 to 17 digits. Java (and so ``format_string``) keeps
    the even last digit; Rust, and so the reference, takes the one further
    from zero. The value is such a tie above ``mantissa`` when the digits
    followed by a 5 are exactly the value: that decimal, ``m * 10^q`` with
    ``m`` ending in 5, is a binary number only when ``5^-q`` divides ``m``
    (or, for ``q >= 0``, when ``m * 5^q`` fits the significand), and then it
    reads back to the value exactly when it is the value. The last digit
    then goes up by one (a carry past the first digit moves the exponent).
    tests/oracle/test_numerics.py checks ties against the reference.
    """
    from pyspark.sql import functions as F

    bits = 53 if kind == "double" else 24
    n = F.length(mantissa)
    q = exp - n  # the power of ten of the appended 5
    m = F.concat(mantissa, F.lit("5")).try_cast("long")
    powers = F.array(*[F.lit(p).cast("long") for p in _POWERS_OF_5])
    five = F.try_element_at(powers, F.abs(q) + 1)  # NULL beyond 5^27
    significand = F.when(q >= 0, F.try_multiply(m, five)).otherwise(
        F.when(F.pmod(m, five) == 0, m.cast("decimal(20,0)") / five)
    )
    text = F.concat(mantissa, F.lit("5e"), q.cast("string"))
    tie = let(
        F.coalesce(
            (significand < F.lit(2**bits)) & (text.try_cast(kind) == F.abs(value)), F.lit(False)
        )
    )
    raised = (mantissa.try_cast("long") + 1).cast("string")
    carried = F.length(raised) > n
    up = F.regexp_replace(
        F.when(carried, raised.substr(F.lit(1), n)).otherwise(raised), "(?<=.)0+$", ""
    )
    return (
        let(F.when(tie, up).otherwise(mantissa)),
        let(F.when(tie & carried, exp + 1).otherwise(exp)),
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
    return F.when(inexact, unsupported(f"xsd:decimal {what} beyond Spark's exact range")).otherwise(
        cast
    )


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
    part = F.when(part >= 0, F.floor(part, 18)).otherwise(F.ceil(part, 18)).cast("decimal(19,18)")
    return (
        F.when(a.isNull() | b.isNull() | (b == 0), F.lit(None).cast(DEC))
        .when(~small, unsupported("xsd:decimal division beyond Spark's exact range"))
        .otherwise((whole + part).cast(DEC))
    )


_dec_div = decimal_divide
