"""Compile the per-window SPARQL algebra into one Spark DataFrame plan.

The plan computes every window of every t0 class at once (DESIGN §4). A
basic graph pattern inside ``GRAPH <w>`` is evaluated once over the stream:
each solution carries the time span ``[t_min, t_max]`` of the triples it
used, a join keeps only spans no wider than the window, and the span is then
assigned to the evaluations whose window contains it (interval arithmetic
from :mod:`pytest_rspbench.windows`, no copy of the data per t0). Because a
window's content is a *set* of triples, solutions that several occurrences
of the same triples produce count once per window. Operators above the BGPs
then work per ``(cls, win)`` key with SPARQL 1.1 semantics (§18.5):

- Join, OPTIONAL (LeftJoin with its filter) and MINUS use *compatibility*: a
  variable unbound on one side joins with anything (null-tolerant join
  conditions; a shared variable takes the bound value);
- MINUS removes nothing when the two sides share no variable;
- UNION, FILTER (incl. ``[NOT] EXISTS`` over plain patterns), BIND, VALUES,
  sub-SELECTs, GRAPH <window>, and patterns over static data (no key);
- solution modifiers and aggregates (see :mod:`.modifiers`, :mod:`.aggregates`).

Anything else raises UnsupportedQueryError and the oracle evaluates the query
per window with pyoxigraph instead. Values that only turn out at run time to
be outside what the plan computes exactly make the Spark job fail with
:data:`~pytest_rspbench.oracle.literals.MARK`; run the plan through
:func:`collect` to turn that into UnsupportedQueryError.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.expressions import Env, Scope, compile_filter, compile_term, ntriples
from pytest_rspbench.oracle.literals import MARK
from pytest_rspbench.windows import WindowSpec

KEYS = ("cls", "win")


@dataclass(frozen=True)
class Relation:
    """A DataFrame of solutions.

    Variable ``x`` lives in column ``v_x`` (NULL when unbound); ``windowed``
    relations also carry the key columns ``cls`` and ``win``; ``nullable``
    lists the variables that may be unbound; ``ordered`` relations carry an
    ``_ord`` column with the solution's position within its window.
    """

    df: Any
    variables: tuple[str, ...]
    windowed: bool
    nullable: frozenset[str] = frozenset()
    ordered: bool = False

    def scope(self) -> Scope:
        from pyspark.sql import functions as F

        return {v: F.col("v_" + v) for v in self.variables}

    @property
    def keys(self) -> list[str]:
        return list(KEYS) if self.windowed else []

    def var_columns(self) -> list[str]:
        return ["v_" + v for v in self.variables]


@dataclass(frozen=True)
class Context:
    """What the compiler needs to know about the data and the windows.

    Attributes:
        stream_df: DataFrame (stream, s, p, o, t) of all stream triples.
        static_df: DataFrame (s, p, o) of static triples, or None.
        windows: window IRI -> (stream IRI, WindowSpec).
        assign: function(df with t_min/t_max columns, window IRI) -> the df
            with key columns ``cls`` (t0 class) and ``win`` (evaluation
            number within the class), one row per evaluation whose window
            holds the whole span.
        evaluations: DataFrame (cls, win) of *every* evaluation, including
            those whose windows are empty. Needed where SPARQL yields rows for
            an empty window (COUNT(*) = 0 without GROUP BY) or where static
            data must be repeated per window (static OPTIONAL windowed).
            Without it such queries are reported unsupported.
        default_window: treat the default graph as this window (used to run
            plain SPARQL tests on one window); None means the default graph
            holds the static data.
    """

    stream_df: Any
    static_df: Any
    windows: dict[str, tuple[str, WindowSpec]]
    assign: Callable[[Any, str], Any]
    evaluations: Any = None
    default_window: str | None = None


@dataclass
class Compiler:
    """One compilation: the context plus what the query needs overall."""

    ctx: Context
    sliced: bool = False
    counter: list[int] = field(default_factory=lambda: [0])

    def node(self, node: Any, graph: str | None) -> Relation:
        handler = _HANDLERS.get(node.name)
        if handler is None:
            handler = _extra_handler(node.name)
        if handler is None:
            raise UnsupportedQueryError(f"the query uses {node.name}")
        return handler(self, node, graph)

    def fresh(self, prefix: str) -> str:
        self.counter[0] += 1
        return f"{prefix}{self.counter[0]}"

    def unit(self) -> Relation:
        """The relation with one empty solution (an empty group pattern)."""
        spark = self.ctx.stream_df.sparkSession
        return Relation(spark.range(1).select(), (), False)

    def lift(self, rel: Relation) -> Relation:
        """Repeat a static relation for every evaluation (give it key columns)."""
        if rel.windowed:
            return rel
        if self.ctx.evaluations is None:
            raise UnsupportedQueryError(
                "the query combines static data with a window in a way that needs the "
                "list of all evaluations, which the oracle did not provide"
            )
        evaluations = self.ctx.evaluations.select(*KEYS)
        return replace(rel, df=evaluations.crossJoin(rel.df), windowed=True)


def compile_select(algebra: Any, ctx: Context) -> Relation:
    """Compile a SelectQuery's algebra into a windowed relation."""
    if algebra.name != "SelectQuery":
        raise UnsupportedQueryError(f"only SELECT queries are compiled, not {algebra.name}")
    if algebra.get("datasetClause"):
        raise UnsupportedQueryError("FROM / FROM NAMED in the per-window query")
    compiler = Compiler(ctx, sliced=_contains(algebra.p, "Slice"))
    relation = compiler.node(algebra.p, None)
    # A query over static data only has the same answer in every window.
    return compiler.lift(relation)


