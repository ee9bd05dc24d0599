"""Which windows can hold an engine's relation: its bindings against the
solution spans of :mod:`.spans`.

Every binding ``b`` of an engine's relation must come from a solution in
that relation's window, so the window opens in the hull of ``I(mu)`` over
the solutions that project onto ``b``; a relation's window opens in the
intersection of its bindings' hulls (per factor, then over the factors).
Everything runs in Spark, one job for all the factors; per relation and
factor one row reaches the driver. Which bindings make a relation
impossible is asked in a second job, for those relations only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_rspbench.oracle.spark.local import arrow_frame, local_columns

if TYPE_CHECKING:
    from pytest_rspbench.oracle.t0.factors import Factor, Spanned


@dataclass(frozen=True)
class Opens:
    """Where the windows of one engine relation can open, per named window.

    Attributes:
        relation: the relation's position in the engine's output.
        possible: False when some binding comes from no solution, or its
            bindings' solutions never share a window.
        bounds: per window index, ``(L, U)``: the window opens in
            ``[L, U]`` (missing: this relation does not constrain it).
        unmatched: a binding that comes from no solution (when one does not).
        apart: two bindings that no window holds together, with their
            intervals, when ``L > U``.
        ends: per window index, the bindings (with their intervals) that
            set ``L`` and ``U``: where parts of the pattern placed apart
            (:mod:`.sides`) each allow some opens but not together, they
            are the two bindings the report names.
    """

    relation: int
    possible: bool
    bounds: Mapping[int, tuple[int, int]]
    unmatched: Mapping[str, str] | None = None
    apart: tuple[Any, ...] | None = None
    ends: Mapping[int, tuple[Any, Any]] | None = None


def relation_opens(
    spark: Any,
    spanned: Spanned,
    relations: Sequence[tuple[int, Sequence[Mapping[str, str]]]],
    by_value: bool = False,
) -> list[Opens]:
    """For each ``(number, bindings)`` relation, where its windows can open.

    ``by_value``: literals compare by value (any literal may match any
    other: they are not compared). Relations no factor constrains are left
    out of the answer.
    """
    # Nothing to compare, or nothing to place:
    factors = [f for f in spanned.factors if f.known and f.windows]
    if not factors:
        return []
    bindings = _bindings(relations, sorted(frozenset().union(*(f.known for f in factors))))
    distinct = [_distinct(spark, bindings, sorted(f.known), by_value) for f in factors]
    found = _placed(factors, distinct, by_value, detail=False)
    # Which bindings set the bounds, only for the relations found impossible:
    # building them for every binding took YABench's self-join narrowing
    # from 8.6 s to 10.1 s (a warm session).
    unsure = sorted(j for j, o in found.items() if not o.possible)
    if unsure:
        found.update(_placed(factors, distinct, by_value, detail=True, only=unsure))
    return [found[j] for j in sorted(found)]


def _placed(
    factors: Sequence[Factor],
    distinct: Sequence[Any],
    by_value: bool,
    detail: bool,
    only: Sequence[int] | None = None,
) -> dict[int, Opens]:
    """The opens of each relation (those numbered ``only``, if given), over
    every factor, in one Spark job; with ``detail``, the bindings that set
    the bounds and one that comes from no solution."""
    from functools import reduce

    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.sparql.compiler import collect

    windows = sorted(frozenset().union(*(f.windows for f in factors)))
    if only is not None:
        distinct = [d.where(F.col("j").isin(list(only))) for d in distinct]
    frames = [
        _factor_frame(n, f, d, windows, by_value, detail)
        for n, (f, d) in enumerate(zip(factors, distinct, strict=True))
    ]
    found: dict[int, list[Opens]] = {}
    for row in collect(reduce(lambda a, b: a.unionByName(b), frames)):
        opens = _opens_of(row, sorted(factors[row["_f"]].windows), detail)
        found.setdefault(opens.relation, []).append(opens)
    return {j: _combined(parts) for j, parts in found.items()}


def _combined(parts: list[Opens]) -> Opens:
    """One relation's opens over the factors: the intersection of theirs."""
    bounds: dict[int, tuple[int, int]] = {}
    ends: dict[int, list[Any]] = {}
    for part in parts:
        for i, (lo, hi) in part.bounds.items():
            lo_by, hi_by = (part.ends or {}).get(i, (None, None))
            old = bounds.get(i)
            if old is None or lo > old[0]:
                ends.setdefault(i, [None, None])[0] = lo_by
            if old is None or hi < old[1]:
                ends.setdefault(i, [None, None])[1] = hi_by
            bounds[i] = (lo, hi) if old is None else (max(old[0], lo), min(old[1], hi))
    impossible = [p for p in parts if not p.possible]
    first = impossible[0] if impossible else parts[0]
    apart = first.apart
    if apart is None:  # each part allows some opens, but not the same ones
        apart = next((tuple(ends[i]) for i, (lo, hi) in bounds.items() if lo > hi), None)
    possible = not impossible and apart is None
    return Opens(parts[0].relation, possible, bounds, first.unmatched, apart)


