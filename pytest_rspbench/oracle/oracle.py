"""Compute the expected output of a case on Spark.

Given the streams, the RSP-QL query and the engine profile, the oracle
computes what an engine with that profile must output (RSP-QL Def. 24-26,
CSRBench §6): for each t0 class, the relations streamed out at each
evaluation. All windows of all classes are computed in one Spark job.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.errors import OracleError, UnsupportedQueryError
from pytest_rspbench.oracle import r2s
from pytest_rspbench.oracle.expected import ExpectedOutput, T0Class
from pytest_rspbench.rspql import RspqlQuery
from pytest_rspbench.stream.model import Stream, Triple
from pytest_rspbench.windows import Bounds, WindowSpec

STREAM_SCHEMA = "stream string, s string, p string, o string, t long"


@dataclass(frozen=True)
class Timeline:
    """What the oracle needs to know about the stream's time axis."""

    start: int
    end: int
    times: frozenset[int]


def expected_output(
    spark: Any,
    query: RspqlQuery,
    streams: Sequence[Stream],
    semantics: Semantics,
    static: Iterable[Triple] = (),
    starts: dict[str, int] | None = None,
    force_fallback: bool = False,
) -> ExpectedOutput:
    """Compute the expected output for every t0 class of the query's window."""
    began = time.perf_counter()
    r2s.check_supported(semantics)
    if len(query.windows) != 1:
        raise UnsupportedQueryError(
            "the oracle handles one window per query so far; this query declares "
            f"{len(query.windows)}"
        )
    decl = query.windows[0]
    spec = WindowSpec(decl.width, decl.slide, Bounds(semantics.bounds))
    rows, timelines = _rows(streams, starts or {})
    timeline = timelines.get(decl.stream)
    if timeline is None:
        raise OracleError(f"stream <{decl.stream}> has no events")
    candidates = _candidates(spec, timeline, semantics)
    static_list = list(static)
    stream_df = spark.createDataFrame(rows, STREAM_SCHEMA)
    static_df = spark.createDataFrame(static_list, "s string, p string, o string") if static_list else None
    classes_df = spark.createDataFrame(
        [(k, t0, _last_index(spec, t0, timeline.end)) for k, (t0, _) in enumerate(candidates)],
        "cls int, t0 long, last long",
    )
    assign = _assigner(classes_df)
    triples_per_window = _triple_counts(stream_df, decl.stream, spec, assign)
    evaluator, reason = "spark-dataframe", ""
    try:
        if force_fallback:
            raise UnsupportedQueryError("the fallback was requested")
        bags = _compiled(query, stream_df, static_df, {decl.name: (decl.stream, spec)}, assign)
    except UnsupportedQueryError as exc:
        evaluator, reason = "spark-pyoxigraph", str(exc)
        bags = _fallback(query, stream_df, decl, spec, assign, static_list, triples_per_window)
    classes = []
    for k, (t0, last_t0) in enumerate(candidates):
        windows = []
        for i in range(_last_index(spec, t0, timeline.end) + 1):
            o, c = spec.window(i, t0)
            windows.append((i, o, c, triples_per_window.get((k, i), 0), bags.get((k, i), ())))
        relations = r2s.stream_out(windows, query.r2s, semantics)
        classes.append(T0Class(t0, last_t0, relations))
    stable_from = candidates[-1][1] if len(candidates) > 1 else candidates[0][0]
    return ExpectedOutput(
        tuple(classes), stable_from, evaluator, reason, time.perf_counter() - began
    )


def _rows(streams: Sequence[Stream], starts: dict[str, int]) -> tuple[list[tuple], dict[str, Timeline]]:  # type: ignore[type-arg]
    rows = []
    timelines = {}
    for stream in streams:
        times = set()
        last = None
        for event in stream.events():
            times.add(event.time)
            last = event.time
            rows.extend((stream.iri, s, p, o, event.time) for s, p, o in event.triples)
        if last is not None:
            end = stream.end if stream.end is not None else last
            timelines[stream.iri] = Timeline(starts.get(stream.iri, 0), end, frozenset(times))
    return rows, timelines


