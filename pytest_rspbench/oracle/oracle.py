"""Compute the expected output of a case on Spark.

Given the streams, the RSP-QL query and the engine profile, the oracle
computes what an engine with that profile must output (RSP-QL Def. 24-26,
CSRBench §6): for each t0 class, the relations streamed out at each
evaluation. All evaluations of all classes are computed in one Spark job:
solutions carry the time span of the triples they use and are assigned to
evaluations by interval arithmetic (:mod:`pytest_rspbench.rsp.windows`) and a
join with the small per-class evaluation plan (:mod:`.evaluations`).
"""

from __future__ import annotations

import functools
import itertools
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.errors import OracleError, UnsupportedQueryError
from pytest_rspbench.oracle import evaluations as ev
from pytest_rspbench.oracle import r2s, store
from pytest_rspbench.oracle.datatypes import Collector
from pytest_rspbench.oracle.expected import ExpectedOutput, T0Class
from pytest_rspbench.oracle.narrowing import Narrowed, Reported, narrow
from pytest_rspbench.rsp.rspql import RspqlQuery
from pytest_rspbench.oracle.streamcache import SCHEMA as STREAM_SCHEMA
from pytest_rspbench.oracle.streamcache import StreamCache
from pytest_rspbench.stream.model import Stream, Triple
from pytest_rspbench.rsp.windows import Bounds, WindowSpec

MAX_CLASSES = 50_000


@dataclass(frozen=True)
class Timeline:
    """What the oracle needs to know about one stream's time axis."""

    start: int
    end: int
    times: tuple[int, ...]
    datatypes: dict[str, list[str]] | None = None
    distinct: bool = False
    """No triple occurs twice in the stream (so windows need no de-duplication)."""


@dataclass(frozen=True)
class ClassPlan:
    """One t0 class: the t0 of each window and its evaluations."""

    first: tuple[int, ...]
    last: tuple[int, ...]
    windows: tuple[ev.NamedWindow, ...]
    evaluations: tuple[ev.Evaluation, ...]


def expected_output(
    spark: Any,
    query: RspqlQuery,
    streams: Sequence[Stream],
    semantics: Semantics,
    static: Iterable[Triple] = (),
    starts: dict[str, int] | None = None,
    force_fallback: bool = False,
    cache: StreamCache | None = None,
    keep: bool = False,
    reported: Reported | None = None,
) -> ExpectedOutput:
    """Compute the expected output for every t0 class of the query's windows.

    With a ``cache`` the streams are read from Parquet datasets, written on
    the first use (:mod:`~pytest_rspbench.oracle.streamcache`); without one
    they are built in memory (small streams in tests). With a cache and
    ``keep``, the output is stored next to the streams and read back when
    the same computation comes again (:mod:`.store`). ``spark`` is a
    SparkSession or a function returning one, called only when Spark is
    needed (a stored output of cached streams needs none). ``reported``: the
    times and windows the engine reported, used to narrow a large number of
    t0 classes to those that can explain them (:mod:`.narrowing`).
    """
    began = time.perf_counter()
    ev.base_policy(semantics)
    static_list = list(static)
    starts = starts or {}

    def stored_as(entries: dict[str, str], planned: _Planned) -> str:
        return store.key(
            query.text,
            semantics,
            [(s.iri, entries[s.iri], s.end, starts.get(s.iri, 0)) for s in streams],
            static_list,
            force_fallback,
            classes=planned.selection,
        )

    keeping = cache if keep else None
    planned = None
    if keeping is not None and (known := _cached(keeping, streams, starts)) is not None:
        entries, timelines = known
        planned = _planned(query, semantics, timelines, reported)
        if (stored := store.load(keeping.root, stored_as(entries, planned))) is not None:
            return stored
    spark = spark() if callable(spark) else spark
    stream_df, timelines, entries = _stream_frame(spark, streams, starts, cache)
    if planned is None:
        planned = _planned(query, semantics, timelines, reported)
    entry = None
    if keeping is not None:
        entry = stored_as(entries, planned)
        if (stored := store.load(keeping.root, entry)) is not None:
            return stored
    specs, plans = planned.specs, planned.plans
    static_df = (
        spark.createDataFrame(static_list, "s string, p string, o string")
        if static_list
        else None
    )
    assign = _assigner(spark, plans, specs)
    distinct = frozenset(iri for iri, t in timelines.items() if t.distinct)
    counts_df = _triple_counts(stream_df, specs, assign, distinct)
    evaluator, reason = "spark-dataframe", ""
    try:
        if force_fallback:
            raise UnsupportedQueryError("the fallback was requested")
        from pytest_rspbench.oracle.compiler import Context
        from pytest_rspbench.oracle.datatypes import Ranks, collect

        evaluations = spark.createDataFrame(
            [(k, n) for k, p in enumerate(plans) for n in range(len(p.evaluations))],
            "cls int, win int",
        )
        tables: dict[str | None, Any] = {
            iri: t.datatypes for iri, t in timelines.items() if t.datatypes is not None
        }
        tables[None] = collect(static_list)
        context = Context(
            stream_df,
            static_df,
            specs,
            assign,
            evaluations,
            datatypes=Ranks(tables),
            distinct=distinct,
        )
        triples, bags = _compiled(query, context, counts_df)
    except UnsupportedQueryError as exc:
        evaluator, reason = "spark-pyoxigraph", str(exc)
        triples = {
            (r["cls"], r["win"], r["w"]): r["count"] for r in counts_df.collect()
        }
        bags = _fallback(query, stream_df, specs, assign, static_list)
    classes = tuple(
        T0Class(
            plan.first[0],
            plan.last[0],
            _relations(k, plan, triples, bags, query, semantics),
        )
        for k, plan in enumerate(plans)
    )
    narrowed = planned.narrowed
    expected = ExpectedOutput(
        classes,
        planned.stable_from,
        evaluator,
        reason,
        time.perf_counter() - began,
        t0_classes=narrowed.total if narrowed else len(classes),
        narrowing=narrowed.reason if narrowed else "",
    )
    if cache is not None and entry is not None:
        store.save(cache.root, entry, expected)
    return expected


