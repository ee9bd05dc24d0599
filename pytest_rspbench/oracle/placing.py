"""Which windows can hold an engine's relation: its bindings against the
solution spans of :mod:`.spans`.

Every binding ``b`` of an engine's relation must come from a solution in
that relation's window, so the window opens in the hull of ``I(mu)`` over
the solutions that project onto ``b``; a relation's window opens in the
intersection of its bindings' hulls (per factor, then over the factors).
Everything runs in Spark, one job per factor; per relation one row reaches
the driver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_rspbench.oracle.local import local_columns

if TYPE_CHECKING:
    from pytest_rspbench.oracle.factors import Factor, Spanned


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
    bindings = _bindings(spark, relations, sorted(frozenset().union(*(f.known for f in factors))))
    found: dict[int, list[Opens]] = {}
    for factor in factors:
        for opens in _factor_opens(factor, bindings, by_value):
            found.setdefault(opens.relation, []).append(opens)
    return [_combined(parts) for _, parts in sorted(found.items())]


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


def _factor_opens(factor: Factor, bindings: Any, by_value: bool) -> list[Opens]:
    from pyspark.sql import functions as F

    keys = sorted(factor.known)
    # Each relation's distinct bindings, projected on the factor's variables.
    bindings = bindings.select("j", *[_key_term(f"v_{k}", by_value) for k in keys]).distinct()
    windows = sorted(factor.windows)
    hull = _hull(factor, keys, windows, by_value)
    joined = bindings.join(hull, [f"v_{k}" for k in keys], "left")
    key = F.struct(*[F.col(f"v_{k}").alias(k) for k in keys])
    aggs = [
        F.max(F.when(F.col("_hit").isNull(), 1).otherwise(0)).alias("_missing"),
        F.max_by(key, F.when(F.col("_hit").isNull(), 1).otherwise(0)).alias("_unmatched"),
    ]
    for i in windows:
        fixed = F.col(f"free_{i}") == 0
        aggs += [
            F.max(F.when(fixed, F.col(f"lo_{i}"))).alias(f"L_{i}"),
            F.min(F.when(fixed, F.col(f"hi_{i}"))).alias(f"U_{i}"),
            F.max_by(
                F.struct(
                    key.alias("b"), F.col(f"lo_{i}").alias("lo"), F.col(f"hi_{i}").alias("hi")
                ),
                F.when(fixed, F.col(f"lo_{i}")),
            ).alias(f"Lb_{i}"),
            F.min_by(
                F.struct(
                    key.alias("b"), F.col(f"lo_{i}").alias("lo"), F.col(f"hi_{i}").alias("hi")
                ),
                F.when(fixed, F.col(f"hi_{i}")),
            ).alias(f"Ub_{i}"),
        ]
    from pytest_rspbench.oracle.compiler import collect

    out = []
    for row in collect(joined.groupBy("j").agg(*aggs)):
        bounds = {
            i: (row[f"L_{i}"], row[f"U_{i}"])
            for i in windows
            if row[f"L_{i}"] is not None and row[f"U_{i}"] is not None
        }
        missing = bool(row["_missing"])
        apart = next(
            (
                (row[f"Lb_{i}"].asDict(True), row[f"Ub_{i}"].asDict(True))
                for i, (lo, hi) in bounds.items()
                if lo > hi
            ),
            None,
        )
        unmatched = row["_unmatched"].asDict() if missing else None
        ends = {i: (row[f"Lb_{i}"].asDict(True), row[f"Ub_{i}"].asDict(True)) for i in bounds}
        possible = not missing and apart is None
        out.append(Opens(row["j"], possible, bounds, unmatched, apart, ends))
    return out


def _bindings(
    spark: Any, relations: Sequence[tuple[int, Sequence[Mapping[str, str]]]], names: Sequence[str]
) -> Any:
    """Every binding of every relation, as (j, v_name...) rows (NULL: unbound)."""
    numbers: list[int] = []
    columns: dict[str, list[str | None]] = {name: [] for name in names}
    for number, bindings in relations:
        numbers += [number] * len(bindings)
        for name, column in columns.items():
            column += [b.get(name) for b in bindings]
    schema = "j long, " + ", ".join(f"`v_{name}` string" for name in names)
    return local_columns(spark, [numbers, *columns.values()], schema)


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