def translate(sparql: str, base: str | None = None) -> Any:
    """rdflib's algebra of a SPARQL query, with literals kept as written.

    rdflib normalises literals by default ("01"^^xsd:integer becomes "1"),
    which would change which data terms a pattern matches.
    """
    import rdflib
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    saved = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    try:
        return translateQuery(parseQuery(sparql), base=base).algebra
    finally:
        rdflib.NORMALIZE_LITERALS = saved


def collect(df: Any) -> list[Any]:
    """``df.collect()``, turning the plan's run-time "unsupported" into the exception."""
    try:
        return df.collect()  # type: ignore[no-any-return]
    except Exception as exc:
        text = str(exc)
        if MARK not in text:
            raise
        reason = text[text.index(MARK) + len(MARK):].split("\n")[0].strip().rstrip("'\".")
        raise UnsupportedQueryError(f"met a value the compiled plan cannot handle: {reason}") from None


def _contains(node: Any, name: str) -> bool:
    if getattr(node, "name", None) == name:
        return True
    for key in ("p", "p1", "p2"):
        child = node.get(key) if hasattr(node, "get") else None
        if child is not None and hasattr(child, "name") and _contains(child, name):
            return True
    return False


# -- basic graph patterns -------------------------------------------------------------


def _bgp(c: Compiler, node: Any, graph: str | None, condition: Any = None) -> Relation:
    from pyspark.sql import functions as F

    if not node.triples:
        return c.unit() if condition is None else _filtered(c.unit(), condition)
    window = graph if graph is not None else c.ctx.default_window
    if window is None:
        parts = [_pattern(c.ctx.static_df, t, timed=False) for t in node.triples]
        rel = _join_patterns(parts, span=None)
        rel = replace(rel, df=rel.df.dropDuplicates())
        return rel if condition is None else _filtered(rel, condition)
    stream, spec = c.ctx.windows[window]
    source = c.ctx.stream_df.where(F.col("stream") == stream)
    joined = _join_patterns([_pattern(source, t, timed=True) for t in node.triples], span=spec.width)
    if condition is not None:
        # A filter on the BGP alone is monotone: apply it before window assignment.
        joined = _filtered(joined, condition)
    windowed = c.ctx.assign(joined.df, window)
    # A window's content is a set: one solution per distinct mapping.
    deduped = windowed.dropDuplicates([*KEYS, *joined.var_columns()])
    return Relation(deduped.select(*KEYS, *joined.var_columns()), joined.variables, True)


