"""Combining relations per window: Join, OPTIONAL (LeftJoin), MINUS, UNION.

SPARQL 1.1 §18.5: two solutions are compatible when every shared variable
has the same value in both, where a variable unbound on one side is
compatible with anything; the merged solution takes the bound value. Shared
variables that may be unbound get null-tolerant join conditions
(``l = r OR l IS NULL OR r IS NULL``) and ``coalesce(l, r)`` in the output;
the others get plain equi-join conditions. Relations of windows join on their
``(cls, win)`` keys; a static relation joins every window, and is repeated
per evaluation (:meth:`Compiler.lift`) where its unmatched rows must appear
in each window (OPTIONAL, MINUS and UNION with a static left or one side).
"""

from __future__ import annotations

from dataclasses import replace
from functools import reduce
from typing import Any

from pytest_rspbench.oracle.sparql.compiler import KEYS, Compiler, Relation
from pytest_rspbench.oracle.sparql.datatypes import merge
from pytest_rspbench.oracle.sparql.expressions import Scope, compile_filter


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
    FILTER, ``how`` "left"). A shared variable is compatible when equal or
    unbound on either side, and takes the bound value.
    """
    from pyspark.sql import functions as F

    if condition is not None:
        return _left_join_filtered(left, right, condition)

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
        anyshared = reduce(
            lambda a, b: a | b,
            [F.col("v_" + v).isNotNull() & F.col("r_v_" + v).isNotNull() for v in shared],
        )
        conds.append(anyshared)
        how = "left_anti"
    ranks = merge(
        [(left.variables, left.ranks), (right.variables, right.ranks)],
        dict.fromkeys([*left.variables, *right.variables]),
    )
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
        nullable = left.nullable | (
            frozenset(right.variables) - (frozenset(shared) - left.nullable)
        )
    return Relation(df.select(*cols), variables, bool(out_keys), frozenset(nullable), ranks=ranks)


LEFT = "left-"
"""Prefix of the copies of the left side's variables in a filtered LeftJoin
(a ``-`` is in no SPARQL variable name)."""


def _left_join_filtered(left: Relation, right: Relation, condition: Any) -> Relation:
    """LeftJoin(L, R, expr) = Filter(expr, Join(L, R)) + Diff(L, R, expr) (SPARQL 1.1 §18.5).

    The FILTER runs on the joined solutions like any FILTER, its values in
    helper columns, each computed once (a join condition could hold no
    helper column and would repeat every operand's expression at each use,
    a tree that grows exponentially with the nesting of functions). The
    solutions of L that keep no partner are those that no matched solution
    came from: L's values travel through the join in copies (a shared
    variable unbound in L takes R's value), and identical solutions of L
    fare alike, so an anti-join on every copied column finds them.
    """
    from pyspark.sql import functions as F

    copies = {LEFT + str(k): v for k, v in enumerate(left.variables)}
    carried = replace(
        left,
        df=left.df.select("*", *[F.col("v_" + v).alias("v_" + c) for c, v in copies.items()]),
        variables=left.variables + tuple(copies),
        nullable=left.nullable | {c for c, v in copies.items() if v in left.nullable},
    )
    joined = join(carried, right, "inner")
    env = joined.env()
    keep = env.guarded(compile_filter(condition, env), boolean=True)
    matched = env.apply(joined.df).where(keep)
    shape = join(left, right, "left")  # the variables, nullability and ranks of the result
    columns = [*shape.keys, *shape.var_columns()]
    origin = [*left.keys, *("v_" + c for c in copies)]
    found = matched.select(*[F.col(c).alias("m_" + str(k)) for k, c in enumerate(origin)])
    same = [
        F.col(c).eqNullSafe(F.col("m_" + str(k)))
        for k, c in enumerate([*left.keys, *left.var_columns()])
    ]
    alone = left.df.select(*left.keys, *left.var_columns()).join(
        found, reduce(lambda a, b: a & b, same) if same else F.lit(True), "left_anti"
    )
    missing = [v for v in shape.variables if v not in left.variables]
    alone = alone.select(
        *left.keys,
        *left.var_columns(),
        *[F.lit(None).cast("string").alias("v_" + v) for v in missing],
    )
    df = matched.select(*columns).unionByName(alone.select(*columns))
    return replace(shape, df=df, ordered=False)


def align(c: Compiler, left: Relation, right: Relation) -> tuple[Relation, Relation]:
    """Give the left side keys when only the right side is windowed."""
    if right.windowed and not left.windowed:
        left = c.lift(left)
    return left, right


def _left_join(c: Compiler, node: Any, graph: str | None) -> Relation:
    left, right = align(c, c.node(node.p1, graph), c.node(node.p2, graph))
    condition = None if getattr(node.expr, "name", None) == "TrueFilter" else node.expr
    return join(left, right, "left", condition)


def _minus(c: Compiler, node: Any, graph: str | None) -> Relation:
    left = c.node(node.p1, graph)
    right = c.node(node.p2, graph)
    if not set(left.variables) & set(right.variables):
        return left  # SPARQL 1.1 §18.5: Minus removes nothing without shared variables.
    left, right = align(c, left, right)
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
    nullable |= frozenset(
        v for v in variables if v not in left.variables or v not in right.variables
    )
    df = widen(left).unionByName(widen(right))
    ranks = merge([(left.variables, left.ranks), (right.variables, right.ranks)], variables)
    return Relation(df, variables, left.windowed, frozenset(nullable), ranks=ranks)


HANDLERS = {
    "Join": _join,
    "LeftJoin": _left_join,
    "Minus": _minus,
    "Union": _union,
}
