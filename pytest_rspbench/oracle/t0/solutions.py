"""Every planned evaluation's solutions, in one Spark job.

The per-window SPARQL query (the RSP-QL text with ``WINDOW w {...}`` as
``GRAPH w {...}``) is compiled into one DataFrame plan over all classes and
evaluations (:mod:`.compiler`); what the compiler cannot express, or a value
it cannot compute exactly, makes the oracle evaluate the query per
evaluation with pyoxigraph inside Spark instead (:mod:`.fallback`). Either
way each evaluation also gets the number of distinct triples in each of its
windows (for the report and the non-empty-content policy): summed from the
streams' per-time counts without Spark when no triple repeats
(:func:`.assignment.local_counts`), else counted in the same Spark job.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.errors import OracleError, UnsupportedQueryError
from pytest_rspbench.oracle.spark.local import local_frame
from pytest_rspbench.oracle.store.columns import SolutionTable
from pytest_rspbench.oracle.t0.assignment import (
    Assign,
    assigner,
    local_counts,
    triple_counts,
    window_rows,
)
from pytest_rspbench.oracle.t0.frames import StreamFrame
from pytest_rspbench.oracle.t0.planning import ClassPlan, Planned, Specs
from pytest_rspbench.rsp.parsing import RDFLIB_PARSER
from pytest_rspbench.rsp.rspql import RspqlQuery
from pytest_rspbench.stream.model import Triple

Triples = dict[tuple[int, int, str], int]
"""(cls, win, window IRI) -> number of distinct triples in that window."""
Bags = Mapping[tuple[int, int], Sequence[Mapping[str, str]]]
"""(cls, win) -> the bag of solutions of that evaluation."""


@dataclass(frozen=True)
class Solutions:
    """What one job found, and how.

    Attributes:
        triples: distinct triples per evaluation and window.
        bags: solutions per evaluation (a missing key: none).
        evaluator: "spark-dataframe" (compiled plan) or "spark-pyoxigraph".
        reason: why the compiled plan was not used, if it was not.
    """

    triples: Triples
    bags: Bags
    evaluator: str
    reason: str = ""


@dataclass(frozen=True)
class Job:
    """One job's inputs: the query, the data and the plan it is keyed by."""

    query: RspqlQuery
    static: Sequence[Triple]
    data: StreamFrame
    planned: Planned
    force_fallback: bool = False


def solve(spark: Any, job: Job) -> Solutions:
    """Every planned evaluation's solutions and triple counts."""
    assign = assigner(spark, job.planned.plans, job.planned.specs)
    specs = job.planned.specs
    counted = local_counts(job.planned.plans, specs, job.data.timelines)
    counts_df = None
    if counted is None:
        counts_df = triple_counts(job.data.df, specs, assign, job.data.distinct)
    try:
        triples, bags = _compiled(spark, job, assign, counts_df)
        return Solutions(counted if counted is not None else triples, bags, "spark-dataframe")
    except UnsupportedQueryError as exc:
        if counted is None:
            assert counts_df is not None
            counted = {(r["cls"], r["win"], r["w"]): r["count"] for r in counts_df.collect()}
        bags = _fallback(job, assign)
        return Solutions(counted, bags, "spark-pyoxigraph", str(exc))


def _compiled(spark: Any, job: Job, assign: Assign, counts_df: Any) -> tuple[Triples, Bags]:
    """Run the compiled plan; collect counts (unless ``counts_df`` is None:
    counted without Spark) and solutions in one Spark job.

    A value the plan cannot compute exactly (see :mod:`.numerics`) stops the
    job with UnsupportedQueryError, so the caller falls back to pyoxigraph.
    """
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.sparql.compiler import compile_select

    if job.force_fallback:
        raise UnsupportedQueryError("the fallback was requested")
    relation = compile_select(_algebra(job.query), _context(spark, job, assign))
    names = relation.variables
    none = F.lit(None).cast("string")
    solutions = relation.df.select(
        "cls", "win", *[F.col("v_" + v) for v in names], none.alias("w"),
        F.lit(None).cast("long").alias("count"),
    )  # fmt: skip
    if counts_df is None:
        return _collected(solutions, names)
    counts = counts_df.select(
        "cls", "win", *[none.alias("v_" + v) for v in names], "w", "count"
    )  # fmt: skip
    return _collected(solutions.unionByName(counts), names)


def _context(spark: Any, job: Job, assign: Assign) -> Any:
    """What the compiler needs: data, windows, keys and the literals' datatypes."""
    from pytest_rspbench.oracle.sparql.compiler import Context
    from pytest_rspbench.oracle.sparql.datatypes import Ranks, collect

    plans = job.planned.plans
    evaluations = local_frame(
        spark,
        [(k, n) for k, p in enumerate(plans) for n in range(len(p.evaluations))],
        "cls int, win int",
    )
    tables: dict[str | None, Any] = {
        iri: t.datatypes for iri, t in job.data.timelines.items() if t.datatypes is not None
    }
    tables[None] = collect(job.static)
    return Context(
        job.data.df,
        static_frame(spark, job.static),
        job.planned.specs,
        assign,
        evaluations,
        datatypes=Ranks(tables),
        distinct=job.data.distinct,
        assign_first=assigned_first(plans, job.planned.specs),
        stars=job.data.stars,
    )


ASSIGN_FIRST_COPIES = 2
"""The most evaluations an instant may be read by for a BGP's parts to be
assigned to evaluations before they are joined (Context.assign_first).

Measured at 5 as well (docs/benchmarks.md, 2026-11-28): the self-join over
1M triples in 10 s / 2 s sliding windows (five copies of each part) took
97.5 s assigned first and 100.6 s joined by span, the same CPU time: within
this machine's noise, so the span join, which copies nothing, stays there."""