def _filtered(rel: Relation, condition: Any) -> Relation:
    env = Env(rel.scope())
    keep = compile_filter(condition, env)
    return replace(rel, df=env.apply(rel.df).where(keep).drop(*env.names()))


def _pattern(source: Any, triple: Any, timed: bool) -> Relation:
    from pyspark.sql import functions as F
    from rdflib.term import BNode, Variable

    if source is None:
        raise UnsupportedQueryError("a pattern outside any WINDOW, but there is no static data")
    df = source
    selected: dict[str, str] = {}
    for position, term in zip(("s", "p", "o"), triple, strict=True):
        if isinstance(term, (Variable, BNode)):
            name = ("_bn_" if isinstance(term, BNode) else "") + str(term)
            if name in selected:
                df = df.where(F.col(position) == F.col(selected[name]))
            else:
                selected[name] = position
        else:
            df = df.where(F.col(position) == F.lit(ntriples(term)))
    cols = [F.col(pos).alias("v_" + name) for name, pos in selected.items()]
    if timed:
        cols += [F.col("t").alias("t_min"), F.col("t").alias("t_max")]
    return Relation(df.select(*cols), tuple(selected), False)


def _join_patterns(parts: list[Relation], span: int | None) -> Relation:
    from pyspark.sql import functions as F

    result = parts[0]
    for part in parts[1:]:
        shared = [v for v in result.variables if v in part.variables]
        right = part.df
        if span is not None:
            right = right.withColumnRenamed("t_min", "r_min").withColumnRenamed("t_max", "r_max")
        on = ["v_" + v for v in shared]
        df = result.df.join(right, on, "inner") if shared else result.df.crossJoin(right)
        if span is not None:
            df = (
                df.withColumn("t_min", F.least("t_min", "r_min"))
                .withColumn("t_max", F.greatest("t_max", "r_max"))
                .drop("r_min", "r_max")
                .where(F.col("t_max") - F.col("t_min") <= span)
            )
        variables = result.variables + tuple(v for v in part.variables if v not in shared)
        result = Relation(df, variables, False)
    return result


def _graph(c: Compiler, node: Any, graph: str | None) -> Relation:
    from rdflib.term import URIRef

    if not isinstance(node.term, URIRef) or str(node.term) not in c.ctx.windows:
        raise UnsupportedQueryError(f"GRAPH {node.term} is not a declared window")
    return c.node(node.p, str(node.term))


# -- combining relations ----------------------------------------------------------------


def _join(c: Compiler, node: Any, graph: str | None) -> Relation:
    # rdflib writes a group with one sub-pattern as Join(empty BGP, pattern).
    if _is_empty_bgp(node.p1):
        return c.node(node.p2, graph)
    if _is_empty_bgp(node.p2):
        return c.node(node.p1, graph)
    return join(c.node(node.p1, graph), c.node(node.p2, graph), "inner")


def _is_empty_bgp(node: Any) -> bool:
    return node.name == "BGP" and not node.triples


