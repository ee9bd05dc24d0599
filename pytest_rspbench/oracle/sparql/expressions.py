"""SPARQL expressions compiled to Spark column expressions.

Terms are N-Triples strings in string columns (see terms.py). SPARQL's
expression semantics (SPARQL 1.1 §17) map onto Spark's three-valued logic:
an expression *error* is SQL NULL, FILTER keeps a row only when its condition
is true, and ``||``/``&&``/``!`` follow the same truth tables as SPARQL
(error || true = true, error && false = false). Comparisons, effective
boolean values and numeric promotion follow the per-window reference
evaluator (pyoxigraph) so both oracle paths agree:

- ``=`` compares numbers, booleans and simple strings by value, IRIs, blank
  nodes and language-tagged strings as terms, and is an error between two
  different literals of a datatype it does not know;
- ``<`` and friends order numbers, simple strings, and language-tagged
  strings with the same tag; anything else is an error;
- the effective boolean value is defined for booleans, numbers and simple
  strings only (SPARQL 1.1 §17.2.2).

What cannot be compiled raises :class:`UnsupportedQueryError` at compile time;
values met at run time that the plan cannot handle exactly (xsd:date
comparisons, huge decimals) raise the marked Spark error of
:func:`pytest_rspbench.oracle.sparql.literals.unsupported`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.sparql import literals as L
from pytest_rspbench.oracle.sparql import numerics as N
from pytest_rspbench.oracle.sparql.datatypes import numeric_ranks

Scope = dict[str, Any]
"""Variable name -> the Spark Column holding its term (NULL when unbound)."""


class Env:
    """Where an expression is compiled: the variables in scope and helper columns.

    Intermediate values (numbers, term classes, the result of every function
    or operator) are *materialised* as helper columns (``lets``) that the
    caller adds with :meth:`apply` before using the compiled expression, and
    drops after. Each operand is then computed once and read by name, so the
    plan grows linearly with the expression; repeating the operands' plans at
    every use would multiply it at each level of nesting (``LCASE(STR(?t))``
    reads its operand about ten times) and outgrow Spark's analyser and code
    generator. ``inline`` environments (where no column can be added) keep
    everything in one expression, so they suit small expressions only: an
    OPTIONAL's FILTER, for one, is applied to the joined solutions with
    helper columns (:mod:`.joins`), not as a join condition.
    """

    _counter = itertools.count(1)  # next() is atomic: threads never share a name

    def __init__(
        self,
        scope: Scope,
        inline: bool = False,
        ranks: Mapping[str, frozenset[int]] | None = None,
        numbers: Mapping[str, N.Num] | None = None,
        typed: frozenset[str] = frozenset(),
    ) -> None:
        self.scope = scope
        self.inline = inline
        self.ranks = ranks or {}
        # Variables whose numeric value was parsed where they were bound
        # (Relation.numbers, parsed in patterns._pattern): used as is,
        # never parsed again here.
        self.numbers = numbers or {}
        # Variables bound only to literals of numeric datatypes (Relation.typed).
        self.typed = typed
        self.lets: list[tuple[str, Any]] = []

    def let(self, column: Any) -> Any:
        """``column`` as a helper column, read by name (inline: itself)."""
        from pyspark.sql import functions as F

        if self.inline:
            return column
        name = f"_x{next(Env._counter)}"
        self.lets.append((name, column))
        return F.col(name)

    def num(self, number: N.Num) -> N.Num:
        if self.inline:
            return number
        return N.unpacked(self.let(N.packed(number)), number.ranks)

    def apply(self, df: Any) -> Any:
        """``df`` with the helper columns added.

        One projection: later helpers refer to earlier ones by name (Spark
        resolves such lateral column aliases into a chain of projections).
        """
        from pyspark.sql import functions as F

        if not self.lets:
            return df
        helpers = [column.alias(name) for name, column in self.lets]
        # A nondeterministic column makes this projection an optimiser
        # barrier: otherwise Spark pushes a filter on the helpers below it,
        # substituting every helper's definition at each use, and a nested
        # expression grows exponentially (``?a + ?b = 3`` planned to 500 KB
        # of generated code and took a minute to compile).
        barrier = F.rand(0).alias(self._barrier_name())
        return df.select("*", *helpers, barrier)

    def _barrier_name(self) -> str:
        return f"_barrier{id(self)}"

    def guarded(self, column: Any, boolean: bool = False) -> Any:
        """``column``, made to depend on the barrier added by :meth:`apply`.

        A barrier nothing reads is pruned before predicates are pushed down,
        so the consumer of the helpers (a FILTER, a BIND) must read it.
        """
        from pyspark.sql import functions as F

        if self.inline or not self.lets:
            return column
        holds = F.col(self._barrier_name()) >= 0  # rand() is in [0, 1)
        return (column & holds) if boolean else F.when(holds, column)

    def names(self) -> list[str]:
        if not self.lets:
            return []
        return [name for name, _ in self.lets] + [self._barrier_name()]


class Expr:
    """A compiled expression: its term column plus typed views computed lazily.

    Operators that know their result type (comparisons, arithmetic) keep the
    typed value, so ``?a + ?b > 3`` never prints and re-parses the sum.
    """

    def __init__(
        self,
        env: Env,
        term: Any = None,
        *,
        boolean: Any = None,
        number: N.Num | None = None,
        ranks: frozenset[int] = N.ALL,
        numeric: bool = False,
        typed: bool = False,
    ) -> None:
        self.env = env
        self._term = term
        self.boolean = boolean
        self._number = number
        self._cls: Any = None
        # The numeric types the term can have (see numerics): known for
        # numbers, booleans (none), variables with a known source, constants.
        if number is not None:
            ranks = number.ranks
        elif boolean is not None:
            ranks = frozenset()
        self.ranks = ranks
        # Known to be a number wherever it is not an error (a computed number,
        # a numeric constant): comparisons then need no other term class.
        self.numeric = numeric or (number is not None and term is None)
        # A literal of a numeric datatype wherever it is bound, but perhaps
        # ill-typed ("x"^^xsd:float): a number or an error against a number.
        self.typed = typed or self.numeric

    @property
    def term(self) -> Any:
        if self._term is None:
            if self.boolean is not None:
                self._term = L.boolean_term(self.boolean)
            else:
                self._term = self.env.let(N.to_term(self.number, self.env.let))
        return self._term

    @property
    def number(self) -> N.Num:
        if self._number is None:
            self._number = self.env.num(N.parse(self.term, self.env.let, self.ranks))
        return self._number

    @property
    def cls(self) -> Any:
        """Term class code (literals.IRI, ..., literals.OTHER); NULL for an error."""
        from pyspark.sql import functions as F

        if self._cls is None:
            if self.boolean is not None:
                self._cls = F.when(self.boolean.isNotNull(), L.BOOLEAN)
            elif self._number is not None and self._term is None:
                self._cls = F.when(self._number.rank.isNotNull(), L.NUMERIC)
            else:
                self._cls = self.env.let(_term_class(self.term, self.number))
        return self._cls

    def ebv(self) -> Any:
        """Effective boolean value (SPARQL 1.1 §17.2.2); NULL for an error."""
        from pyspark.sql import functions as F

        if self.boolean is not None:
            return self.boolean
        if self._number is not None and self._term is None:
            return N.is_true(self._number)
        cls = self.cls
        return (
            F.when(cls == L.BOOLEAN, L.boolean_value(self.term))
            .when(cls == L.STRING, F.length(L.string_lexical(self.term)) > 0)
            .when(cls == L.NUMERIC, N.is_true(self.number))
        )


def _term_class(term: Any, number: N.Num) -> Any:
    from pyspark.sql import functions as F

    kind = L.xsd_type(term)
    return (
        F.when(term.isNull(), F.lit(None))
        .when(L.is_iri(term), L.IRI)
        .when(L.is_blank(term), L.BNODE)
        .when(~L.is_literal(term), L.UNKNOWN)
        .when(term.endswith('"'), L.STRING)
        .when(term.rlike(r'"@[a-zA-Z0-9-]+$'), L.LANG)
        .when(kind == "string", L.STRING)
        .when(
            kind == "boolean",
            F.when(L.boolean_value(term).isNotNull(), L.BOOLEAN).otherwise(L.OTHER),
        )
        .when(number.rank.isNotNull(), L.NUMERIC)
        .when(kind == "dateTime", L.DATETIME)
        .when(kind.isin(*L.VALUED_UNMODELLED), L.UNKNOWN)
        .otherwise(L.OTHER)
    )


# Functions whose value depends on more than the solution's values.
_UNSAFE = frozenset(
    {
        "Builtin_EXISTS",
        "Builtin_NOTEXISTS",
        "Builtin_NOW",
        "Builtin_RAND",
        "Builtin_UUID",
        "Builtin_STRUUID",
        "Builtin_BNODE",
    }
)


def variables_read(expr: Any) -> frozenset[str] | None:
    """The variables ``expr`` reads; None when its value can depend on more
    (EXISTS, NOW, RAND, ...).

    rdflib keeps the variables in scope under ``_vars``; they are not read.
    """
    from rdflib.term import Variable

    found: set[str] = set()
    stack = [expr]
    while stack:
        item = stack.pop()
        if isinstance(item, Variable):
            found.add(str(item))
        elif isinstance(item, Mapping):
            if getattr(item, "name", None) in _UNSAFE:
                return None
            stack.extend(v for k, v in item.items() if k != "_vars")
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return frozenset(found)


def compile_filter(expr: Any, env: Env) -> Any:
    """A boolean Column for a FILTER condition (NULL = error, which drops the row)."""
    return compile_expr(expr, env).ebv()


def compile_term(expr: Any, env: Env) -> Any:
    """A string Column with the expression's value as a term (NULL = error)."""
    return compile_expr(expr, env).term


