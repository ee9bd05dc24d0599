"""Run a plain SPARQL query through the compiled plan on one window.

The default graph *is* the window: every triple is a stream triple at time 0
inside one evaluation, so a SPARQL test's data and query run unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

STREAM = "urn:rspbench:test:stream"
WINDOW = "urn:rspbench:test:window"

Triple = tuple[str, str, str]


def context(spark: Any, triples: Iterable[Triple]) -> Any:
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.sparql.compiler import Context
    from pytest_rspbench.oracle.sparql.datatypes import Ranks, collect
    from pytest_rspbench.rsp.windows import Bounds, WindowSpec

    triples = list(triples)
    rows = [(STREAM, s, p, o, 0) for s, p, o in triples]
    stream_df = spark.createDataFrame(rows, "stream string, s string, p string, o string, t long")

    def assign(df: Any, window: str) -> Any:
        return df.withColumn("cls", F.lit(0)).withColumn("win", F.lit(0).cast("long"))

    evaluations = spark.createDataFrame([(0, 0)], "cls int, win long")
    windows = {WINDOW: (STREAM, WindowSpec(1, 1, Bounds.CLOSED_CLOSED))}
    # As the oracle does: the numeric types of the data per predicate.
    ranks = Ranks({STREAM: collect(triples)})
    return Context(
        stream_df,
        None,
        windows,
        assign,
        evaluations,
        default_window=WINDOW,
        datatypes=ranks,
    )


def evaluate(
    spark: Any, sparql: str, triples: Iterable[Triple], base: str | None = None
) -> tuple[list[str], list[dict[str, str]]]:
    """(variables, bag of solutions) of ``sparql`` over ``triples``, compiled."""
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.sparql.compiler import collect, compile_select, translate

    relation = compile_select(translate(sparql, base), context(spark, triples))
    names = list(relation.variables)
    df = (
        relation.df.select(F.array(*[F.col("v_" + v) for v in names]).alias("vals"))
        if names
        else relation.df.select(F.lit(1))
    )
    rows = collect(df)
    if not names:
        return names, [{} for _ in rows]
    return names, [
        {v: x for v, x in zip(names, row["vals"], strict=True) if x is not None} for row in rows
    ]


def ask(spark: Any, sparql: str, triples: Iterable[Triple], base: str | None = None) -> bool:
    """The answer of an ASK query, from the compiled plan of its pattern."""
    from pytest_rspbench.errors import UnsupportedQueryError
    from pytest_rspbench.oracle.sparql.compiler import Compiler, collect, translate

    algebra = translate(sparql, base)
    if algebra.name != "AskQuery":
        raise UnsupportedQueryError(f"expected an ASK query, not {algebra.name}")
    compiler = Compiler(context(spark, triples))
    relation = compiler.lift(compiler.node(algebra.p, None))
    return len(collect(relation.df.limit(1))) > 0


def reference(sparql: str, triples: Iterable[Triple]) -> list[dict[str, str]]:
    """The same query evaluated by pyoxigraph over the same default graph."""
    import pyoxigraph

    store = pyoxigraph.Store()
    text = "".join(f"{s} {p} {o} .\n" for s, p, o in set(triples))
    if text:
        store.bulk_extend(pyoxigraph.parse(text.encode(), format=pyoxigraph.RdfFormat.N_TRIPLES))
    result = store.query(sparql)
    names = [v.value for v in result.variables]
    return [{n: str(row[n]) for n in names if row[n] is not None} for row in result]
