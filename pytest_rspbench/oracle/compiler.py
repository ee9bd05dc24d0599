"""Compile the per-window SPARQL algebra into one Spark DataFrame plan.

The plan computes every window of every t0 class at once (DESIGN §4). A
basic graph pattern inside ``GRAPH <w>`` is evaluated once over the stream:
each solution carries the time span ``[t_min, t_max]`` of the triples it
used, a join keeps only spans no wider than the window, and the span is then
assigned to the windows that contain it (interval arithmetic from
:mod:`pytest_rspbench.windows`, no copy of the data per t0). Because a
window's content is a *set* of triples, solutions that several occurrences of
the same triples produce count once per window. Operators above the BGPs then
work per ``(cls, win)`` key.

Supported here: BGP, GRAPH <window>, default-graph BGPs over static data,
Join, Filter, Union, Project, Distinct/Reduced. Anything else raises
UnsupportedQueryError and the oracle falls back to per-window evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.expressions import compile_expr
from pytest_rspbench.windows import WindowSpec

KEYS = ("cls", "win")


@dataclass(frozen=True)
class Relation:
    """A DataFrame of solutions; var columns are ``v_<name>``; ``windowed``
    relations also carry the ``cls`` and ``win`` key columns."""

    df: Any
    variables: tuple[str, ...]
    windowed: bool

    def columns(self) -> dict[str, str]:
        return {v: "v_" + v for v in self.variables}


@dataclass(frozen=True)
class Context:
    """What the compiler needs to know about the data and the windows.

    Attributes:
        stream_df: DataFrame (stream, s, p, o, t) of all stream triples.
        static_df: DataFrame (s, p, o) of static triples, or None.
        windows: window IRI -> (stream IRI, WindowSpec).
        assign: function(Relation with t_min/t_max, WindowSpec) -> windowed df.
    """

    stream_df: Any
    static_df: Any
    windows: dict[str, tuple[str, WindowSpec]]
    assign: Callable[[Any, WindowSpec], Any]


def compile_select(algebra: Any, ctx: Context) -> Relation:
    """Compile a SelectQuery's algebra into a windowed relation."""
    if algebra.name != "SelectQuery":
        raise UnsupportedQueryError(f"only SELECT queries are compiled, not {algebra.name}")
    relation = _node(algebra.p, ctx, graph=None)
    if not relation.windowed:
        raise UnsupportedQueryError("the query reads no window")
    return relation


def _node(node: Any, ctx: Context, graph: str | None) -> Relation:
    handler = _HANDLERS.get(node.name)
    if handler is None:
        raise UnsupportedQueryError(f"the query uses {node.name}")
    return handler(node, ctx, graph)


def _graph(node: Any, ctx: Context, graph: str | None) -> Relation:
    from rdflib.term import URIRef

    if not isinstance(node.term, URIRef) or str(node.term) not in ctx.windows:
        raise UnsupportedQueryError(f"GRAPH {node.term} is not a declared window")
    return _node(node.p, ctx, str(node.term))


def _bgp(node: Any, ctx: Context, graph: str | None) -> Relation:
    from pyspark.sql import functions as F

    if not node.triples:
        raise UnsupportedQueryError("an empty group pattern")
    if graph is None:
        parts = [_pattern(ctx.static_df, triple, timed=False) for triple in node.triples]
        return _join_all(parts, span=None)
    stream, spec = ctx.windows[graph]
    source = ctx.stream_df.where(F.col("stream") == stream)
    parts = [_pattern(source, triple, timed=True) for triple in node.triples]
    joined = _join_all(parts, span=spec.width)
    windowed = ctx.assign(joined.df, spec)
    # A window's content is a set: one solution per distinct mapping.
    deduped = windowed.dropDuplicates([*KEYS, *("v_" + v for v in joined.variables)])
    return Relation(deduped.drop("t_min", "t_max"), joined.variables, True)


