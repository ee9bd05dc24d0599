"""GROUP BY and aggregates per window (SPARQL 1.1 §11, §18.5).

Groups are formed per ``(cls, win)`` key. Without GROUP BY there is exactly
one group per evaluation even when the window has no solution, so COUNT is 0,
SUM and AVG are ``"0"^^xsd:integer`` (§18.5.1.3: Avg of nothing is 0),
GROUP_CONCAT is ``""`` and MIN, MAX and SAMPLE are unbound; that needs the
context's list of all evaluations. With GROUP BY an empty window has no group.

Errors follow the per-window reference evaluator: an error (or unbound value)
in any row makes SUM, AVG, MIN, MAX and GROUP_CONCAT unbound for the group;
COUNT(?var) counts the bound values while COUNT(expression) is unbound if the
expression fails on a row; SAMPLE skips errors. DISTINCT compares terms.

Exactness: COUNT, integer and decimal SUM/AVG, MIN, MAX are exact. float and
double SUM/AVG add in whatever order Spark meets the rows, so the last bit can
differ from an evaluator that adds in another order (IEEE addition is not
associative), and float sums are accumulated in double precision.
GROUP_CONCAT's order is unspecified in SPARQL; it is sorted here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.sparql import literals as L
from pytest_rspbench.oracle.sparql import numerics as N
from pytest_rspbench.oracle.sparql.compiler import KEYS, Compiler, Relation
from pytest_rspbench.oracle.sparql.expressions import Env, compile_expr, compile_term
from pytest_rspbench.oracle.sparql.ordering import key_struct
from pytest_rspbench.rsp.terms import XSD


@dataclass
class _Agg:
    """One aggregate of the query: its value column and state columns."""

    index: int
    kind: str  # Count, Sum, Avg, Min, Max, Sample, GroupConcat
    distinct: bool
    star: bool
    variable: bool
    separator: str
    res: str
    ranks: frozenset[int] = N.ALL  # of the aggregated values (see numerics)
    key: str | None = None  # SAMPLE of a GROUP BY variable: that key's column

    def col(self, name: str) -> str:
        return f"s{self.index}_{name}"

    @property
    def value(self) -> str:
        return f"a{self.index}"


def _aggregate_join(c: Compiler, node: Any, graph: str | None) -> Relation:
    from pyspark.sql import functions as F
    from rdflib.term import Variable

    group = node.p
    if group.name != "Group":
        raise UnsupportedQueryError(f"aggregates over {group.name}")
    inner = c.node(group.p, graph)
    env = inner.env()
    by = list(inner.keys)
    computed = []
    keyed: dict[Any, str] = {}  # a GROUP BY variable: its key column
    for k, expr in enumerate(group.expr or []):
        if expr is None:
            raise UnsupportedQueryError("GROUP BY an expression without AS")
        computed.append((f"g{k}", compile_term(expr, env)))
        by.append(f"g{k}")
        if isinstance(expr, Variable):
            keyed.setdefault(expr, f"g{k}")
    aggs = [_describe(i, a) for i, a in enumerate(node.A)]
    for agg, raw in zip(aggs, node.A, strict=True):
        if agg.star:
            continue
        expr = compile_expr(raw.vars, env)
        agg.ranks = expr.ranks
        if agg.kind == "Sample" and agg.variable and raw.vars in keyed:
            # The variable is the group's key, so every row holds the same
            # term (or none): the key is the sample, with no string state,
            # which would make Spark sort the rows to aggregate them.
            agg.key = keyed[raw.vars]
        else:
            computed.append((agg.value, expr.term))
    df = env.apply(inner.df)
    for name, column in computed:
        df = df.withColumn(name, column)
    df = df.drop(*env.names())
    keys_env = Env({})
    for agg in aggs:
        if agg.distinct and agg.kind in ("Sum", "Avg"):
            df = _mark_first(df, by, agg)
        if agg.kind in ("Min", "Max"):
            keys_env.lets.append((agg.col("key"), key_struct(F.col(agg.value), keys_env.let)))
        if agg.kind in ("Sum", "Avg"):
            num = N.parse(F.col(agg.value), keys_env.let, agg.ranks)
            keys_env.lets.append(
                (
                    agg.col("num"),
                    F.struct(
                        num.rank.alias("r"),
                        num.i.alias("i"),
                        num.as_decimal().alias("d"),
                        num.as_float().cast("double").alias("f"),
                        num.as_double().alias("x"),
                    ),
                )
            )
    df = keys_env.apply(df)
    states = [F.count(F.lit(1)).alias("_rows")]
    for agg in aggs:
        if agg.key is None:
            states += _states(agg, inner)
    grouped = df.groupBy(*by).agg(*states) if by else df.agg(*states)
    if group.expr is None and inner.windowed:
        if c.ctx.evaluations is None:
            raise UnsupportedQueryError(
                "an aggregate without GROUP BY needs the list of evaluations"
            )
        grouped = c.ctx.evaluations.select(*KEYS).join(grouped, list(KEYS), "left")
    final_env = Env({})
    finals = [(agg.res, _final(agg, final_env)) for agg in aggs]
    grouped = final_env.apply(grouped)
    out = [F.col(k) for k in inner.keys]
    out += [column.alias("v_" + res) for res, column in finals]
    variables = tuple(agg.res for agg in aggs)
    return Relation(
        grouped.select(*out),
        variables,
        inner.windowed,
        frozenset(variables),
        ranks={agg.res: _result_ranks(agg) for agg in aggs},
    )


def _result_ranks(agg: _Agg) -> frozenset[int]:
    """The numeric types an aggregate's result can have."""
    if agg.kind == "Count":
        return frozenset((N.INTEGER,))
    if agg.kind in ("Min", "Max", "Sample"):
        return agg.ranks
    if agg.kind == "GroupConcat":
        return frozenset()
    # SUM and AVG of nothing are "0"^^xsd:integer.
    return _total_ranks(agg) | {N.INTEGER}