def _relations(k, plan, triples, bags, query, semantics):
    rows = []
    for number, evaluation in enumerate(plan.evaluations):
        trigger = next(w for w in plan.windows if w.name == evaluation.trigger)
        index = evaluation.active[trigger.name].index
        o, c = trigger.spec.window(index, trigger.t0)
        counts = [triples.get((k, number, name), 0) for name in evaluation.active]
        triggering = sum(
            triples.get((k, number, name), 0) for name in evaluation.triggers
        )
        if "non-empty-content" in semantics.report and triggering == 0:
            continue
        rows.append(
            (index, evaluation.time, o, c, sum(counts), bags.get((k, number), ()))
        )
    return r2s.stream_out(rows, query.r2s, semantics)


def _stream_frame(
    spark: Any,
    streams: Sequence[Stream],
    starts: dict[str, int],
    cache: StreamCache | None,
) -> tuple[Any, dict[str, Timeline], dict[str, str]]:
    """The streams as one DataFrame (:data:`STREAM_SCHEMA`), their timelines
    and, with a cache, each stream's content digest."""
    if cache is None:
        rows, timelines = _rows(streams, starts)
        return spark.createDataFrame(rows, STREAM_SCHEMA), timelines, {}
    frames, timelines, entries = [], {}, {}
    for stream in streams:
        stored = cache.materialise(spark, stream)
        entries[stream.iri] = stored.content or stored.path.name
        frames.append(stored.frame(spark))
        if stored.times:
            timelines[stream.iri] = _timeline(stream, stored, starts)
    if not frames:
        return spark.createDataFrame([], STREAM_SCHEMA), timelines, entries
    union = functools.reduce(lambda a, b: a.unionByName(b), frames)
    return union, timelines, entries


def _cached(
    cache: StreamCache, streams: Sequence[Stream], starts: dict[str, int]
) -> tuple[dict[str, str], dict[str, Timeline]] | None:
    """Each stream's content digest and timeline, if all are cached under
    their source's key (known without reading or writing anything)."""
    entries, timelines = {}, {}
    for stream in streams:
        found = cache.lookup(stream)
        if found is None:
            return None
        entries[stream.iri] = found.content or found.path.name
        if found.times:
            timelines[stream.iri] = _timeline(stream, found, starts)
    return entries, timelines


def _timeline(stream: Stream, stored: Any, starts: dict[str, int]) -> Timeline:
    end = stream.end if stream.end is not None else stored.times[-1]
    return Timeline(
        starts.get(stream.iri, 0), end, stored.times, stored.datatypes, stored.distinct
    )


@dataclass(frozen=True)
class _Planned:
    """The windows, the t0 classes to compute and where comparison starts."""

    specs: dict[str, tuple[str, WindowSpec]]
    plans: list[ClassPlan]
    stable_from: int
    narrowed: Narrowed | None

    @property
    def selection(self) -> list[list[int]] | None:
        """The t0 of each computed class when narrowed (part of the store key)."""
        if self.narrowed is None:
            return None
        return [list(p.first) for p in self.plans]


