"""The solution spans of a query's monotone part, for the t0 narrowing.

The monotone part of the query (BGPs, FILTER, joins, UNION, BIND of a
variable, patterns over static data) is evaluated once over the stream, each
solution ``mu`` carrying the time span of the triples it used. Under the
profile's bounds ``mu`` lies in the window opening at ``o`` exactly when
``o`` is in ``I(mu) = [t_max + open_end - width, t_min - open_start]``
(:class:`~pytest_rspbench.rsp.windows.Bounds`)::

    width 1000, [o,c): mu uses triples at 1200 and 1500
    o in [1500 + 0 - 1000, 1200 - 0] = [500, 1200]
         [500 ------ 1500)    the first window holding mu
                [1200 ------ 2200)    the last

:mod:`.placing` compares an engine's bindings with these spans. Only the
variables whose value in the output is the solution's own value are
compared (*known* variables: bound by a triple pattern and always bound;
GROUP BY keys of an aggregate); the others, and every construct this module
does not model, only weaken the constraint, never drop a window that holds
the relation. That keeps the narrowing sound: :mod:`.narrowing` computes
only the t0 classes these windows allow, and the verdict stays exact.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.spark.local import local_frame
from pytest_rspbench.oracle.sparql.datatypes import Ranks
from pytest_rspbench.oracle.sparql.expressions import variables_read
from pytest_rspbench.oracle.sparql.stars import StarSource
from pytest_rspbench.oracle.t0.factors import Factor, Spanned, merged, restricted, united
from pytest_rspbench.oracle.t0.sides import alike, outputs, relaxed, shape, sides


@dataclass(frozen=True)
class SpanContext:
    """The data and windows the spans are computed over.

    Attributes:
        stream_df: DataFrame (stream, s, p, o, t) of every stream triple.
        static_df: DataFrame (s, p, o) of the static triples, or None.
        specs: window IRI -> (stream IRI, WindowSpec), in declaration order.
        datatypes: numeric types of pattern objects (:mod:`.datatypes`).
        filters: apply FILTERs (off after a value the plan cannot compute).
        output: the variables the query outputs, when its pattern is one
            window's BGP (with FILTERs): its sides are then placed apart
            (:func:`~.sides.sides`). Empty: never.
        relaxed: place each side by one of its triple patterns
            (:func:`~.sides.relaxed`), where that applies.
        stars: per stream IRI, its property table (:mod:`..sparql.stars`):
            a side's subject star is read from it, as the compiler reads
            it (none: every pattern from ``stream_df``).
    """

    stream_df: Any
    static_df: Any
    specs: Mapping[str, tuple[str, Any]]
    datatypes: Ranks
    filters: bool = True
    output: frozenset[str] = frozenset()
    relaxed: bool = False
    stars: Mapping[str, StarSource] = field(default_factory=dict)
    kept: dict[Any, tuple[Factor, dict[int, str]]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """The BGP sides computed so far, by window and shape
    (:func:`~.sides.shape`): a self-join's second side is the first one's
    DataFrame renamed, and that DataFrame is kept in memory
    (:meth:`release` frees it)."""

    @property
    def names(self) -> list[str]:
        return list(self.specs)

    def release(self) -> None:
        """Free the sides :func:`~.sides.alike` kept in memory."""
        for factor, _ in self.kept.values():
            factor.df.unpersist()
        self.kept.clear()


Handler = Callable[[SpanContext, Any, "str | None"], Spanned]


def spans(algebra: Any, ctx: SpanContext) -> Spanned:
    """The factors of a SELECT query's monotone part.

    Raises UnsupportedQueryError for a construct that could hide where a
    solution comes from (the caller then narrows nothing).
    """
    if algebra.name != "SelectQuery" or algebra.get("datasetClause"):
        raise UnsupportedQueryError("content narrowing reads SELECT queries only")
    return _node(replace(ctx, output=outputs(algebra.p)), algebra.p, None)


def _node(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    handler = _HANDLERS.get(node.name)
    if handler is None:
        raise UnsupportedQueryError(f"content narrowing does not model {node.name}")
    return handler(ctx, node, graph)


def _unit(ctx: SpanContext) -> Spanned:
    """One empty solution: no factor at all."""
    return Spanned(())


def _bgp(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.sparql.patterns import _join_patterns, _pattern, _variable

    if not node.triples:
        return _unit(ctx)
    subjects = [_variable(t[0]) for t in node.triples]
    if graph is None:
        parts = [_pattern(ctx.static_df, t, False, **_objects(ctx, None)) for t in node.triples]
        rel = _join_patterns(parts, span=None, subjects=subjects)
        factor = Factor(rel.df, frozenset(rel.variables), frozenset(), rel.ranks, rel.typed)
        return Spanned((factor,))
    stream, spec = ctx.specs[graph]
    i = ctx.names.index(graph)
    source = ctx.stream_df.where(F.col("stream") == stream)
    factors = []
    chosen = relaxed(node.triples, ctx.output) if ctx.relaxed else None
    for side in chosen or sides(node.triples, ctx.output):
        form, names = shape(side)
        if (seen := ctx.kept.get((graph, form))) is not None:
            factors.append(alike(*seen, names, keep=len(side) > 1))
            continue
        parts, subjects = _side(ctx, source, stream, side, spec.width)
        rel = _join_patterns(parts, span=spec.width, subjects=subjects)
        lo = F.col("t_max") + F.lit(spec.bounds.open_end - spec.width)
        hi = F.col("t_min") - F.lit(spec.bounds.open_start)
        df = rel.df.select(*rel.var_columns(), lo.alias(f"lo_{i}"), hi.alias(f"hi_{i}")).where(
            F.col(f"lo_{i}") <= F.col(f"hi_{i}")
        )
        factors.append(Factor(df, frozenset(rel.variables), frozenset({i}), rel.ranks, rel.typed))
        ctx.kept[(graph, form)] = (factors[-1], names)
    return Spanned(tuple(factors))


def _side(
    ctx: SpanContext, source: Any, stream: str, side: list[Any], span: int
) -> tuple[list[Any], list[str | None]]:
    """One side's parts and their subject variables, read as the compiler
    reads a BGP: a subject star the stream's property table answers is one
    part (:func:`~..sparql.patterns.timed_parts`)."""
    from pytest_rspbench.oracle.sparql.patterns import timed_parts

    return timed_parts(source, side, ctx.stars.get(stream), span, _objects(ctx, stream))


def _objects(ctx: SpanContext, source: str | None) -> dict[str, Any]:
    from pytest_rspbench.oracle.sparql.patterns import objects_of

    return objects_of(ctx.datatypes, source)


def _graph(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    from rdflib.term import URIRef

    if not isinstance(node.term, URIRef) or str(node.term) not in ctx.specs:
        raise UnsupportedQueryError(f"GRAPH {node.term} is not a declared window")
    return _node(ctx, node.p, str(node.term))


def _filter(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    from pytest_rspbench.oracle.sparql.patterns import _conjuncts

    inner = _node(ctx, node.p, graph)
    if not ctx.filters:
        return inner
    factors = list(inner.factors)
    for condition in _conjuncts(node.expr):
        needs = variables_read(condition)
        if needs is None:
            continue  # depends on more than the solution's values
        for k, factor in enumerate(factors):
            if needs <= factor.known:
                factors[k] = _filtered(factor, condition)
                break
    return Spanned(tuple(factors))


def _filtered(factor: Factor, condition: Any) -> Factor:
    """``factor`` without the solutions ``condition`` rejects (unchanged when
    the compiled plan cannot express it)."""
    from pytest_rspbench.oracle.sparql.patterns import _filtered as filtered

    try:
        return replace(factor, df=filtered(factor.relation(), condition).df)
    except UnsupportedQueryError:
        return factor


def _join(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    left = _node(ctx, node.p1, graph)
    right = _node(ctx, node.p2, graph)
    return Spanned(merged([*left.factors, *right.factors]))


def _union(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    branches = [_node(ctx, node.p1, graph), _node(ctx, node.p2, graph)]
    if any(len(s.factors) != 1 for s in branches):
        raise UnsupportedQueryError("UNION of a product (content narrowing)")
    return Spanned((united(branches[0].factors[0], branches[1].factors[0]),))


def _extend(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    from pyspark.sql import functions as F
    from rdflib.term import Variable

    inner = _node(ctx, node.p, graph)
    source, var = node.expr, str(node.var) if node.var is not None else None
    if var is None or not isinstance(source, Variable):
        return inner  # the new variable's value is not a solution's own
    factors = list(inner.factors)
    for k, f in enumerate(factors):
        if str(source) in f.known:
            df = f.df.withColumn(f"v_{var}", F.col(f"v_{source}"))
            ranks = dict(f.ranks)
            if str(source) in f.ranks:
                ranks[var] = f.ranks[str(source)]
            typed = f.typed | {var} if str(source) in f.typed else f.typed
            factors[k] = Factor(df, f.known | {var}, f.windows, ranks, typed)
            break
    return Spanned(tuple(factors))


def _left(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    """OPTIONAL and MINUS: every solution extends (or is) one of the left side."""
    return _node(ctx, node.p1, graph)


def _inner(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    """DISTINCT, ORDER BY, LIMIT/OFFSET: the solutions are some of the inner ones."""
    return _node(ctx, node.p, graph)


def _project(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    inner = _node(ctx, node.p, graph)
    keep = frozenset(str(v) for v in node.PV)
    return Spanned(tuple(restricted(f, f.known & keep) for f in inner.factors))


def _values(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    from pytest_rspbench.oracle.sparql.expressions import ntriples

    rows = [
        {str(k): v for k, v in row.items() if v is not None and v != "UNDEF"} for row in node.res
    ]
    if not rows:
        raise UnsupportedQueryError("an empty VALUES block")
    known = sorted(set.intersection(*(set(r) for r in rows)))
    if not known:
        return _unit(ctx)
    data = [tuple(ntriples(r[v]) for v in known) for r in rows]
    schema = ", ".join(f"`v_{v}` string" for v in known)
    df = local_frame(ctx.stream_df.sparkSession, data, schema)
    return Spanned((Factor(df, frozenset(known), frozenset(), {}),))


def _aggregate_join(ctx: SpanContext, node: Any, graph: str | None) -> Spanned:
    """GROUP BY keys: a group exists in a window when one of its solutions
    does; rdflib writes ``SELECT ?key`` as ``SAMPLE(?key)`` of the group."""
    from pyspark.sql import functions as F
    from rdflib.term import Variable

    group = node.p
    if group.name != "Group":
        raise UnsupportedQueryError(f"aggregates over {group.name}")
    inner = _node(ctx, group.p, graph)
    keys = {str(e) for e in (group.expr or []) if isinstance(e, Variable)}
    samples = [
        (str(a.res), str(a.vars))
        for a in node.A
        if a.name == "Aggregate_Sample" and isinstance(a.vars, Variable) and str(a.vars) in keys
    ]
    factors = []
    for f in inner.factors:
        named = [(res, var) for res, var in samples if var in f.known]
        df = f.df
        for res, var in named:
            df = df.withColumn(f"v_{res}", F.col(f"v_{var}"))
        known = frozenset(res for res, _ in named)
        ranks = {res: f.ranks[var] for res, var in named if var in f.ranks}
        factors.append(restricted(Factor(df, known, f.windows, ranks), known))
    return Spanned(tuple(factors))


_HANDLERS: dict[str, Handler] = {
    "BGP": _bgp,
    "Graph": _graph,
    "Filter": _filter,
    "Join": _join,
    "LeftJoin": _left,
    "Minus": _left,
    "Union": _union,
    "Extend": _extend,
    "ToMultiSet": _inner,
    "Distinct": _inner,
    "Reduced": _inner,
    "OrderBy": _inner,
    "Slice": _inner,
    "Project": _project,
    "values": _values,
    "AggregateJoin": _aggregate_join,
}
