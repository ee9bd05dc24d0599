"""Assign time spans to evaluations: the join between Spark and the plan.

A solution carrying the span ``[t_min, t_max]`` of its triples belongs to
window ``i`` of a class exactly when the whole span lies inside that window
(:meth:`~pytest_rspbench.rsp.windows.WindowSpec.index_range`, interval
arithmetic on columns). The range of indices is exploded per class, then
joined with the small per-class plan to get the keys ``(cls, win)``: ``cls``
the t0 class, ``win`` the evaluation's number within it. An evaluation of an
open window (content-change, periodic) only sees triples up to its instant
(``upper``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytest_rspbench.oracle import evaluations as ev
from pytest_rspbench.oracle.local import local_frame
from pytest_rspbench.oracle.planning import ClassPlan, Specs

Assign = Callable[[Any, str], Any]
"""``assign(df with t_min/t_max, window IRI)``: the rows keyed by (cls, win)."""


def assigner(spark: Any, plans: Sequence[ClassPlan], specs: Specs) -> Assign:
    """Build ``assign(df, window)``: spans -> rows keyed (cls, win = evaluation)."""
    from pyspark.sql import functions as F

    names = list(specs)
    classes_df = _classes_df(spark, plans, names)
    identity = _is_identity(plans, names)
    activity = {} if identity else {n: _activity_df(spark, plans, n) for n in names}

    def assign(df: Any, window: str) -> Any:
        i = names.index(window)
        exploded = _exploded(df, classes_df, specs[window][1], i)
        if identity:
            return exploded.withColumnRenamed("idx", "win")
        joined = exploded.join(F.broadcast(activity[window]), ["cls", "idx"])
        return joined.where(F.col("upper").isNull() | (F.col("t_max") <= F.col("upper"))).drop(
            "idx", "upper"
        )

    return assign


def window_rows(stream_df: Any, specs: Specs, assign: Assign, graph: str) -> Any:
    """Every window's triples per evaluation: ``(cls, win, <graph>, s, p, o)``,
    the column ``graph`` holding the window's IRI."""
    from pyspark.sql import functions as F

    parts = []
    for name, (stream, _) in specs.items():
        spans = stream_df.where(F.col("stream") == stream).select(
            "s", "p", "o", F.col("t").alias("t_min"), F.col("t").alias("t_max")
        )
        parts.append(
            assign(spans, name).select("cls", "win", F.lit(name).alias(graph), "s", "p", "o")
        )
    union = parts[0]
    for part in parts[1:]:
        union = union.unionByName(part)
    return union


def triple_counts(
    stream_df: Any,
    specs: Specs,
    assign: Assign,
    distinct: frozenset[str] = frozenset(),
    sizes: Any = None,
) -> Any:
    """DataFrame (cls, win, w, count): distinct triples per evaluation and window.

    Streams in ``distinct`` hold no triple twice, so their rows need no
    de-duplication (a shuffle of every triple). When, in addition, ``sizes``
    (``(stream, t, n)``, each event time's triple count) is given, a
    window's count is the sum of its times' counts: the same assignment runs
    over one row per event time instead of one per triple, and the stream
    is not read at all.
    """
    from pyspark.sql import functions as F

    if not all(stream in distinct for stream, _ in specs.values()):
        return (
            window_rows(stream_df, specs, assign, "w")
            .dropDuplicates()
            .groupBy("cls", "win", "w")
            .count()
        )
    if sizes is None:
        return window_rows(stream_df, specs, assign, "w").groupBy("cls", "win", "w").count()
    parts = []
    for name, (stream, _) in specs.items():
        spans = sizes.where(F.col("stream") == stream).select(
            "n", F.col("t").alias("t_min"), F.col("t").alias("t_max")
        )
        parts.append(assign(spans, name).select("cls", "win", F.lit(name).alias("w"), "n"))
    union = parts[0]
    for part in parts[1:]:
        union = union.unionByName(part)
    return union.groupBy("cls", "win", "w").agg(F.sum("n").cast("long").alias("count"))


def _classes_df(spark: Any, plans: Sequence[ClassPlan], names: list[str]) -> Any:
    """One row per class: each window's t0 and the last index it reads."""
    return local_frame(
        spark,
        [
            (k, *p.first, *(ev.last_index(p.evaluations, n) for n in names))
            for k, p in enumerate(plans)
        ],
        ", ".join(
            ["cls int"]
            + [f"t0_{i} long" for i in range(len(names))]
            + [f"last_{i} long" for i in range(len(names))]
        ),
    )


def _exploded(df: Any, classes_df: Any, spec: Any, i: int) -> Any:
    """``df`` once per (class, index ``idx`` of a window holding the span)."""
    from pyspark.sql import functions as F

    def floordiv(a: Any, b: int) -> Any:
        return F.floor(a / F.lit(b)).cast("long")

    lo, hi = spec.index_range(F.col("t_min"), F.col("t_max"), F.col(f"t0_{i}"), floordiv)
    return (
        df.crossJoin(F.broadcast(classes_df.select("cls", f"t0_{i}", f"last_{i}")))
        .withColumn("_lo", F.greatest(lo, F.lit(0).cast("long")))
        .withColumn("_hi", F.least(hi, F.col(f"last_{i}")))
        .where(F.col("_lo") <= F.col("_hi"))
        .withColumn("idx", F.explode(F.sequence("_lo", "_hi")))
        .drop("_lo", "_hi", f"t0_{i}", f"last_{i}")
    )


def _is_identity(plans: Sequence[ClassPlan], names: list[str]) -> bool:
    """One window, window-close: evaluation number == window index."""
    if len(names) != 1:
        return False
    return all(
        e.active[names[0]].index == n and e.active[names[0]].upper is None
        for p in plans
        for n, e in enumerate(p.evaluations)
    )


def _activity_df(spark: Any, plans: Sequence[ClassPlan], name: str) -> Any:
    """(cls, idx, win, upper): which evaluation reads window ``idx`` of ``name``."""
    rows = [
        (k, e.active[name].index, n, e.active[name].upper)
        for k, p in enumerate(plans)
        for n, e in enumerate(p.evaluations)
        if name in e.active
    ]
    return local_frame(spark, rows, "cls int, idx long, win int, upper long")