def join(left: Relation, right: Relation, how: str, condition: Any = None) -> Relation:
    """SPARQL Join / LeftJoin / (anti-)semi-join of two relations (keys aligned).

    ``condition`` is an extra filter over the merged solution (OPTIONAL's
    FILTER). A shared variable is compatible when equal or unbound on either
    side, and takes the bound value.
    """
    from pyspark.sql import functions as F

    shared = [v for v in left.variables if v in right.variables]
    keys = list(KEYS) if left.windowed and right.windowed else []
    rdf = right.df.select(*right.keys, *right.var_columns())
    for name in [*keys, *("v_" + v for v in shared)]:
        rdf = rdf.withColumnRenamed(name, "r_" + name)
    conds = [F.col(k) == F.col("r_" + k) for k in keys]
    merged: Scope = {}
    for v in shared:
        lcol, rcol = F.col("v_" + v), F.col("r_v_" + v)
        if v in left.nullable or v in right.nullable:
            conds.append((lcol == rcol) | lcol.isNull() | rcol.isNull())
        else:
            conds.append(lcol == rcol)
        merged[v] = F.coalesce(lcol, rcol)
    if how in ("left_anti_minus",):
        anyshared = reduce(lambda a, b: a | b, [
            F.col("v_" + v).isNotNull() & F.col("r_v_" + v).isNotNull() for v in shared
        ])
        conds.append(anyshared)
        how = "left_anti"
    if condition is not None:
        scope = {**left.scope(), **{v: F.col("v_" + v) for v in right.variables}, **merged}
        conds.append(compile_filter(condition, Env(scope, inline=True)))
    on = reduce(lambda a, b: a & b, conds) if conds else F.lit(True)
    ldf = left.df.select(*left.keys, *left.var_columns())
    df = ldf.join(rdf, on, how) if (conds or how != "inner") else ldf.crossJoin(rdf)
    if how in ("left_semi", "left_anti"):
        return replace(left, df=df, ordered=False)
    out_keys = keys or left.keys or right.keys
    variables = left.variables + tuple(v for v in right.variables if v not in shared)
    cols = [F.col(k) for k in out_keys]
    cols += [merged[v].alias("v_" + v) if v in merged else F.col("v_" + v) for v in variables]
    if how == "inner":
        nullable = (left.nullable | right.nullable) - {
            v for v in shared if v not in left.nullable or v not in right.nullable
        }
    else:  # left outer: everything from the right may be missing
        nullable = left.nullable | (frozenset(right.variables) - (frozenset(shared) - left.nullable))
    return Relation(df.select(*cols), variables, bool(out_keys), frozenset(nullable))


def _align(c: Compiler, left: Relation, right: Relation) -> tuple[Relation, Relation]:
    """Give the left side keys when only the right side is windowed."""
    if right.windowed and not left.windowed:
        left = c.lift(left)
    return left, right


def _left_join(c: Compiler, node: Any, graph: str | None) -> Relation:
    left, right = _align(c, c.node(node.p1, graph), c.node(node.p2, graph))
    condition = None if getattr(node.expr, "name", None) == "TrueFilter" else node.expr
    return join(left, right, "left", condition)


def _minus(c: Compiler, node: Any, graph: str | None) -> Relation:
    left = c.node(node.p1, graph)
    right = c.node(node.p2, graph)
    if not set(left.variables) & set(right.variables):
        return left  # SPARQL 1.1 §18.5: Minus removes nothing without shared variables.
    left, right = _align(c, left, right)
    return join(left, right, "left_anti_minus")


def _union(c: Compiler, node: Any, graph: str | None) -> Relation:
    left, right = c.node(node.p1, graph), c.node(node.p2, graph)
    if left.windowed != right.windowed:
        left, right = c.lift(left), c.lift(right)
    return union(left, right)


def union(left: Relation, right: Relation) -> Relation:
    from pyspark.sql import functions as F

    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)

    def widen(rel: Relation) -> Any:
        cols = [F.col(k) for k in rel.keys]
        cols += [
            F.col("v_" + v) if v in rel.variables else F.lit(None).cast("string").alias("v_" + v)
            for v in variables
        ]
        return rel.df.select(*cols)

    nullable = left.nullable | right.nullable
    nullable |= frozenset(v for v in variables if v not in left.variables or v not in right.variables)
    df = widen(left).unionByName(widen(right))
    return Relation(df, variables, left.windowed, frozenset(nullable))


# -- filters, BIND, VALUES ---------------------------------------------------------------


def _filter(c: Compiler, node: Any, graph: str | None) -> Relation:
    conjuncts = _conjuncts(node.expr)
    exists = [e for e in conjuncts if getattr(e, "name", None) in ("Builtin_EXISTS", "Builtin_NOTEXISTS")]
    plain = [e for e in conjuncts if e not in exists]
    condition = _and(plain)
    inner = node.p
    if not exists and inner.name == "BGP":
        return _bgp(c, inner, graph, condition)
    rel = c.node(inner, graph)
    if condition is not None:
        rel = _filtered(rel, condition)
    for e in exists:
        rel = _exists(c, rel, e, graph)
    return rel


