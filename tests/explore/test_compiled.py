"""Generated queries run through the oracle's compiled plan, none refused.

``test_generation.py`` checks without Spark that the compiler has a handler
for every operator; here the plan is built and run (one evaluation holding
every triple of the case, its static data as the default graph), so a
construct the compiler refuses only when it meets it, or a value it refuses
at run time, shows too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.explore.cases import Generated, generate
from pytest_rspbench.explore.scope import scope_of
from pytest_rspbench.rsp.rspql import parse

pytestmark = [pytest.mark.spark]

CASES = [(1, 20), (1, 80), (1, 140), (2, 40), (2, 110), (3, 60), (3, 130)]


def context(spark: Any, generated: Generated) -> Any:
    from pyspark.sql import functions as F

    from pytest_rspbench.oracle.sparql.compiler import Context
    from pytest_rspbench.rsp.windows import Bounds, WindowSpec

    rows = [(s.iri, *t, 0) for s in generated.streams for e in s.events for t in e.triples]
    stream_df = spark.createDataFrame(rows, "stream string, s string, p string, o string, t long")
    static_df = None
    if generated.static:
        static_df = spark.createDataFrame(list(generated.static), "s string, p string, o string")

    def assign(df: Any, window: str) -> Any:
        return df.withColumn("cls", F.lit(0)).withColumn("win", F.lit(0).cast("long"))

    query = parse(generated.query.text)
    spec = WindowSpec(1, 1, Bounds.CLOSED_CLOSED)  # every window holds the one evaluation
    windows = {d.name: (d.stream, spec) for d in query.declared}
    evaluations = spark.createDataFrame([(0, 0)], "cls int, win long")
    return Context(stream_df, static_df, windows, assign, evaluations)


@pytest.mark.parametrize(("seed", "number"), CASES)
def test_a_generated_query_is_compiled_and_runs(spark: Any, seed: int, number: int) -> None:
    from pytest_rspbench.oracle.sparql.compiler import collect, compile_select, translate

    generated = generate(seed, number, scope_of(resolve("reference", Path.cwd())))
    query = parse(generated.query.text)
    relation = compile_select(translate(query.static_sparql), context(spark, generated))
    collect(relation.df)  # raises UnsupportedQueryError for a value it refuses