_END = "struct<b:map<string,string>,lo:bigint,hi:bigint>"


def _factor_frame(
    number: int,
    factor: Factor,
    bindings: Any,
    all_windows: Sequence[int],
    by_value: bool,
    detail: bool,
) -> Any:
    """One factor's row per relation (``_f``: ``number``), with the columns
    of every window in ``all_windows`` (NULL where the factor uses none):
    whether a binding comes from no solution, and per window the bounds
    ``L_i``, ``U_i`` and, with ``detail``, the bindings that set them and
    one binding that comes from no solution. ``bindings`` is
    :func:`_distinct`'s frame."""
    from pyspark.sql import functions as F

    keys = sorted(factor.known)
    hull = _hull(factor, keys, sorted(factor.windows), by_value)
    joined = bindings.join(hull, [f"v_{k}" for k in keys], "left")
    unmatched = F.when(F.col("_hit").isNull(), 1).otherwise(0)
    aggs = [F.max(unmatched).alias("_missing")]
    # With detail, the bindings as a map: which of them set a bound, which is unmatched.
    key = F.create_map(*[c for k in keys for c in (F.lit(k), F.col(f"v_{k}"))])
    if detail:
        aggs.append(F.max_by(key, unmatched).alias("_unmatched"))
    for i in all_windows:
        if i not in factor.windows:
            none = F.lit(None)
            aggs += [none.cast("bigint").alias(f"L_{i}"), none.cast("bigint").alias(f"U_{i}")]
            if detail:
                aggs += [none.cast(_END).alias(f"Lb_{i}"), none.cast(_END).alias(f"Ub_{i}")]
            continue
        fixed = F.col(f"free_{i}") == 0
        lo, hi = F.col(f"lo_{i}").cast("bigint"), F.col(f"hi_{i}").cast("bigint")
        aggs += [F.max(F.when(fixed, lo)).alias(f"L_{i}"), F.min(F.when(fixed, hi)).alias(f"U_{i}")]
        if detail:
            end = F.struct(key.alias("b"), lo.alias("lo"), hi.alias("hi"))
            aggs += [
                F.max_by(end, F.when(fixed, lo)).alias(f"Lb_{i}"),
                F.min_by(end, F.when(fixed, hi)).alias(f"Ub_{i}"),
            ]
    return joined.groupBy("j").agg(*aggs).select(F.lit(number).alias("_f"), "*")