def _conjuncts(expr: Any) -> list[Any]:
    if getattr(expr, "name", None) == "ConditionalAndExpression":
        out = _conjuncts(expr.expr)
        for other in expr.other:
            out += _conjuncts(other)
        return out
    return [expr]


def _and(exprs: list[Any]) -> Any:
    from rdflib.plugins.sparql.parserutils import Expr

    if not exprs:
        return None
    if len(exprs) == 1:
        return exprs[0]
    return Expr("ConditionalAndExpression", None, expr=exprs[0], other=list(exprs[1:]))


_EXISTS_NODES = {"BGP", "Join", "Union", "Graph"}


def _exists(c: Compiler, rel: Relation, expr: Any, graph: str | None) -> Relation:
    """FILTER [NOT] EXISTS {P} as a (anti-)semi-join on compatible solutions.

    Equal to SPARQL's substitution semantics when P is made of triple patterns
    only (no FILTER/BIND inside P that could see the outer solution).
    """
    from rdflib.plugins.sparql.algebra import translateGroupGraphPattern

    pattern = expr.graph
    if pattern.name == "GroupGraphPatternSub":
        pattern = translateGroupGraphPattern(pattern)
    if not _only(pattern, _EXISTS_NODES):
        raise UnsupportedQueryError("[NOT] EXISTS over more than triple patterns")
    inner = c.node(pattern, graph)
    rel, inner = _align(c, rel, inner)
    how = "left_semi" if expr.name == "Builtin_EXISTS" else "left_anti"
    return join(rel, inner, how)


def _only(node: Any, names: set[str]) -> bool:
    if node.name not in names:
        return False
    return all(_only(node[k], names) for k in ("p", "p1", "p2") if k in node)


def _extend(c: Compiler, node: Any, graph: str | None) -> Relation:
    inner = c.node(node.p, graph)
    if node.var is None:
        raise UnsupportedQueryError("GROUP BY an expression without AS")
    var = str(node.var)
    if var in inner.variables:
        raise UnsupportedQueryError(f"BIND to ?{var}, which is already in scope")
    env = Env(inner.scope())
    value = compile_term(node.expr, env)
    df = env.apply(inner.df).withColumn("v_" + var, value).drop(*env.names())
    return replace(inner, df=df, variables=(*inner.variables, var), nullable=inner.nullable | {var})


def _values(c: Compiler, node: Any, graph: str | None) -> Relation:
    rows = node.res
    variables: list[str] = []
    for row in rows:
        variables += [str(v) for v in row if str(v) not in variables]
    data = [tuple(ntriples(row[v]) if v in row else None for v in map(_var, variables)) for row in rows]
    spark = c.ctx.stream_df.sparkSession
    schema = ", ".join(f"`v_{v}` string" for v in variables)
    if not variables:
        return c.unit() if rows else replace(c.unit(), df=c.unit().df.limit(0))
    df = spark.createDataFrame(data, schema)
    nullable = frozenset(v for v in variables if any(_var(v) not in row for row in rows))
    return Relation(df, tuple(variables), False, nullable)


def _var(name: str) -> Any:
    from rdflib.term import Variable

    return Variable(name)


def _to_multiset(c: Compiler, node: Any, graph: str | None) -> Relation:
    inner = c.node(node.p, graph)
    if inner.ordered:
        inner = replace(inner, df=inner.df.drop("_ord"), ordered=False)
    return inner


def _extra_handler(name: str) -> Any:
    from pytest_rspbench.oracle.aggregates import HANDLERS as AGGREGATES
    from pytest_rspbench.oracle.modifiers import HANDLERS as MODIFIERS

    return {**AGGREGATES, **MODIFIERS}.get(name)


_HANDLERS: dict[str, Callable[[Compiler, Any, str | None], Relation]] = {
    "BGP": _bgp,
    "Graph": _graph,
    "Join": _join,
    "LeftJoin": _left_join,
    "Minus": _minus,
    "Union": _union,
    "Filter": _filter,
    "Extend": _extend,
    "values": _values,
    "ToMultiSet": _to_multiset,
}
