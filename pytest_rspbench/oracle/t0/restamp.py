"""A plan of count and session windows as the Spark job takes it.

:mod:`.axes` plans a query with count or session windows: ET, and each
named window as a time window over its axis. Here that plan becomes what
:func:`.solutions.solve` runs, unchanged: a :class:`~.planning.Planned`
whose evaluations read each window's axis windows (one evaluation per step
and correct content under ``count_ties: any``), and the streams' rows
restamped on each window's axis, each window reading a stream of its own::

    stream rows   (s, p, o, t, e, q)
    time window   (stream,            s, p, o, t)
    rows window   (axis:<window IRI>, s, p, o, e)         time order
    session       (axis:<window IRI>, s, p, o, session of t)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from pytest_rspbench.oracle.t0 import evaluations as ev
from pytest_rspbench.oracle.t0 import sequence as seq
from pytest_rspbench.oracle.t0.axes import Plan
from pytest_rspbench.oracle.t0.planning import ClassPlan, Planned, Timeline


def virtual_plan(plan_: Plan) -> tuple[Planned, list[list[range]]]:
    """The plan as :func:`.solutions.solve` takes it: every window on its axis,
    one evaluation per step and correct content (a product over the windows
    whose slide has several); and per class and step, its evaluations."""
    specs = {a.name: (a.source, a.spec) for a in plan_.axes}
    plans, numbers = [], []
    for (first, last), listed in zip(plan_.classes, plan_.steps, strict=True):
        t0s = dict(zip((a.name for a in plan_.axes if a.kind == "time"), first, strict=True))
        windows = tuple(
            ev.NamedWindow(a.name, a.source, a.spec, t0s.get(a.name, a.t0)) for a in plan_.axes
        )
        evaluations: list[ev.Evaluation] = []
        ranges = []
        for step in listed:
            options = [
                [(name, index) for index in _options(plan_, name, shown)]
                for name, shown in step.shown.items()
            ]
            begin = len(evaluations)
            for combo in itertools.product(*options):
                active = {name: ev.Active(index, None) for name, index in combo}
                evaluations.append(ev.Evaluation(step.time, step.triggers, active))
            ranges.append(range(begin, len(evaluations)))
        firsts = tuple(w.t0 for w in windows)
        lasts = tuple(last[list(t0s).index(w.name)] if w.name in t0s else w.t0 for w in windows)
        plans.append(ClassPlan(firsts, lasts, windows, tuple(evaluations)))
        numbers.append(ranges)
    return Planned(specs, plans, plan_.stable_from, None), numbers


def _options(plan_: Plan, name: str, shown: seq.Shown) -> tuple[int, ...]:
    """The axis windows a window may show at a step: one, or one per correct content."""
    if shown.choices:
        return plan_.choices[name][shown.number]
    return (shown.index,)


def axis_frame(spark: Any, plan_: Plan, df: Any) -> Any:
    """Every window's rows on its axis: ``(stream, s, p, o, t)`` with
    ``stream`` the window's :attr:`Axis.source` and ``t`` its axis value.

    ``df`` is the streams' :data:`~.streamcache.POSITIONED` frame, its ``t``
    on the engine's clock.
    """
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.spark.local import local_frame

    parts = []
    for a in plan_.axes:
        rows = df.where(F.col("stream") == a.stream)
        if a.restamp == "t":
            stamped = rows.select("s", "p", "o", "t")
        elif a.restamp in ("e", "q"):
            stamped = rows.select("s", "p", "o", F.col(a.restamp).alias("t"))
        elif a.restamp == "arrival":
            table = local_frame(spark, plan_.arrival.get(a.name, ()), "e long, a long")
            value = F.col("a") if a.kind == "rows" else F.col("q") + F.col("a")
            stamped = rows.join(F.broadcast(table), "e").select("s", "p", "o", value.alias("t"))
        else:
            table = local_frame(spark, plan_.sessions.get(a.name, ()), "t long, n long")
            stamped = rows.join(F.broadcast(table), "t").select(
                "s", "p", "o", F.col("n").alias("t")
            )
        if a.name in plan_.copies:
            table = local_frame(spark, plan_.copies[a.name], "pos long, v long")
            copied = stamped.join(F.broadcast(table), stamped["t"] == table["pos"])
            stamped = stamped.unionByName(copied.select("s", "p", "o", F.col("v").alias("t")))
        parts.append(stamped.select(F.lit(a.source).alias("stream"), "s", "p", "o", "t"))
    union = parts[0]
    for part in parts[1:]:
        union = union.unionByName(part)
    return union


def axis_timelines(plan_: Plan, timelines: Mapping[str, Timeline]) -> dict[str, Timeline]:
    """Every window source's timeline: a time window's stream's own (on the
    engine's clock), the others' axes."""
    out = dict(plan_.timelines)
    for a in plan_.axes:
        if a.kind == "time" and a.stream in timelines:
            out[a.source] = timelines[a.stream]
    return out


def axis_stars(plan_: Plan, stars: Mapping[str, Any]) -> dict[str, Any]:
    """The property tables (:mod:`..sparql.stars`) the job's rows keep: a time
    window's stream's, its rows not restamped. Count and session windows
    read restamped rows (ordinals, session numbers, copies at ties), which a
    table of event times does not hold: their patterns read the triples."""
    return {
        a.source: stars[a.stream]
        for a in plan_.axes
        if a.kind == "time" and a.restamp == "t" and a.stream in stars
    }