def _pattern(source: Any, triple: Any, timed: bool) -> Relation:
    from pyspark.sql import functions as F
    from rdflib.term import BNode, Variable

    if source is None:
        raise UnsupportedQueryError("a pattern outside any WINDOW but no static data")
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
            from pytest_rspbench.oracle.expressions import _ntriples_literal

            text = term.n3() if not hasattr(term, "datatype") else _ntriples_literal(term)
            df = df.where(F.col(position) == F.lit(text))
    cols = [F.col(pos).alias("v_" + name) for name, pos in selected.items()]
    if timed:
        cols += [F.col("t").alias("t_min"), F.col("t").alias("t_max")]
    return Relation(df.select(*cols), tuple(selected), False)


def _join_all(parts: list[Relation], span: int | None) -> Relation:
    from pyspark.sql import functions as F

    result = parts[0]
    for part in parts[1:]:
        shared = [v for v in result.variables if v in part.variables]
        right = part.df
        if span is not None:
            right = right.withColumnRenamed("t_min", "r_min").withColumnRenamed("t_max", "r_max")
        df = result.df.join(right, ["v_" + v for v in shared], "inner") if shared else result.df.crossJoin(right)
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


def _join(node: Any, ctx: Context, graph: str | None) -> Relation:
    # rdflib writes a group with one sub-pattern as Join(empty BGP, pattern).
    if node.p1.name == "BGP" and not node.p1.triples:
        return _node(node.p2, ctx, graph)
    if node.p2.name == "BGP" and not node.p2.triples:
        return _node(node.p1, ctx, graph)
    left, right = _node(node.p1, ctx, graph), _node(node.p2, ctx, graph)
    shared = [v for v in left.variables if v in right.variables]
    keys = [*KEYS] if left.windowed and right.windowed else []
    on = keys + ["v_" + v for v in shared]
    df = left.df.join(right.df, on, "inner") if on else left.df.crossJoin(right.df)
    variables = left.variables + tuple(v for v in right.variables if v not in shared)
    return Relation(df, variables, left.windowed or right.windowed)


def _filter(node: Any, ctx: Context, graph: str | None) -> Relation:
    inner = _node(node.p, ctx, graph)
    condition = compile_expr(node.expr, inner.columns())
    return Relation(inner.df.where(condition), inner.variables, inner.windowed)


def _union(node: Any, ctx: Context, graph: str | None) -> Relation:
    from pyspark.sql import functions as F

    left, right = _node(node.p1, ctx, graph), _node(node.p2, ctx, graph)
    if not (left.windowed and right.windowed):
        raise UnsupportedQueryError("UNION of a window and static data")
    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)

    def widen(rel: Relation) -> Any:
        cols = [F.col(k) for k in KEYS]
        cols += [
            F.col("v_" + v) if v in rel.variables else F.lit(None).cast("string").alias("v_" + v)
            for v in variables
        ]
        return rel.df.select(*cols)

    return Relation(widen(left).unionByName(widen(right)), variables, True)


def _project(node: Any, ctx: Context, graph: str | None) -> Relation:
    from pyspark.sql import functions as F

    inner = _node(node.p, ctx, graph)
    variables = tuple(str(v) for v in node.PV)
    cols = [F.col(k) for k in KEYS if inner.windowed]
    cols += [
        F.col("v_" + v) if v in inner.variables else F.lit(None).cast("string").alias("v_" + v)
        for v in variables
    ]
    return Relation(inner.df.select(*cols), variables, inner.windowed)


def _distinct(node: Any, ctx: Context, graph: str | None) -> Relation:
    inner = _node(node.p, ctx, graph)
    return Relation(inner.df.dropDuplicates(), inner.variables, inner.windowed)


_HANDLERS: dict[str, Callable[[Any, Context, str | None], Relation]] = {
    "BGP": _bgp,
    "Graph": _graph,
    "Join": _join,
    "Filter": _filter,
    "Union": _union,
    "Project": _project,
    "Distinct": _distinct,
    "Reduced": _distinct,
}