def compile_expr(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F
    from rdflib.term import Literal, URIRef, Variable

    if isinstance(expr, Variable):
        column = env.scope.get(str(expr))
        if column is None:
            return Expr(env, F.lit(None).cast("string"), ranks=frozenset())
        typed = str(expr) in env.typed
        number = env.numbers.get(str(expr))
        if number is not None:
            return Expr(env, column, number=number, typed=typed)
        return Expr(env, column, ranks=env.ranks.get(str(expr), N.ALL), typed=typed)
    if isinstance(expr, URIRef):
        return Expr(env, F.lit(ntriples(expr)), ranks=frozenset())
    if isinstance(expr, Literal):
        datatype = () if expr.datatype is None else (str(expr.datatype),)
        ranks = numeric_ranks(datatype)
        return Expr(
            env,
            F.lit(ntriples(expr)),
            ranks=ranks,
            numeric=bool(ranks) and N.valid_constant(str(expr), next(iter(ranks))),
        )
    name = getattr(expr, "name", None)
    handler = _handler(name) if isinstance(name, str) else None
    if handler is None:
        raise UnsupportedQueryError(f"the expression uses {name or type(expr).__name__}")
    result = handler(expr, env)
    return result if name == "TrueFilter" else _shared(result)


def _shared(e: Expr) -> Expr:
    """``e`` with its value computed once (:meth:`Env.let`): its consumer
    reads it however many times it needs it (see :class:`Env`). Numbers are
    materialised where they are computed (:meth:`Env.num`)."""
    env = e.env
    if e._term is not None:
        return Expr(
            env,
            env.let(e._term),
            number=e._number,
            ranks=e.ranks,
            numeric=e.numeric,
            typed=e.typed,
        )
    if e.boolean is not None:
        return Expr(env, boolean=env.let(e.boolean))
    return e


def ntriples(term: Any) -> str:
    """The canonical N-Triples form of an rdflib term, as pyoxigraph prints it."""
    import pyoxigraph
    from rdflib.term import BNode, Literal, URIRef

    if isinstance(term, URIRef):
        return str(pyoxigraph.NamedNode(str(term)))
    if isinstance(term, BNode):
        raise UnsupportedQueryError("a blank node used as a constant")
    assert isinstance(term, Literal)
    if term.language:
        return str(pyoxigraph.Literal(str(term), language=term.language.lower()))
    if term.datatype is not None:
        return str(pyoxigraph.Literal(str(term), datatype=pyoxigraph.NamedNode(str(term.datatype))))
    return str(pyoxigraph.Literal(str(term)))


def _relational(expr: Any, env: Env) -> Expr:
    left = compile_expr(expr.expr, env)
    op = expr.op
    if op in ("IN", "NOT IN"):
        return _in(left, [compile_expr(e, env) for e in expr.other], op == "NOT IN")
    right = compile_expr(expr.other, env)
    if (left.numeric and right.typed) or (left.typed and right.numeric):
        # A number against a number or an error: no other kind of term can
        # occur, so the comparison needs no test of the terms' kinds. (Two
        # typed variables can hold the same ill-typed term, which = finds
        # equal: they take the general path.)
        return Expr(env, boolean=env.let(N.compare(op, left.number, right.number)))
    if op in ("=", "!="):
        same = env.let(equal(left, right))
        return Expr(env, boolean=same if op == "=" else ~same)
    return Expr(env, boolean=env.let(order(op, left, right)))


def equal(a: Expr, b: Expr) -> Any:
    """SPARQL ``=`` (RDFterm-equal plus value equality of known datatypes)."""
    from pyspark.sql import functions as F

    ca, cb = a.cls, b.cls
    term_like = (L.IRI, L.BNODE, L.LANG)
    return (
        F.when(ca.isNull() | cb.isNull(), F.lit(None).cast("boolean"))
        .when((ca == L.NUMERIC) & (cb == L.NUMERIC), N.compare("=", a.number, b.number))
        .when(a.term == b.term, True)
        .when(
            _unmodelled(ca, cb),
            L.unsupported("comparing xsd:date/time/duration values"),
        )
        .when((ca == L.OTHER) & (cb == L.OTHER), F.lit(None).cast("boolean"))
        .when(ca == L.OTHER, F.when(cb.isin(*term_like), False))
        .when(cb == L.OTHER, F.when(ca.isin(*term_like), False))
        .when(ca != cb, False)
        .when(ca == L.STRING, L.string_lexical(a.term) == L.string_lexical(b.term))
        .when(ca == L.BOOLEAN, L.boolean_value(a.term) == L.boolean_value(b.term))
        .otherwise(False)
    )


def order(op: str, a: Expr, b: Expr) -> Any:
    """SPARQL ``<``, ``<=``, ``>``, ``>=``; NULL (error) between incomparable terms."""
    from pyspark.sql import functions as F

    ca, cb = a.cls, b.cls
    cmp = N._COMPARE[op]
    equal_result = op in ("<=", ">=")
    lang_a, lang_b = L.language(a.term), L.language(b.term)
    strings = ca.isin(L.STRING, L.LANG) & cb.isin(L.STRING, L.LANG)
    text_a = a.env.let(F.when(strings, L.unescape(L.lexical(a.term))))
    text_b = a.env.let(F.when(strings, L.unescape(L.lexical(b.term))))
    same_bool = (
        (ca == L.BOOLEAN) & (cb == L.BOOLEAN) & (L.boolean_value(a.term) == L.boolean_value(b.term))
    )
    return (
        F.when(ca.isNull() | cb.isNull(), F.lit(None).cast("boolean"))
        .when((ca == L.NUMERIC) & (cb == L.NUMERIC), N.compare(op, a.number, b.number))
        .when((a.term == b.term) | same_bool, equal_result)
        .when(
            _unmodelled(ca, cb),
            L.unsupported("comparing xsd:date/time/duration values"),
        )
        .when((ca == L.STRING) & (cb == L.STRING), cmp(text_a, text_b))
        .when((ca == L.LANG) & (cb == L.LANG) & (lang_a == lang_b), cmp(text_a, text_b))
    )


def _unmodelled(ca: Any, cb: Any) -> Any:
    return (ca == L.UNKNOWN) | (cb == L.UNKNOWN) | ((ca == L.DATETIME) & (cb == L.DATETIME))


def _in(left: Expr, options: list[Expr], negate: bool) -> Expr:
    from pyspark.sql import functions as F

    result = F.lit(False)
    for option in options:
        # SPARQL's || truth table is SQL's OR: true wins over an error.
        result = result | left.env.let(equal(left, option))
    return Expr(left.env, boolean=~result if negate else result)


def _logical(kind: str) -> Callable[[Any, Env], Expr]:
    def handler(expr: Any, env: Env) -> Expr:
        result = compile_expr(expr.expr, env).ebv()
        for other in expr.other:
            nxt = compile_expr(other, env).ebv()
            result = (result & nxt) if kind == "and" else (result | nxt)
        return Expr(env, boolean=result)

    return handler


def _not(expr: Any, env: Env) -> Expr:
    return Expr(env, boolean=~compile_expr(expr.expr, env).ebv())


def _arithmetic(expr: Any, env: Env) -> Expr:
    value = compile_expr(expr.expr, env).number
    for op, other in zip(expr.op, expr.other, strict=True):
        value = env.num(N.arithmetic(op, value, compile_expr(other, env).number, env.let))
    return Expr(env, number=value)


def _minus(expr: Any, env: Env) -> Expr:
    return Expr(env, number=env.num(N.negate(compile_expr(expr.expr, env).number)))


def _plus(expr: Any, env: Env) -> Expr:
    number = compile_expr(expr.expr, env).number
    return Expr(
        env,
        number=env.num(N.build(number.rank, number.i, number.d, number.f, number.x, number.ranks)),
    )


def _true(expr: Any, env: Env) -> Expr:
    from pyspark.sql import functions as F

    return Expr(env, boolean=F.lit(True))


HANDLERS: dict[str, Callable[[Any, Env], Expr]] = {
    "RelationalExpression": _relational,
    "ConditionalAndExpression": _logical("and"),
    "ConditionalOrExpression": _logical("or"),
    "UnaryNot": _not,
    "UnaryMinus": _minus,
    "UnaryPlus": _plus,
    "AdditiveExpression": _arithmetic,
    "MultiplicativeExpression": _arithmetic,
    "TrueFilter": _true,
}


def _handler(name: str) -> Callable[[Any, Env], Expr] | None:
    from pytest_rspbench.oracle.sparql.functions import FUNCTIONS

    return HANDLERS.get(name) or FUNCTIONS.get(name)