def assigned_first(plans: Sequence[ClassPlan], specs: Specs) -> frozenset[str]:
    """The windows in which an instant is read by few evaluations.

    An instant lies in up to ``ceil(width / slide)`` windows of each class,
    and a window is read by as many evaluations as report it (one on close,
    several under content-change or periodic reports).
    """
    chosen = set()
    for name, (_, spec) in specs.items():
        per_class = [
            max(
                Counter(e.active[name].index for e in p.evaluations if name in e.active).values(),
                default=0,
            )
            for p in plans
        ]
        windows = -(-spec.width // spec.slide)
        if windows * sum(per_class) <= ASSIGN_FIRST_COPIES:
            chosen.add(name)
    return frozenset(chosen)


def static_frame(spark: Any, static: Sequence[Triple]) -> Any:
    """The static triples as a DataFrame ``(s, p, o)``; None when there are none."""
    if not static:
        return None
    return local_frame(spark, list(static), "s string, p string, o string")


def _collected(df: Any, names: Sequence[str]) -> tuple[Triples, Bags]:
    """Counts rows (``w`` set) and solution rows of one job, apart.

    The rows come as Arrow record batches, one column per variable. The
    solutions stay columns (:mod:`.columns`): dictionary-encoded, grouped by
    evaluation and, within one, sorted as R2S orders solutions (by their
    values in the order of the variables' names), all by Arrow; mappings are
    made only if something reads them. Dicts sorted in Python would take
    8.5 s for a 5M-triple self-join's 1.4M solutions, against 3.1 s this way
    (both under cProfile); one JSON text per evaluation instead of Arrow
    batches would take 52.3 s for the job and the decoding of 3 million
    solutions, against 30.0 s (docs/benchmarks.md, 2026-11-28 and
    2026-11-29).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from pytest_rspbench.oracle.sparql.compiler import collect_arrow

    table = collect_arrow(df)
    wanted = ["cls", "win", *("v_" + v for v in names)]
    triples: Triples = {}
    if table.column("w").null_count == table.num_rows:  # no counts: nothing to filter
        rows = table.select(wanted)
    else:  # counted by Spark: a filter copies the rows (a few GB at 50M triples)
        counted = pc.is_valid(table.column("w"))
        counts = table.filter(counted)
        for cls, win, w, count in zip(
            *(counts.column(c).to_pylist() for c in ("cls", "win", "w", "count")), strict=True
        ):
            triples[(cls, win, w)] = count
        rows = table.filter(pc.invert(counted)).select(wanted)
        del counts
    del table  # the job's whole output is not held twice
    if not names:  # each row is the empty solution
        empty: dict[tuple[int, int], list[dict[str, str]]] = defaultdict(list)
        cls, win = rows.column("cls").to_pylist(), rows.column("win").to_pylist()
        for key in zip(cls, win, strict=True):
            empty[key].append({})
        return triples, empty
    source = SolutionTable.of(rows.select(["v_" + v for v in names]))
    keys = {"cls": rows.column("cls"), "win": rows.column("win")}
    del rows
    ranks = {v: _ranks(source.columns["v_" + v]) for v in names}
    order = pc.sort_indices(
        pa.table({**keys, **{"r_" + v: r for v, r in ranks.items()}}),
        sort_keys=[("cls", "ascending"), ("win", "ascending")]
        + [("r_" + v, "ascending") for v in sorted(names)],
    )
    columns = {v: source.columns["v_" + v].take(order) for v in names}
    solutions = SolutionTable(columns)
    sizes = pa.table(keys).group_by(["cls", "win"], use_threads=False).aggregate([("cls", "count")])
    found = sorted(
        zip(
            sizes.column("cls").to_pylist(),
            sizes.column("win").to_pylist(),
            sizes.column("cls_count").to_pylist(),
            strict=True,
        )
    )
    bags: dict[tuple[int, int], Sequence[Mapping[str, str]]] = {}
    at = 0
    for cls, win, size in found:
        bags[(cls, win)] = solutions.bag(at, at + size)
        at += size
    return triples, bags


def _ranks(column: Any) -> Any:
    """Each row's rank among the distinct values of a dictionary column, so
    that sorting the ranks sorts the values (as Python compares text: by code
    point, which UTF-8's bytes keep) without comparing text row by row."""
    import pyarrow.compute as pc

    order = pc.array_sort_indices(column.dictionary)
    inverse = pc.sort_indices(order)  # the rank of each distinct value
    return inverse.take(column.indices)


def _fallback(job: Job, assign: Assign) -> Bags:
    from pytest_rspbench.oracle.sparql.fallback import evaluate_frame, evaluate_window

    sparql = job.query.static_sparql
    union = window_rows(job.data.df, job.planned.specs, assign, "g")
    # DataFrame API only (no .rdd): the fallback works over Spark Connect too.
    bags = evaluate_frame(union, sparql, list(job.static))
    # Evaluations with no triples produce no group: evaluate the empty dataset
    # once (an aggregate over nothing still yields a row, e.g. COUNT = 0).
    empty = evaluate_window(sparql, (), job.static)
    return _WithDefault(bags, empty)


class _WithDefault(dict):
    """A dict whose ``get`` falls back to one shared default value."""

    def __init__(self, data: dict, default: list) -> None:
        super().__init__(data)
        self.default = default

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(key, self.default)


def _algebra(query: RspqlQuery) -> Any:
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        with RDFLIB_PARSER:
            return translateQuery(parseQuery(query.static_sparql)).algebra
    except Exception as exc:  # pyparsing/rdflib raise many types
        raise OracleError(f"the per-window SPARQL query does not parse: {exc}") from None
