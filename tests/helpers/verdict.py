"""Small builders for verdict tests: relations, results, classes, cases.

No Spark, no engine: expected and actual outputs are written by hand.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_rspbench.engine.api import Result, Semantics
from pytest_rspbench.rsp.bags import Solution, bag
from pytest_rspbench.rsp.outputs import (
    ActualOutput,
    ExpectedOutput,
    ExpectedRelation,
    Received,
    T0Class,
)
from pytest_rspbench.rsp.rspql import parse as parse_query
from pytest_rspbench.rsp.windows import Bounds
from pytest_rspbench.spec.model import Case, Comparison
from pytest_rspbench.spec.thresholds import parse

XSD = "http://www.w3.org/2001/XMLSchema#"
QUERY = parse_query(
    "PREFIX : <http://ex/>\nREGISTER RStream :out AS SELECT ?x "
    "FROM NAMED WINDOW :w ON STREAM :s [RANGE 10 STEP 10] "
    "WHERE { WINDOW :w { ?x :p ?y } }"
)
TRUSTED = Semantics(bounds=Bounds.CLOSED_OPEN, t0="registration", reports_window=True)
UNTRUSTED = Semantics(bounds=Bounds.CLOSED_OPEN, t0="registration", reports_window=False)


def num(value: str, kind: str = "integer") -> str:
    return f'"{value}"^^<{XSD}{kind}>'


def sols(*names: str) -> tuple[dict[str, str], ...]:
    """One solution ``{x: <name>}`` per name (repeats allowed: a bag)."""
    return tuple({"x": f"<http://ex/{n}>"} for n in names)


def b(*names: str) -> Counter[Solution]:
    return bag(sols(*names))


def rel(
    index: int, *names: str, width: int = 10, t0: int = 0, triples: int = 0
) -> ExpectedRelation:
    """Window ``index`` of a tumbling window of ``width`` from ``t0``."""
    o = t0 + index * width
    return ExpectedRelation(index, o + width, (o, o + width), sols(*names), triples)


def got(
    *names: str,
    window: tuple[int, int] | None = None,
    time: int | None = None,
    app: float | None = None,
) -> Received:
    return Received(Result(sols(*names), time, window), 0.0, app)


def output(
    *received: Received, samples: list | None = None, error: str | None = None
) -> ActualOutput:
    out = ActualOutput("test", list(received), error=error)
    if samples is not None:
        out.samples = samples
    return out


def expected(*classes: tuple[ExpectedRelation, ...], stable_from: int = 0) -> ExpectedOutput:
    return ExpectedOutput(
        tuple(T0Class(k, k, rels) for k, rels in enumerate(classes)),
        stable_from,
        "test",
    )


def case(
    *limits: str,
    mode: str = "graded",
    warmup: int = 0,
    mostly: float = 1.0,
    **comparison: object,
) -> Case:
    return Case(
        spec_name="t",
        spec_path=Path("t.rspbench.yaml"),
        case_id="engine=test",
        params=(),
        engine="test",
        query=QUERY,
        streams=(),
        static=(),
        semantics={},
        speed=0.0,
        timeout=1.0,
        comparison=Comparison(mode=mode, **comparison),  # type: ignore[arg-type]
        thresholds=tuple(parse(t) for t in limits),
        mostly=mostly,
        warmup_windows=warmup,
        marks=(),
        line=1,
    )


def with_comparison(c: Case, **changes: Any) -> Case:
    return replace(c, comparison=replace(c.comparison, **changes))