def _opens_of(row: Any, windows: Sequence[int], detail: bool) -> Opens:
    """The :class:`Opens` of one row of :func:`_factor_frame` (without
    ``detail``, an impossible relation names no bindings)."""

    def end(value: Any) -> dict[str, Any]:
        return {"b": dict(value["b"]), "lo": value["lo"], "hi": value["hi"]}

    bounds = {
        i: (row[f"L_{i}"], row[f"U_{i}"])
        for i in windows
        if row[f"L_{i}"] is not None and row[f"U_{i}"] is not None
    }
    missing = bool(row["_missing"])
    if not detail:
        possible = not missing and all(lo <= hi for lo, hi in bounds.values())
        return Opens(row["j"], possible, bounds)
    ends = {i: (end(row[f"Lb_{i}"]), end(row[f"Ub_{i}"])) for i in bounds}
    apart = next((ends[i] for i, (lo, hi) in bounds.items() if lo > hi), None)
    unmatched = dict(row["_unmatched"]) if missing else None
    return Opens(row["j"], not missing and apart is None, bounds, unmatched, apart, ends)


Columns = tuple[list[int], dict[str, list[str | None]]]


def _bindings(
    relations: Sequence[tuple[int, Sequence[Mapping[str, str]]]], names: Sequence[str]
) -> Columns:
    """Every binding of every relation as columns: the relation numbers, and
    per variable its values (None: unbound)."""
    numbers: list[int] = []
    columns: dict[str, list[str | None]] = {name: [] for name in names}
    for number, bindings in relations:
        numbers += [number] * len(bindings)
        for name, column in columns.items():
            column += [b.get(name) for b in bindings]
    return numbers, columns


def _distinct(spark: Any, bindings: Columns, keys: Sequence[str], by_value: bool) -> Any:
    """Each relation's distinct bindings projected on ``keys``, as a
    DataFrame ``(j, v_key...)`` (literals as one key with ``by_value``).

    The projection and its distinct rows are computed in Arrow before Spark
    sees them: YABench's self-join has 594,000 bindings and 199,000 distinct
    ones per side, and Spark took a job over 50 partitions to drop the rest.
    Text Arrow will not take (not valid Unicode) goes through Spark.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    numbers, columns = bindings
    names = [f"v_{k}" for k in keys]
    try:
        arrays = [pa.array(numbers, pa.int64())]
        for k in keys:
            column = pa.array(columns[k], pa.string())
            if by_value:
                column = pc.if_else(pc.starts_with(column, '"'), pa.scalar('"'), column)
            arrays.append(column)
        table = pa.Table.from_arrays(arrays, ["j", *names])
        table = table.group_by(["j", *names], use_threads=False).aggregate([])
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeEncodeError):
        schema = "j long" + "".join(f", `{n}` string" for n in names)
        df = local_columns(spark, [numbers, *(columns[k] for k in keys)], schema)
        return df.select("j", *[_key_term(n, by_value) for n in names]).distinct()
    return arrow_frame(spark, table.select(["j", *names]))


def _key_term(column: str, by_value: bool) -> Any:
    """The term as compared: with value equality every literal is one key."""
    from pyspark.sql import functions as F

    if not by_value:
        return F.col(column)
    is_literal = F.col(column).startswith('"')
    return F.when(is_literal, F.lit('"')).otherwise(F.col(column)).alias(column)


def _hull(factor: Factor, keys: Sequence[str], windows: Sequence[int], by_value: bool) -> Any:
    """Per distinct key: the hull of its solutions' intervals per window, and
    whether some solution does not use the window (``free_i``: no constraint)."""
    from pyspark.sql import functions as F

    df = factor.df
    if by_value:
        for k in keys:
            name = f"v_{k}"
            df = df.withColumn(
                name, F.when(F.col(name).startswith('"'), F.lit('"')).otherwise(F.col(name))
            )
    aggs = [F.lit(1).alias("_hit")]
    for i in windows:
        aggs += [
            F.min(f"lo_{i}").alias(f"lo_{i}"),
            F.max(f"hi_{i}").alias(f"hi_{i}"),
            F.max(F.when(F.col(f"lo_{i}").isNull(), 1).otherwise(0)).alias(f"free_{i}"),
        ]
    return df.groupBy(*[f"v_{k}" for k in keys]).agg(*aggs[1:]).withColumn("_hit", F.lit(1))
