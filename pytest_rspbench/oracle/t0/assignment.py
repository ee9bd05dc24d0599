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

import bisect
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_rspbench.oracle.spark.local import local_frame
from pytest_rspbench.oracle.t0 import evaluations as ev
from pytest_rspbench.oracle.t0.planning import ClassPlan, Specs, Timeline

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
    stream_df: Any, specs: Specs, assign: Assign, distinct: frozenset[str] = frozenset()
) -> Any:
    """DataFrame (cls, win, w, count): distinct triples per evaluation and window.

    Streams in ``distinct`` hold no triple twice, so their rows need no
    de-duplication (a shuffle of every triple). When each of them also knows
    its per-time counts, :func:`local_counts` needs no Spark job at all.
    """
    rows = window_rows(stream_df, specs, assign, "w")
    if not all(stream in distinct for stream, _ in specs.values()):
        rows = rows.dropDuplicates()
    return rows.groupBy("cls", "win", "w").count()


def local_counts(
    plans: Sequence[ClassPlan], specs: Specs, timelines: Mapping[str, Timeline]
) -> dict[tuple[int, int, str], int] | None:
    """(cls, win, w) -> count, as :func:`triple_counts`, with no Spark job.

    When every windowed stream holds no triple twice and knows each event
    time's triple count, a window's count is the sum of its times' counts:
    two binary searches in the times and a difference of running sums per
    evaluation and window. None when a stream does not allow it (the caller
    asks Spark). Windows with no triple are left out, as Spark's grouping
    leaves them out.
    """
    axes: dict[str, tuple[Sequence[int], list[int]]] = {}
    for stream, _ in specs.values():
        timeline = timelines.get(stream)
        if timeline is None:
            continue  # no events: every window of it is empty
        if not timeline.distinct or timeline.sizes is None:
            return None
        if stream not in axes:
            axes[stream] = (timeline.times, [0, *itertools.accumulate(timeline.sizes)])
    counts: dict[tuple[int, int, str], int] = {}
    for k, plan in enumerate(plans):
        t0s = {w.name: w.t0 for w in plan.windows}
        for n, evaluation in enumerate(plan.evaluations):
            for name, active in evaluation.active.items():
                stream, spec = specs[name]
                if stream not in axes or active.index < 0:
                    continue
                times, running = axes[stream]
                o, c = spec.window(active.index, t0s[name])
                high = c - spec.bounds.open_end
                if active.upper is not None:
                    high = min(high, active.upper)
                first = bisect.bisect_left(times, o + spec.bounds.open_start)
                count = running[bisect.bisect_right(times, high)] - running[first]
                if count > 0:
                    counts[(k, n, name)] = count
    return counts


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