def _planned(
    query: RspqlQuery,
    semantics: Semantics,
    timelines: dict[str, Timeline],
    reported: Reported | None,
) -> _Planned:
    specs = {
        w.name: (w.stream, WindowSpec(w.width, w.slide, Bounds(semantics.bounds)))
        for w in query.windows
    }
    for name, (stream, _) in specs.items():
        if stream not in timelines:
            raise OracleError(
                f"window <{name}> reads stream <{stream}>, which has no events"
            )
    end = max(timelines[s].end for s, _ in specs.values())
    plans = _plans(query, specs, timelines, semantics, end)
    stable_from = max(timelines[s].start + spec.slide - 1 for s, spec in specs.values())
    if semantics.t0 != "any":
        stable_from = min(p.first[0] for p in plans)
    narrowed = None if reported is None else narrow(plans, reported, stable_from)
    if narrowed is not None:
        plans = [plans[k] for k in narrowed.chosen]
    return _Planned(specs, plans, stable_from, narrowed)


def _rows(
    streams: Sequence[Stream], starts: dict[str, int]
) -> tuple[list[tuple[str, str, str, str, int]], dict[str, Timeline]]:
    rows: list[tuple[str, str, str, str, int]] = []
    timelines = {}
    for stream in streams:
        times: list[int] = []
        datatypes = Collector()
        seen: set[tuple[str, str, str]] = set()
        count = 0
        for event in stream.events():
            if not times or times[-1] != event.time:
                times.append(event.time)
            rows.extend((stream.iri, s, p, o, event.time) for s, p, o in event.triples)
            datatypes.add(event.triples)
            seen.update(event.triples)
            count += len(event.triples)
        if times:
            end = stream.end if stream.end is not None else times[-1]
            timelines[stream.iri] = Timeline(
                starts.get(stream.iri, 0),
                end,
                tuple(times),
                datatypes.result(),
                len(seen) == count,
            )
    return rows, timelines


def _plans(query, specs, timelines, semantics, end) -> list[ClassPlan]:
    """The t0 classes (RSP-QL Theorem 1; product over windows) and their plans."""
    per_window = [
        _candidates(spec, timelines[stream], semantics)
        for stream, spec in specs.values()
    ]
    total = 1
    for candidates in per_window:
        total *= len(candidates)
    if total > MAX_CLASSES:
        raise OracleError(
            f"{total} t0 classes to compute (over {len(specs)} windows); "
            f"the limit is {MAX_CLASSES}.\nHINT: fix t0 in the engine profile "
            "(semantics.t0) if the engine's start is known."
        )
    event_times = {s: t.times for s, t in timelines.items()}
    plans = []
    for combo in itertools.product(*per_window):
        windows = tuple(
            ev.NamedWindow(name, stream, spec, first)
            for (name, (stream, spec)), (first, _) in zip(
                specs.items(), combo, strict=True
            )
        )
        evaluations = tuple(ev.plan(windows, semantics, end, event_times))
        plans.append(
            ClassPlan(
                tuple(c[0] for c in combo),
                tuple(c[1] for c in combo),
                windows,
                evaluations,
            )
        )
    return plans


def _candidates(
    spec: WindowSpec, timeline: Timeline, semantics: Semantics
) -> list[tuple[int, int]]:
    """The t0 classes of one window as ``(first, last)`` candidate starts."""
    if semantics.t0 == "registration":
        return [(timeline.start, timeline.start)]
    if semantics.t0 == "first-event":
        return [(timeline.times[0], timeline.times[0])]
    if isinstance(semantics.t0, int):
        return [(semantics.t0, semantics.t0)]
    if semantics.t0 == "aligned":
        t0 = spec.aligned_t0(timeline.start)
        return [(t0, t0)]
    classes = spec.t0_classes(timeline.times, timeline.start)
    return [(first, nxt - 1) for first, nxt in classes]


