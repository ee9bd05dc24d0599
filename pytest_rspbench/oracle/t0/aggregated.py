"""Place an aggregate's relations by their values: a sweep over window opens.

The content narrowing (:mod:`.narrowing`) places a relation by the
solutions its bindings name. An aggregate's value names none: ``AVG(?v)``
per station holds every station in every window, and ``COUNT(*)`` without
GROUP BY holds no solution variable at all, so every t0 class was computed.
Yet the value itself depends on the window: as the open ``o`` of a window
moves, a solution enters at the first open whose window holds it and leaves
after the last (``I(mu) = [lo, hi]``, :mod:`.spans`). Between two such
breakpoints the window's solutions, and so each group's aggregate, stay
the same. One sweep per group over its solutions' breakpoints gives the
aggregate as a step function of ``o``; the opens where it equals the value
the engine reported are a union of intervals, and a relation's window opens
where every value it reports holds::

    COUNT(*), width 10: solutions at 3, 9, 12  ->  I = [-6, 3], [0, 9], [3, 12]
    o:      -6..-1   0..2   3   4..9   10..12
    count:    1       2     3     2       1
    the engine reported 3  ->  o in [3, 3]

Only what can be modelled exactly is used, so the narrowing stays sound:

- the query is ``SELECT`` keys and aggregates (COUNT, SUM, AVG, MIN, MAX
  of a variable, or ``COUNT(*)``, none DISTINCT) ``GROUP BY`` variables over
  one window's triple patterns and FILTERs, with nothing above (no HAVING,
  ORDER BY, LIMIT, expressions over aggregates);
- every FILTER is applied exactly, and no group the engine names has one
  solution mapping twice (a triple repeated in the stream gives its
  solutions twice here, once in the window, which holds a *set* of
  triples);
- every relation is the whole window's content: report on window close
  (with or without non-empty content) and RStream;
- the verdict asks for an equal output (strict); values match within the
  comparison's tolerance plus a relative 1e-6, more than float rounding
  can move a sum (a false match only computes one class more);
- a value that is not a number, a binding without all keys and a group
  whose inputs are not all numbers constrain nothing; without GROUP BY, a
  window that holds no solution gives 0 (COUNT, SUM, AVG of nothing), or
  no value at all (MIN, MAX).

Anything else returns no constraint, and the classes are narrowed as before.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_rspbench.errors import UnsupportedQueryError
from pytest_rspbench.rsp.policy import whole_windows

Interval = tuple[int, int]
FUNCTIONS = {
    "Aggregate_Count": "count",
    "Aggregate_Sum": "sum",
    "Aggregate_Avg": "avg",
    "Aggregate_Min": "min",
    "Aggregate_Max": "max",
}
RELATIVE = 1e-6


@dataclass(frozen=True)
class Shape:
    """An aggregate query this module can sweep.

    Attributes:
        window: the IRI of the one window it reads.
        keys: output variable -> GROUP BY variable.
        values: output variable -> (function, input variable or None for ``*``).
        pattern: the algebra under the window (FILTERs over a BGP).
    """

    window: str
    keys: Mapping[str, str]
    values: Mapping[str, tuple[str, str | None]]
    pattern: Any


def shape_of(algebra: Any) -> Shape | None:
    """The query's :class:`Shape`, or None when it is not one.

    >>> from pytest_rspbench.rsp.rspql import parse
    >>> from pytest_rspbench.oracle.t0.solutions import _algebra
    >>> q = parse('''PREFIX : <http://e/> REGISTER RStream :o AS
    ...   SELECT ?k (AVG(?v) AS ?a) (COUNT(*) AS ?n)
    ...   FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 5]
    ...   WHERE { WINDOW :w { ?x :p ?v ; :g ?k FILTER(?v > 1) } } GROUP BY ?k''')
    >>> s = shape_of(_algebra(q))
    >>> dict(s.keys), dict(s.values)
    ({'k': 'k'}, {'a': ('avg', 'v'), 'n': ('count', None)})
    """
    from rdflib.term import URIRef, Variable

    if algebra.name != "SelectQuery" or algebra.get("datasetClause"):
        return None
    node = algebra.p
    if node.name != "Project":
        return None
    projected = {str(v) for v in node.PV}
    node = node.p
    renamed: dict[str, str] = {}
    while node.name == "Extend":
        if not isinstance(node.expr, Variable):
            return None
        renamed[str(node.expr)] = str(node.var)
        node = node.p
    if node.name != "AggregateJoin" or node.p.name != "Group":
        return None
    group = node.p
    group_by = group.expr or []
    if not all(isinstance(v, Variable) for v in group_by):
        return None
    keys: dict[str, str] = {}
    values: dict[str, tuple[str, str | None]] = {}
    for aggregate in node.A:
        out = renamed.get(str(aggregate.res))
        if out is None:
            continue
        if aggregate.name == "Aggregate_Sample" and isinstance(aggregate.vars, Variable):
            if aggregate.vars not in group_by:
                return None
            keys[out] = str(aggregate.vars)
            continue
        function = FUNCTIONS.get(aggregate.name)
        if function is None or aggregate.distinct:
            return None
        if aggregate.vars == "*" and function == "count":
            values[out] = (function, None)
        elif isinstance(aggregate.vars, Variable):
            values[out] = (function, str(aggregate.vars))
        else:
            return None
    if set(keys) | set(values) != projected or not values:
        return None
    if {str(v) for v in group_by} - set(keys.values()):
        return None  # a group key not projected: groups could merge in the output
    inner = group.p
    if inner.name != "Graph" or not isinstance(inner.term, URIRef):
        return None
    return Shape(str(inner.term), keys, values, inner.p)


def applies(semantics: Any) -> bool:
    """Is each relation the whole window's content (window close, RStream:
    :func:`pytest_rspbench.rsp.policy.whole_windows`)?"""
    return whole_windows(semantics)


def solutions(ctx: Any, shape: Shape) -> Any:
    """The window's solutions as one factor, every FILTER applied exactly.

    Raises UnsupportedQueryError when that cannot be had.
    """
    from pytest_rspbench.oracle.sparql.expressions import variables_read
    from pytest_rspbench.oracle.sparql.patterns import _conjuncts
    from pytest_rspbench.oracle.sparql.patterns import _filtered as filtered
    from pytest_rspbench.oracle.t0.spans import _bgp

    conditions = []
    node = shape.pattern
    while node.name == "Filter":
        conditions.extend(_conjuncts(node.expr))
        node = node.p
    if node.name != "BGP" or shape.window not in ctx.specs:
        raise UnsupportedQueryError("the aggregate's pattern is not a window's BGP and FILTERs")
    spanned = _bgp(ctx, node, shape.window)
    if len(spanned.factors) != 1:
        raise UnsupportedQueryError("the aggregate's pattern is a product")
    factor = spanned.factors[0]
    for condition in conditions:
        needs = variables_read(condition)
        if needs is None or not needs <= factor.known:
            raise UnsupportedQueryError("a FILTER reads more than the solution")
        factor = replace(factor, df=filtered(factor.relation(), condition).df)
    return factor


def value_opens(
    spark: Any,
    ctx: Any,
    algebra: Any,
    semantics: Any,
    relations: Sequence[tuple[int, Sequence[Mapping[str, str]]]],
    by_value: bool,
    tolerance: float,
) -> Placed:
    """Per relation number, the window opens its aggregate values allow.

    Returns a :class:`Placed`; its ``window`` is -1 when the query or
    profile is not one this sweep models.
    """
    shape = shape_of(algebra)
    if shape is None or not applies(semantics) or shape.window not in ctx.specs:
        return Placed()
    index = list(ctx.specs).index(shape.window)
    try:
        factor = solutions(ctx, shape)
    except UnsupportedQueryError:
        return Placed()
    wanted = _constraints(shape, relations, by_value)
    if not wanted:
        return Placed()
    groups = _groups(factor, shape, index, {key for _, _, key, _, _ in wanted})
    if groups is None:
        return Placed()
    steps: dict[tuple[Any, str, str | None], list[tuple[int, int, Any]]] = {}
    allowed: dict[int, list[Interval] | None] = {}
    grouped = bool(shape.keys)
    used: set[tuple[int, int]] = set()  # (relation, binding) that placed something
    for number, at, key, out, value in wanted:
        function, source = shape.values[out]
        rows = groups.get(key)
        if rows is None:
            if grouped:
                allowed[number] = []  # a group no solution has: no window holds it
                used.add((number, at))
            continue
        if rows is False:
            continue  # inputs that are not all numbers: not modelled
        used.add((number, at))
        table = steps.get((key, function, source))
        if table is None:
            table = steps[(key, function, source)] = sweep(rows, function, source)
        zero = function in ("count", "sum", "avg") and abs(value) <= tolerance + RELATIVE
        pieces = matching(table, value, tolerance, not grouped and zero)
        before = allowed.get(number)
        allowed[number] = pieces if before is None else intersect(before, pieces)
    whole = frozenset(
        number
        for number, bindings in relations
        if grouped and all((number, at) in used for at in range(len(bindings)))
    )
    return Placed(index, {n: p for n, p in allowed.items() if p is not None}, whole)


@dataclass(frozen=True)
class Placed:
    """What an aggregate's values say about where relations' windows open.

    Attributes:
        window: the index of the window they place; -1 when the sweep does
            not model the query or profile (then nothing is placed).
        opens: per relation number, the opens its values allow (sorted,
            disjoint intervals).
        whole: the relations whose every binding was placed by the values
            of its group. For those, the content narrowing can add nothing:
            a group's value is defined only at opens whose window holds one
            of its solutions, which is all that placing its key would say.
    """

    window: int = -1
    opens: Mapping[int, list[Interval]] = field(default_factory=dict)
    whole: frozenset[int] = frozenset()


def _constraints(
    shape: Shape, relations: Sequence[tuple[int, Sequence[Mapping[str, str]]]], by_value: bool
) -> list[tuple[int, int, tuple[str, ...], str, float]]:
    """``(relation, binding's position, group key, output variable, value)``
    of every usable binding."""
    from pytest_rspbench.rsp.terms import numeric_value

    out = []
    names = sorted(shape.keys)
    for number, bindings in relations:
        for at, binding in enumerate(bindings):
            found = [binding.get(name) for name in names]
            if any(k is None for k in found):
                continue
            key = tuple(str(k) for k in found)
            if by_value and any(str(k).startswith('"') for k in key):
                continue  # a literal key may match another lexical form
            for name, (_, _) in shape.values.items():
                term = binding.get(name)
                value = None if term is None else numeric_value(str(term))
                if value is None or math.isnan(float(value)):
                    continue
                out.append((number, at, key, name, float(value)))
    return out


def _groups(
    factor: Any, shape: Shape, index: int, keys: set[tuple[str, ...]]
) -> dict[tuple[str, ...], Any] | None:
    """Per group key the engine names: its solutions ``(lo, hi, inputs)``, or
    False when an input is not a number. None when a named group has one
    solution mapping twice (a triple repeated in the stream: the window, a
    set of triples, holds it once, the sweep would count it twice).

    One Spark job marks the solutions whose mapping occurs twice (a count
    over a window partitioned by every variable) and sends the columns the
    sweep reads to the driver as Arrow: no group is ever one row, however
    many solutions it has.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from pytest_rspbench.rsp.terms import numeric_value

    names = sorted(shape.keys)
    sources = sorted({s for _, s in shape.values.values() if s is not None})
    mapping = Window.partitionBy(*[F.col(f"v_{v}") for v in sorted(factor.known)])
    columns = [F.col(f"v_{shape.keys[n]}").alias(f"key_{k}") for k, n in enumerate(names)]
    columns += [F.col(f"v_{s}").alias(f"in_{k}") for k, s in enumerate(sources)]
    columns += [
        F.col(f"lo_{index}").alias("lo"),
        F.col(f"hi_{index}").alias("hi"),
        (F.count(F.lit(1)).over(mapping) > 1).alias("twice"),
    ]
    table = factor.df.select(*columns).toArrow().to_pydict()
    found: dict[tuple[str, ...], Any] = {}
    count = len(table["lo"])
    group_keys = list(zip(*[table[f"key_{k}"] for k in range(len(names))], strict=True))
    inputs_of = list(zip(*[table[f"in_{k}"] for k in range(len(sources))], strict=True))
    # No key (no GROUP BY) or no input (COUNT(*)): one empty tuple a row.
    group_keys = group_keys or [()] * count
    inputs_of = inputs_of or [()] * count
    for key, terms, lo, hi, twice in zip(
        group_keys, inputs_of, table["lo"], table["hi"], table["twice"], strict=True
    ):
        if shape.keys and key not in keys:
            continue
        if twice:
            return None
        rows = found.setdefault(key, [])
        if rows is False:
            continue
        inputs: dict[str, float] = {}
        for source, term in zip(sources, terms, strict=True):
            number = None if term is None else numeric_value(str(term))
            if number is None or math.isnan(float(number)):
                found[key] = False
                break
            inputs[source] = float(number)
        else:
            rows.append((int(lo), int(hi), inputs))
    return found


def sweep(
    rows: Sequence[tuple[int, int, Mapping[str, float]]], function: str, source: str | None
) -> list[tuple[int, int, Any]]:
    """The aggregate as a step function of the window open: ``(first, last,
    value)`` pieces; opens whose window holds no solution have none.

    >>> sweep([(-6, 3, {}), (0, 9, {}), (3, 12, {})], "count", None)
    [(-6, -1, 1.0), (0, 2, 2.0), (3, 3, 3.0), (4, 9, 2.0), (10, 12, 1.0)]
    >>> sweep([(0, 4, {"v": 5.0}), (2, 6, {"v": 1.0})], "max", "v")
    [(0, 1, 5.0), (2, 4, 5.0), (5, 6, 1.0)]
    """
    events: list[tuple[int, int, float]] = []  # (open, +1 enter / -1 leave, input)
    for lo, hi, inputs in rows:
        x = 1.0 if source is None else inputs[source]
        events.append((lo, 1, x))
        events.append((hi + 1, -1, x))
    events.sort(key=lambda e: e[0])
    sign = {"min": 1.0, "max": -1.0}.get(function)
    pieces: list[tuple[int, int, Any]] = []
    count, total = 0, 0.0
    heap: list[float] = []  # MIN / MAX: the inputs in the window (lazily deleted)
    gone: dict[float, int] = {}
    k = 0
    while k < len(events):
        at = events[k][0]
        while k < len(events) and events[k][0] == at:
            _, step, x = events[k]
            count += step
            total += step * x
            if sign is not None:
                if step > 0:
                    heapq.heappush(heap, sign * x)
                else:
                    gone[sign * x] = gone.get(sign * x, 0) + 1
            k += 1
        if k == len(events):
            break
        if count == 0:
            total, heap, gone = 0.0, [], {}
            continue
        if sign is not None:
            while gone.get(heap[0], 0) > 0:
                gone[heap[0]] -= 1
                heapq.heappop(heap)
            value = sign * heap[0]
        elif function == "count":
            value = float(count)
        else:
            value = total if function == "sum" else total / count
        pieces.append((at, events[k][0] - 1, value))
    return pieces


def matching(
    pieces: Sequence[tuple[int, int, Any]], value: float, tolerance: float, empty: bool
) -> list[Interval]:
    """The opens whose aggregate is ``value``. ``empty``: a window that holds
    no solution gives ``value`` too (without GROUP BY, COUNT, SUM and AVG
    of nothing are 0).

    >>> matching([(0, 2, 2.0), (3, 3, 3.0), (4, 9, 2.0)], 2.0, 0.0, False)
    [(0, 2), (4, 9)]
    >>> matching([(0, 2, 2.0), (5, 9, 1.0)], 0.0, 0.0, True)
    [(-9223372036854775808, -1), (3, 4), (10, 9223372036854775807)]
    """
    margin = tolerance + RELATIVE * max(1.0, abs(value))
    out: list[Interval] = []
    last = -(2**63)
    for first, end, got in pieces:
        if empty and first > last:
            out.append((last, first - 1))
        if abs(got - value) <= margin:
            out.append((first, end))
        last = end + 1
    if empty:
        out.append((last, 2**63 - 1))
    return _merged(out)


def _merged(pieces: Sequence[Interval]) -> list[Interval]:
    out: list[Interval] = []
    for lo, hi in sorted(pieces):
        if lo > hi:
            continue
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def intersect(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    """The intersection of two sorted lists of disjoint intervals.

    >>> intersect([(0, 10), (20, 30)], [(5, 25)])
    [(5, 10), (20, 25)]
    """
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out