def _total_ranks(agg: _Agg) -> frozenset[int]:
    """The types of a SUM or AVG of values of ``agg.ranks`` (AVG: a division)."""
    if agg.kind == "Avg":
        exact = agg.ranks & {N.INTEGER, N.DECIMAL}
        return (agg.ranks - exact) | ({N.DECIMAL} if exact else set())
    return agg.ranks


def _describe(index: int, agg: Any) -> _Agg:
    from rdflib.term import Variable

    kind = agg.name.removeprefix("Aggregate_")
    if kind not in ("Count", "Sum", "Avg", "Min", "Max", "Sample", "GroupConcat"):
        raise UnsupportedQueryError(f"the aggregate {kind}")
    star = agg.vars == "*"
    # rdflib's CompValue.get returns the key itself for a missing key.
    separator = str(agg["separator"]) if "separator" in agg else " "
    variable = isinstance(agg.vars, Variable)
    distinct = bool(agg["distinct"]) if "distinct" in agg else False
    return _Agg(index, kind, distinct, star, variable, separator, str(agg.res))


def _mark_first(df: Any, by: list[str], agg: _Agg) -> Any:
    """Flag the first row of each distinct value (SUM/AVG(DISTINCT ...))."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    window = Window.partitionBy(*by, agg.value).orderBy(F.lit(1))
    return df.withColumn(agg.col("first"), F.row_number().over(window) == 1)


def _bad(value: Any) -> Any:
    from pyspark.sql import functions as F

    return F.sum(F.when(value.isNull(), 1).otherwise(0))


def _states(agg: _Agg, inner: Relation) -> list[Any]:
    from pyspark.sql import functions as F

    value = F.col(agg.value)
    if agg.kind == "Count":
        if agg.star:
            rows = (
                F.struct(*[F.col(c) for c in inner.var_columns()]) if inner.variables else F.lit(1)
            )
            n = F.count_distinct(rows) if agg.distinct else F.count(F.lit(1))
            return [n.alias(agg.col("n")), F.lit(0).alias(agg.col("bad"))]
        n = F.count_distinct(value) if agg.distinct else F.count(value)
        bad = F.lit(0) if agg.variable else _bad(value)
        return [n.alias(agg.col("n")), bad.alias(agg.col("bad"))]
    if agg.kind in ("Sum", "Avg"):
        return _numeric_states(agg)
    if agg.kind in ("Min", "Max"):
        pick = F.min_by if agg.kind == "Min" else F.max_by
        best = pick(value, F.col(agg.col("key")))
        return [best.alias(agg.col("best")), _bad(value).alias(agg.col("bad"))]
    if agg.kind == "Sample":
        return [F.min(value).alias(agg.col("best"))]
    # GroupConcat: only string literals; any other value makes the result an error.
    not_string = value.isNull() | ~compile_is_string(value)
    items = F.collect_set(value) if agg.distinct else F.collect_list(value)
    return [
        F.sum(F.when(not_string, 1).otherwise(0)).alias(agg.col("bad")),
        items.alias(agg.col("items")),
    ]


def compile_is_string(term: Any) -> Any:
    return L.is_literal(term) & (
        term.endswith('"') | term.rlike(r'"@[a-zA-Z0-9-]+$') | term.endswith(f'"^^<{XSD}string>')
    )


def _numeric_states(agg: _Agg) -> list[Any]:
    from pyspark.sql import functions as F

    num = F.col(agg.col("num"))
    use = F.col(agg.col("first")) if agg.distinct else F.lit(True)

    def only(column: Any) -> Any:
        return F.when(use, column)

    return [
        F.sum(F.when(num["r"].isNull(), 1).otherwise(0)).alias(agg.col("bad")),
        F.max(only(num["r"])).alias(agg.col("rank")),
        F.count(only(F.lit(1))).alias(agg.col("n")),
        F.try_sum(only(num["i"])).alias(agg.col("i")),
        F.try_sum(only(num["d"])).alias(agg.col("d")),
        F.sum(only(num["f"])).alias(agg.col("f")),
        F.sum(only(num["x"])).alias(agg.col("x")),
    ]


def _final(agg: _Agg, env: Env) -> Any:
    from pyspark.sql import functions as F

    def state(name: str) -> Any:
        return F.col(agg.col(name))

    if agg.key is not None:
        return F.col(agg.key)
    bad = F.coalesce(state("bad"), F.lit(0)) > 0 if agg.kind != "Sample" else F.lit(False)
    if agg.kind == "Count":
        count = F.coalesce(state("n"), F.lit(0)).cast("long")
        return F.when(~bad, L.typed_literal(count.cast("string"), XSD + "integer"))
    if agg.kind in ("Min", "Max", "Sample"):
        return F.when(~bad, state("best"))
    if agg.kind == "GroupConcat":
        return F.when(~bad, _concat(agg, F.coalesce(state("items"), F.array())))
    n = F.coalesce(state("n"), F.lit(0))
    zero = F.lit(f'"0"^^<{XSD}integer>')
    rank = state("rank")
    if agg.kind == "Sum":
        total = N.build(
            rank,
            i=state("i"),
            d=state("d"),
            f=state("f").cast("float"),
            x=state("x"),
            ranks=_total_ranks(agg),
        )
    else:
        exact = rank.isin(N.INTEGER, N.DECIMAL)
        ranks = _total_ranks(agg)
        quotient = None
        if N.DECIMAL in ranks:
            quotient = N.decimal_divide(
                env.let(F.when(exact, state("d"))), env.let(n.cast(N.DEC)), env.let
            )
        total = N.build(
            F.when(exact, F.lit(N.DECIMAL)).otherwise(rank),
            d=quotient,
            f=F.try_divide(state("f"), n).cast("float"),
            x=F.try_divide(state("x"), n),
            ranks=_total_ranks(agg),
        )
    term = env.let(N.to_term(env.num(total), env.let))
    return F.when(bad, F.lit(None).cast("string")).when(n == 0, zero).otherwise(term)


def _concat(agg: _Agg, items: Any) -> Any:
    from pyspark.sql import functions as F

    # Escaping is per character, so joining escaped forms is exact.
    lexicals = F.array_sort(F.transform(items, lambda t: L.lexical(t)))
    separator = agg.separator.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    text = F.array_join(lexicals, separator.replace("\r", "\\r").replace("\t", "\\t"))
    langs = F.array_distinct(F.transform(items, lambda t: L.language(t)))
    lang = F.when(F.size(langs) == 1, F.element_at(langs, 1)).otherwise(F.lit(""))
    return L.lang_literal(text, lang)


HANDLERS = {"AggregateJoin": _aggregate_join}