def _assigner(spark: Any, plans: Sequence[ClassPlan], specs: dict) -> Any:
    """Build ``assign(df, window)``: spans -> rows keyed (cls, win = evaluation)."""
    from pyspark.sql import functions as F

    names = list(specs)
    classes_df = spark.createDataFrame(
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
    identity = _is_identity(plans, names)
    activity = {} if identity else {n: _activity_df(spark, plans, n) for n in names}

    def floordiv(a: Any, b: int) -> Any:
        return F.floor(a / F.lit(b)).cast("long")

    def assign(df: Any, window: str) -> Any:
        i = names.index(window)
        spec = specs[window][1]
        lo, hi = spec.index_range(
            F.col("t_min"), F.col("t_max"), F.col(f"t0_{i}"), floordiv
        )
        exploded = (
            df.crossJoin(F.broadcast(classes_df.select("cls", f"t0_{i}", f"last_{i}")))
            .withColumn("_lo", F.greatest(lo, F.lit(0).cast("long")))
            .withColumn("_hi", F.least(hi, F.col(f"last_{i}")))
            .where(F.col("_lo") <= F.col("_hi"))
            .withColumn("idx", F.explode(F.sequence("_lo", "_hi")))
            .drop("_lo", "_hi", f"t0_{i}", f"last_{i}")
        )
        if identity:
            return exploded.withColumnRenamed("idx", "win")
        joined = exploded.join(F.broadcast(activity[window]), ["cls", "idx"])
        return joined.where(
            F.col("upper").isNull() | (F.col("t_max") <= F.col("upper"))
        ).drop("idx", "upper")

    return assign


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
    rows = [
        (k, e.active[name].index, n, e.active[name].upper)
        for k, p in enumerate(plans)
        for n, e in enumerate(p.evaluations)
        if name in e.active
    ]
    return spark.createDataFrame(rows, "cls int, idx long, win int, upper long")


def _triple_counts(
    stream_df: Any, specs: dict, assign: Any, distinct: frozenset[str] = frozenset()
) -> Any:
    """DataFrame (cls, win, w, count): distinct triples per evaluation and window.

    Streams in ``distinct`` hold no triple twice, so their rows need no
    de-duplication (a shuffle of every triple).
    """
    from pyspark.sql import functions as F

    parts = []
    for name, (stream, _) in specs.items():
        spans = stream_df.where(F.col("stream") == stream).select(
            "s", "p", "o", F.col("t").alias("t_min"), F.col("t").alias("t_max")
        )
        parts.append(
            assign(spans, name).select(
                "cls", "win", F.lit(name).alias("w"), "s", "p", "o"
            )
        )
    union = parts[0]
    for part in parts[1:]:
        union = union.unionByName(part)
    if not all(stream in distinct for stream, _ in specs.values()):
        union = union.dropDuplicates()
    return union.groupBy("cls", "win", "w").count()


def _compiled(query, context, counts_df):
    """Run the compiled plan; collect counts and solutions in one Spark job.

    A value the plan cannot compute exactly (see :mod:`.numerics`) stops the
    job with UnsupportedQueryError, so the caller falls back to pyoxigraph.
    """
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.compiler import (
        collect,
        compile_select,
        decode_solutions,
        grouped_solutions,
    )

    relation = compile_select(_algebra(query), context)
    names = relation.variables
    solutions = grouped_solutions(relation).select(
        "cls",
        "win",
        "vals",
        F.lit(None).cast("string").alias("w"),
        F.lit(None).cast("long").alias("count"),
    )
    counts = counts_df.select(
        "cls", "win", F.lit(None).cast("string").alias("vals"), "w", "count"
    )
    triples: dict[tuple[int, int, str], int] = {}
    bags: dict[tuple[int, int], list[dict[str, str]]] = defaultdict(list)
    for row in collect(solutions.unionByName(counts)):
        key = (row["cls"], row["win"])
        if row["vals"] is None:
            triples[(*key, row["w"])] = row["count"]
        else:
            bags[key].extend(decode_solutions(names, row["vals"]))
    return triples, bags


def _fallback(query, stream_df, specs, assign, static) -> dict:
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.fallback import evaluate_frame, evaluate_window

    parts = []
    for name, (stream, _) in specs.items():
        spans = stream_df.where(F.col("stream") == stream).select(
            "s", "p", "o", F.col("t").alias("t_min"), F.col("t").alias("t_max")
        )
        parts.append(
            assign(spans, name).select(
                "cls", "win", F.lit(name).alias("g"), "s", "p", "o"
            )
        )
    union = parts[0]
    for part in parts[1:]:
        union = union.unionByName(part)
    # DataFrame API only (no .rdd): the fallback works over Spark Connect too.
    bags = evaluate_frame(union, query.static_sparql, static)
    # Evaluations with no triples produce no group: evaluate the empty dataset
    # once (an aggregate over nothing still yields a row, e.g. COUNT = 0).
    empty = evaluate_window(query.static_sparql, (), static)
    return _WithDefault(bags, empty)


class _WithDefault(dict):
    """A dict whose ``get`` falls back to one shared default value."""

    def __init__(self, data: dict, default: list) -> None:
        super().__init__(data)
        self.default = default

    def get(self, key, default=None):
        return super().get(key, self.default)


def _algebra(query: RspqlQuery) -> Any:
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        return translateQuery(parseQuery(query.static_sparql)).algebra
    except Exception as exc:  # pyparsing/rdflib raise many types
        raise OracleError(
            f"the per-window SPARQL query does not parse: {exc}"
        ) from None