def _candidates(spec: WindowSpec, timeline: Timeline, semantics: Semantics) -> list[tuple[int, int]]:
    """The t0 classes as ``(first, last)`` candidate starts (RSP-QL Theorem 1)."""
    if semantics.t0 == "registration":
        return [(timeline.start, timeline.start)]
    if semantics.t0 == "first-event":
        first = min(timeline.times)
        return [(first, first)]
    if isinstance(semantics.t0, int):
        return [(semantics.t0, semantics.t0)]
    classes = spec.t0_classes(timeline.times, timeline.start)
    return [(first, nxt - 1) for first, nxt in classes]


def _last_index(spec: WindowSpec, t0: int, end: int) -> int:
    indices = spec.closed_by(t0, end)
    return indices[-1] if indices else -1


def _assigner(classes_df: Any) -> Any:
    """Assign spans ``[t_min, t_max]`` to the windows (cls, win) containing them."""
    from pyspark.sql import functions as F

    def floordiv(a: Any, b: int) -> Any:
        return F.floor(a / F.lit(b)).cast("long")

    def assign(df: Any, spec: WindowSpec) -> Any:
        lo, hi = spec.index_range(F.col("t_min"), F.col("t_max"), F.col("t0"), floordiv)
        return (
            df.crossJoin(F.broadcast(classes_df))
            .withColumn("_lo", F.greatest(lo, F.lit(0).cast("long")))
            .withColumn("_hi", F.least(hi, F.col("last")))
            .where(F.col("_lo") <= F.col("_hi"))
            .withColumn("win", F.explode(F.sequence("_lo", "_hi")))
            .drop("_lo", "_hi", "t0", "last")
        )

    return assign


def _triple_counts(stream_df: Any, stream: str, spec: WindowSpec, assign: Any) -> dict[tuple[int, int], int]:
    from pyspark.sql import functions as F

    spans = stream_df.where(F.col("stream") == stream).select(
        "s", "p", "o", F.col("t").alias("t_min"), F.col("t").alias("t_max")
    )
    counted = assign(spans, spec).dropDuplicates(["cls", "win", "s", "p", "o"]).groupBy("cls", "win").count()
    return {(r["cls"], r["win"]): r["count"] for r in counted.collect()}


def _compiled(query: RspqlQuery, stream_df: Any, static_df: Any, windows: dict, assign: Any) -> dict:  # type: ignore[type-arg]
    from pytest_rspbench.oracle.compiler import Context, compile_select

    relation = compile_select(_algebra(query), Context(stream_df, static_df, windows, assign))
    bags: dict[tuple[int, int], list[dict[str, str]]] = defaultdict(list)
    names = relation.variables
    for row in relation.df.collect():
        binding = {v: row["v_" + v] for v in names if row["v_" + v] is not None}
        bags[(row["cls"], row["win"])].append(binding)
    return bags


def _fallback(query, stream_df, decl, spec, assign, static, counts) -> dict:  # type: ignore[no-untyped-def]
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.fallback import evaluate_groups, evaluate_window

    spans = stream_df.where(F.col("stream") == decl.stream).select(
        "s", "p", "o", F.col("t").alias("t_min"), F.col("t").alias("t_max")
    )
    grouped = assign(spans, spec).rdd.map(lambda r: ((r["cls"], r["win"]), (r["s"], r["p"], r["o"]))).groupByKey()
    bags = dict(evaluate_groups(grouped, query.static_sparql, decl.name, static).collect())
    # Windows with no triples produce no group: evaluate the empty window once
    # (an aggregate over nothing still yields a row, e.g. COUNT = 0).
    empty = evaluate_window(query.static_sparql, decl.name, (), static)
    return _with_default(bags, empty)


class _with_default(dict):  # type: ignore[type-arg]
    def __init__(self, data: dict, default: list) -> None:  # type: ignore[type-arg]
        super().__init__(data)
        self.default = default

    def get(self, key, default=None):  # type: ignore[no-untyped-def, override]
        return super().get(key, self.default)


def _algebra(query: RspqlQuery) -> Any:
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        return translateQuery(parseQuery(query.static_sparql)).algebra
    except Exception as exc:  # pyparsing/rdflib raise many types
        raise OracleError(f"the per-window SPARQL query does not parse: {exc}") from None
