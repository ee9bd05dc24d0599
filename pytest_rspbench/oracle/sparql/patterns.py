"""Graph patterns over the windows: BGPs, GRAPH, FILTER, [NOT] EXISTS, BIND, VALUES.

A BGP inside ``GRAPH <window>`` (or, in tests, in the default graph read as a
window) is joined over the stream with the time span of its triples, then
assigned to the evaluations that contain the span (see :mod:`.compiler`). A
FILTER directly on a BGP is applied before that assignment: it only looks at
one solution, so it may run once per solution instead of once per window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import reduce
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.oracle.spark.local import local_frame
from pytest_rspbench.oracle.sparql import numerics as N
from pytest_rspbench.oracle.sparql.compiler import KEYS, Compiler, Relation
from pytest_rspbench.oracle.sparql.datatypes import Ranks, merge
from pytest_rspbench.oracle.sparql.expressions import (
    Env,
    compile_expr,
    compile_filter,
    ntriples,
    variables_read,
)
from pytest_rspbench.oracle.sparql.joins import align, join
from pytest_rspbench.oracle.sparql.stars import StarSource, star_groups, star_relation


def _bgp(c: Compiler, node: Any, graph: str | None, condition: Any = None) -> Relation:

    if not node.triples:
        return c.unit() if condition is None else _filtered(c.unit(), condition)
    window = graph if graph is not None else c.ctx.default_window
    if window is None:
        pushed, condition = _pushed(node.triples, condition)
        parts = [
            _with(_pattern(c.ctx.static_df, t, timed=False, **_objects(c, None)), pushed[i])
            for i, t in enumerate(node.triples)
        ]
        rel = _join_patterns(parts, span=None, subjects=[_variable(t[0]) for t in node.triples])
        rel = replace(rel, df=rel.df.dropDuplicates())
        rel = rel if condition is None else _filtered(rel, condition)
        return replace(rel, typed=frozenset())
    stream, spec = c.ctx.windows[window]
    subjects = [_variable(t[0]) for t in node.triples]
    pushed, condition = _pushed(node.triples, condition)
    parse = _parsed_early(condition, subjects)
    first = window in c.ctx.assign_first
    parts, part_subjects = _parts(c, stream, node.triples, pushed, parse, spec.width)
    joined = _join_patterns(
        parts,
        span=spec.width,
        subjects=part_subjects,
        assign=(lambda df: c.ctx.assign(df, window)) if first else None,
    )
    if condition is not None:
        # A filter on the BGP alone is monotone: apply it before window assignment.
        joined = _filtered(joined, condition)
        joined = replace(
            joined,
            df=joined.df.drop(*("n_" + v for v in joined.numbers)),
            numbers=frozenset(),
        )
    windowed = joined.df if joined.windowed else c.ctx.assign(joined.df, window)
    # A window's content is a set: one solution per distinct mapping. Each
    # mapping fixes the triples it uses; when every triple of the stream is
    # unique, each combination of rows is a different mapping already.
    if stream not in c.ctx.distinct:
        windowed = windowed.dropDuplicates([*KEYS, *joined.var_columns()])
    return Relation(
        windowed.select(*KEYS, *joined.var_columns()),
        joined.variables,
        True,
        ranks=joined.ranks,
    )


def _parts(
    c: Compiler,
    stream: str,
    triples: list[Any],
    pushed: list[Any],
    parse: frozenset[str],
    span: int,
) -> tuple[list[Relation], list[str | None]]:
    """A timed BGP's parts over ``stream`` (:func:`timed_parts`), each with
    the conjuncts pushed to its patterns."""
    from pyspark.sql import functions as F

    source = c.ctx.stream_df.where(F.col("stream") == stream)
    found = c.ctx.stars.get(stream)
    return timed_parts(source, triples, found, span, _objects(c, stream), parse, pushed)


def timed_parts(
    source: Any,
    triples: Sequence[Any],
    found: StarSource | None,
    span: int,
    objects: Mapping[str, Any],
    parse: frozenset[str] = frozenset(),
    pushed: Sequence[Any] | None = None,
) -> tuple[list[Relation], list[str | None]]:
    """A timed BGP's parts and their subject variables: one relation per
    triple pattern of ``source`` (one stream's triples), but one per subject
    star that the stream's property table answers (``found``; None: no
    table; :mod:`.stars`), each filtered by the ``pushed`` conditions of its
    patterns (None: none). The compiler and the t0 narrowing's solution
    spans (:mod:`..t0.spans`) both read a BGP so."""
    pushed = list(pushed) if pushed is not None else [None] * len(triples)
    # The table is made (a Spark job, or read from the cache) only for a star.
    table = found.table() if found is not None and star_groups(None, triples) else None
    groups = star_groups(table.predicates, triples) if table is not None else {}
    starred = {i: name for name, members in groups.items() for i in members}
    parts: list[Relation] = []
    subjects: list[str | None] = []
    for i, t in enumerate(triples):
        name = starred.get(i)
        if name is None:
            parts.append(_with(_pattern(source, t, timed=True, parse=parse, **objects), pushed[i]))
            subjects.append(_variable(t[0]))
        elif groups[name][0] == i:
            assert table is not None
            members = groups[name]
            star = star_relation(table, [triples[m] for m in members], span, parse=parse, **objects)
            rel = Relation(
                star.df, star.variables, False,
                ranks=star.ranks, numbers=star.numbers, typed=star.typed,
            )  # fmt: skip
            parts.append(_with(rel, _and([pushed[m] for m in members if pushed[m] is not None])))
            subjects.append(name)
    return parts, subjects


def _variable(term: Any) -> str | None:
    """The column name of a variable or blank node term (None: a constant)."""
    from rdflib.term import BNode, Variable

    if isinstance(term, BNode):
        return "_bn_" + str(term)
    return str(term) if isinstance(term, Variable) else None


def _pushed(triples: list[Any], condition: Any) -> tuple[list[Any], Any]:
    """``condition``'s conjuncts that one triple pattern alone can decide, per
    pattern, and the rest (None: nothing left).

    A conjunct that reads only variables of one pattern (``?value > 50`` on
    ``?res om-owl:floatValue ?value``) keeps or drops each of that pattern's
    solutions whatever they join with: a solution passes a conjunction when
    every conjunct is true, and a joined solution has the pattern's values.
    Applied to the pattern, it runs once per triple, before the joins and
    their shuffles, instead of once per joined solution after them. A
    conjunct that reads more than values (NOW, RAND, EXISTS) or no variable
    stays where it was.
    """
    if condition is None or len(triples) < 2:
        return [None] * len(triples), condition
    pushed: list[list[Any]] = [[] for _ in triples]
    rest = []
    for conjunct in _conjuncts(condition):
        names = variables_read(conjunct)
        target = next(
            (i for i, t in enumerate(triples) if names and names <= _pattern_variables(t)),
            None,
        )
        if target is None:
            rest.append(conjunct)
        else:
            pushed[target].append(conjunct)
    return [_and(p) for p in pushed], _and(rest)


def _pattern_variables(triple: Any) -> frozenset[str]:
    from rdflib.term import Variable

    return frozenset(str(term) for term in triple if isinstance(term, Variable))


def _with(rel: Relation, condition: Any) -> Relation:
    """``rel`` filtered by ``condition`` (None: all of it)."""
    return rel if condition is None else _filtered(rel, condition)


def _parsed_early(condition: Any, subjects: list[str | None]) -> frozenset[str]:
    """The variables of ``condition`` whose numbers are parsed in their patterns.

    A FILTER on a BGP of several subjects (``?v1 - ?v2 > 0`` over two
    observations of one sensor) runs once per joined solution, and a
    self-join has many more of those than triples: each value would be
    parsed again in every pair it is part of. Parsed in its triple pattern,
    a value is parsed once, and the join carries the number along
    (:attr:`Relation.numbers`). With one subject the solutions are no more
    than the triples, and nothing is gained.
    """
    if condition is None or len(set(subjects)) < 2:
        return frozenset()
    # None: the FILTER reads more than values (EXISTS, NOW): parse nothing early.
    return variables_read(condition) or frozenset()


def _objects(c: Compiler, source: str | None) -> dict[str, Any]:
    return objects_of(c.ctx.datatypes, source)


def objects_of(datatypes: Ranks, source: str | None) -> dict[str, Any]:
    """What :func:`_pattern` knows of the objects of each predicate in
    ``source`` (its ``ranks`` and ``numeric_only`` arguments): their numeric
    types, and whether they are all literals of numeric datatypes."""
    return {
        "ranks": lambda predicate: datatypes.objects(source, predicate),
        "numeric_only": lambda predicate: datatypes.numeric_only(source, predicate),
    }


def _filtered(rel: Relation, condition: Any) -> Relation:
    env = rel.env()
    keep = compile_filter(condition, env)
    keep = env.guarded(keep, boolean=True)
    return replace(rel, df=env.apply(rel.df).where(keep).drop(*env.names()))


def _pattern(
    source: Any,
    triple: Any,
    timed: bool,
    ranks: Any = lambda predicate: N.ALL,
    parse: frozenset[str] = frozenset(),
    numeric_only: Any = lambda predicate: False,
) -> Relation:
    """The solutions of one triple pattern.

    ``ranks(predicate)`` gives the numeric types of the objects of
    ``predicate`` (None: of any predicate) in ``source``;
    ``numeric_only(predicate)``, whether they are all literals of numeric
    datatypes (the object variable is then :attr:`Relation.typed`). The object
    variable, if it is in ``parse`` and its predicate's objects are known to
    be of some numeric types only, gets its number parsed here
    (:attr:`Relation.numbers`).
    """
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
    predicate = triple[1]
    if isinstance(predicate, (Variable, BNode)):
        objects, typed = ranks(None), False
    else:
        objects, typed = ranks(ntriples(predicate)), numeric_only(ntriples(predicate))
    # Subjects and predicates are never literals; a variable used twice in one
    # pattern (``?x :p ?x``) has the ranks of its first position.
    known = {
        name: objects if position == "o" else frozenset() for name, position in selected.items()
    }
    numbers = frozenset(
        name
        for name, position in selected.items()
        if position == "o" and name in parse and objects and objects != N.ALL
    )
    if numbers:
        env = Env({}, ranks=known)
        for name in numbers:
            number = N.parse(F.col(selected[name]), env.let, objects)
            cols.append(env.guarded(N.packed(number)).alias("n_" + name))
        df = env.apply(df)
    typed_names = frozenset(
        name for name, position in selected.items() if position == "o" and typed
    )
    return Relation(
        df.select(*cols), tuple(selected), False, ranks=known, numbers=numbers, typed=typed_names
    )


def _join_patterns(
    parts: list[Relation],
    span: int | None,
    subjects: list[str | None] | None = None,
    assign: Any = None,
) -> Relation:
    """Join a BGP's patterns: first each subject's star, then the stars.

    ``subjects``: each pattern's subject variable (None: a constant). The
    patterns about one subject (``?ob1 :procedure ?s ; :result ?r``) are
    joined first; then the relations are joined pairwise, those linked
    through a subject variable (``?ob1 :result ?r`` with ``?r :value ?v``)
    before those sharing only objects (two observations of one ``?sensor``).
    A self-join thus becomes one join of two complete sides, not a chain
    where every observation meets every other of its sensor before the rest
    of the pattern narrows them (rdflib lists the patterns with constants
    first, which would make it a cross product). Relations sharing nothing
    are joined last. With ``span`` (the window's width) a join keeps only
    solutions whose triples fit in one window, as part of the join itself.

    With ``assign`` (a span DataFrame -> its rows keyed by the evaluations
    ``(cls, win)`` whose windows hold the span), each star is assigned to
    its evaluations before the stars are joined, and they join on those keys
    too: a solution is in a window exactly when each of its stars is. The
    result is then ``windowed``. Two observations of one sensor then meet
    only within one window, not within a window's width of each other: over
    a stream of n observations per sensor that is n * (observations per
    window) pairs to compare instead of n * n. Worth it where an instant is
    read by few evaluations (Context.assign_first), each star being copied
    once per evaluation that reads it.
    """
    subjects = subjects or [None] * len(parts)
    stars: dict[str, list[Relation]] = {}
    groups: list[tuple[Relation, frozenset[str]]] = []
    for part, subject in zip(parts, subjects, strict=True):
        if subject is None:
            groups.append((part, frozenset()))
        else:
            stars.setdefault(subject, []).append(part)
    for subject, members in stars.items():
        star = members[0]
        for member in members[1:]:
            star = _join_two(star, member, span)
        groups.append((star, frozenset((subject,))))
    keyed = assign is not None and len(groups) > 1
    if keyed:
        groups = [(_assigned(rel, assign), names) for rel, names in groups]
        span = None  # each side's span is inside the window already
    while len(groups) > 1:
        i, j = _best_pair(groups)
        (left, ls), (right, rs) = groups[i], groups[j]
        groups[i] = (_join_two(left, right, span, keyed), ls | rs)
        del groups[j]
    return groups[0][0]


def _assigned(rel: Relation, assign: Any) -> Relation:
    """``rel``'s solutions keyed by the evaluations whose windows hold them."""
    df = assign(rel.df).drop("t_min", "t_max")
    return replace(rel, df=df, windowed=True)


def _best_pair(groups: list[tuple[Relation, frozenset[str]]]) -> tuple[int, int]:
    """The first pair linked through a subject, else sharing a variable, else any."""
    best, score = (0, 1), -1
    for i, (left, ls) in enumerate(groups):
        for j in range(i + 1, len(groups)):
            right, rs = groups[j]
            shared = set(left.variables) & set(right.variables)
            rank = 0 if not shared else 2 if shared & (ls | rs) else 1
            if rank > score:
                best, score = (i, j), rank
    return best


def _join_two(left: Relation, right: Relation, span: int | None, keyed: bool = False) -> Relation:
    """The natural join of two pattern relations (cross product if disjoint).

    ``keyed``: both are keyed by evaluation (``cls``, ``win``) and join on
    those keys too.
    """
    from pyspark.sql import functions as F

    shared = [v for v in left.variables if v in right.variables]
    # Unique names on both sides: the two sides often read the same stream,
    # and Spark cannot tell the same column of a self-join apart.
    rdf = right.df
    for v in shared:
        rdf = rdf.withColumnRenamed("v_" + v, "r_" + v)
        if v in left.numbers and v in right.numbers:
            rdf = rdf.drop("n_" + v)
    conds = [F.col("v_" + v) == F.col("r_" + v) for v in shared]
    if keyed:
        for key in KEYS:
            rdf = rdf.withColumnRenamed(key, "r_" + key)
            conds.append(F.col(key) == F.col("r_" + key))
    if span is not None:
        rdf = rdf.withColumnRenamed("t_min", "r_min").withColumnRenamed("t_max", "r_max")
        t_min = F.least("t_min", "r_min")
        t_max = F.greatest("t_max", "r_max")
        # Spans only grow as patterns join: past the width, the solution can
        # never fit in a window, so it is dropped inside the join.
        conds.append(t_max - t_min <= span)
    if conds:
        df = left.df.join(rdf, reduce(lambda a, b: a & b, conds), "inner")
    else:
        df = left.df.crossJoin(rdf)
    own = [v for v in right.variables if v not in shared]
    columns = [F.col(k) for k in KEYS] if keyed else []
    columns += [F.col("v_" + v) for v in (*left.variables, *own)]
    if span is not None:
        columns += [t_min.alias("t_min"), t_max.alias("t_max")]
    # A parsed number goes along with its variable (the left one's where
    # both sides parsed it, dropped from the right above: equal terms have
    # equal numbers).
    numbers = left.numbers | right.numbers
    columns += [F.col("n_" + v) for v in sorted(numbers)]
    variables = left.variables + tuple(own)
    ranks = merge([(left.variables, left.ranks), (right.variables, right.ranks)], variables)
    # An inner join on equal terms: a value typed on one side is typed.
    typed = left.typed | right.typed
    return Relation(
        df.select(*columns), variables, keyed, ranks=ranks, numbers=numbers, typed=typed
    )


def _graph(c: Compiler, node: Any, graph: str | None) -> Relation:
    from rdflib.term import URIRef

    if not isinstance(node.term, URIRef) or str(node.term) not in c.ctx.windows:
        raise UnsupportedQueryError(f"GRAPH {node.term} is not a declared window")
    return c.node(node.p, str(node.term))


def _filter(c: Compiler, node: Any, graph: str | None) -> Relation:
    conjuncts = _conjuncts(node.expr)
    exists = [
        e for e in conjuncts if getattr(e, "name", None) in ("Builtin_EXISTS", "Builtin_NOTEXISTS")
    ]
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
    rel, inner = align(c, rel, inner)
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
    env = inner.env()
    expr = compile_expr(node.expr, env)
    value = env.guarded(expr.term)
    df = env.apply(inner.df).withColumn("v_" + var, value).drop(*env.names())
    return replace(
        inner,
        df=df,
        variables=(*inner.variables, var),
        nullable=inner.nullable | {var},
        ranks={**inner.ranks, var: expr.ranks},
    )


def _values(c: Compiler, node: Any, graph: str | None) -> Relation:
    rows = [
        {str(k): v for k, v in row.items() if v is not None and v != "UNDEF"} for row in node.res
    ]
    variables = list(dict.fromkeys(v for row in rows for v in row))
    if not variables:
        unit = c.unit()
        return unit if rows else replace(unit, df=unit.df.limit(0))
    data = [tuple(ntriples(row[v]) if v in row else None for v in variables) for row in rows]
    schema = ", ".join(f"`v_{v}` string" for v in variables)
    df = local_frame(c.ctx.stream_df.sparkSession, data, schema)
    nullable = frozenset(v for v in variables if any(v not in row for row in rows))
    return Relation(df, tuple(variables), False, nullable)


def _to_multiset(c: Compiler, node: Any, graph: str | None) -> Relation:
    inner = c.node(node.p, graph)
    if inner.ordered:
        inner = replace(inner, df=inner.df.drop("_ord"), ordered=False)
    return inner


HANDLERS = {
    "BGP": _bgp,
    "Graph": _graph,
    "Filter": _filter,
    "Extend": _extend,
    "values": _values,
    "ToMultiSet": _to_multiset,
}
