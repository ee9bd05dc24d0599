"""Solution modifiers per window: projection, DISTINCT, ORDER BY, LIMIT/OFFSET.

SPARQL 1.1 §15 applies them to each window's solution sequence. ORDER BY
gives every solution its position within its window (``_ord``, a
``row_number`` over ``(cls, win)``) only when a LIMIT/OFFSET needs it;
DISTINCT keeps each solution's first position, and LIMIT/OFFSET keep the
positions in ``(offset, offset + limit]``. Ties in ORDER BY are broken by the
values of the other variables, so the plan is deterministic (SPARQL leaves
the order of ties open).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_rspbench.oracle.sparql.compiler import Compiler, Relation
from pytest_rspbench.oracle.sparql.expressions import compile_term
from pytest_rspbench.oracle.sparql.ordering import sort_columns


def _project(c: Compiler, node: Any, graph: str | None) -> Relation:
    from pyspark.sql import functions as F

    inner = c.node(node.p, graph)
    variables = tuple(dict.fromkeys(str(v) for v in node.PV))
    cols = [F.col(k) for k in inner.keys] + ([F.col("_ord")] if inner.ordered else [])
    cols += [
        F.col("v_" + v) if v in inner.variables else F.lit(None).cast("string").alias("v_" + v)
        for v in variables
    ]
    nullable = frozenset(v for v in variables if v in inner.nullable or v not in inner.variables)
    return replace(inner, df=inner.df.select(*cols), variables=variables, nullable=nullable)


def _distinct(c: Compiler, node: Any, graph: str | None) -> Relation:
    from pyspark.sql import functions as F

    inner = c.node(node.p, graph)
    columns = [*inner.keys, *inner.var_columns()]
    if inner.ordered:
        df = inner.df.groupBy(*columns).agg(F.min("_ord").alias("_ord"))
    else:
        df = inner.df.dropDuplicates(columns) if columns else inner.df.limit(1)
    return replace(inner, df=df)


def _order_by(c: Compiler, node: Any, graph: str | None) -> Relation:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    inner = c.node(node.p, graph)
    if not c.sliced:
        return inner  # The order of a bag is not observable without LIMIT/OFFSET.
    env = inner.env()
    sort = []
    for condition in node.expr:
        expr, descending = condition, False
        if getattr(condition, "name", None) == "OrderCondition":
            expr, descending = condition.expr, condition.order == "DESC"
        sort += sort_columns(env.let(compile_term(expr, env)), descending, env.let)
    sort += [F.col(v).asc_nulls_first() for v in inner.var_columns()]
    window = Window.partitionBy(*inner.keys).orderBy(*sort)
    df = env.apply(inner.df).withColumn("_ord", F.row_number().over(window)).drop(*env.names())
    return replace(inner, df=df, ordered=True)


def _slice(c: Compiler, node: Any, graph: str | None) -> Relation:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    inner = c.node(node.p, graph)
    order = (
        [F.col("_ord")]
        if inner.ordered
        else [F.col(v).asc_nulls_first() for v in inner.var_columns()]
    )
    if not order:
        order = [F.lit(1)]
    window = Window.partitionBy(*inner.keys).orderBy(*order)
    position = F.col("_ord")
    start = int(node.start or 0)
    keep = position > start
    if node.length is not None:
        keep = keep & (position <= start + int(node.length))
    df = inner.df.withColumn("_ord", F.row_number().over(window)).where(keep)
    return replace(inner, df=df, ordered=True)


HANDLERS = {
    "Project": _project,
    "Distinct": _distinct,
    "Reduced": _distinct,
    "OrderBy": _order_by,
    "Slice": _slice,
}
