"""Load sweeps: correctness against load, and the highest load that still passes.

A spec sweeps a matrix parameter that sets the load: the replay speed
(``replay: {speed: ${speed}}``) or a generator's ``stations``. Each value is
one case per engine, judged as usual. The sweep then lines the cases of one
engine (and one combination of the other parameters) up by that value and
reports, per value, whether the case passed, its mean precision, recall and
F1, its p95 delay and the input rate the harness achieved.

The *highest comparable load* is the largest value up to which every case
passed: the load an engine can take while its output still meets the
spec's thresholds. It follows LSBench's comparable maximum execution
throughput (§3.4: a throughput only counts while the outputs stay
comparable) and YABench's observation that correctness degrades with load
(§6). A failure at a low value ends the comparable range even when a
higher value passes again; that highest passing value is shown too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_rspbench.spec.thresholds import mean


@dataclass(frozen=True)
class Point:
    """One case of a sweep (None values: the case did not run)."""

    value: float
    passed: bool | None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    delay_p95: float | None = None
    rate: float | None = None


@dataclass(frozen=True)
class Line:
    """The cases of one engine and one combination of the other parameters."""

    engine: str
    params: tuple[tuple[str, object], ...]
    points: tuple[Point, ...]

    @property
    def comparable(self) -> float | None:
        """The largest value up to which every case passed (None: not the first)."""
        best = None
        for point in self.points:
            if not point.passed:
                break
            best = point.value
        return best

    @property
    def highest_passing(self) -> float | None:
        passing = [p.value for p in self.points if p.passed]
        return max(passing) if passing else None


def point(value: float, run: object | None) -> Point:
    """A sweep point from a finished case run (a ``CaseRun``), or a missing one."""
    if run is None:
        return Point(value, None)
    a = run.assessment  # type: ignore[attr-defined]
    actual = run.actual  # type: ignore[attr-defined]
    rows = a.rows
    rate = actual.triples_sent / actual.seconds if actual.seconds > 0 else None
    return Point(
        value,
        bool(a.passed),
        mean([r.precision for r in rows]) if rows else 1.0,
        mean([r.recall for r in rows]) if rows else 1.0,
        mean([r.f1 for r in rows]) if rows else 1.0,
        a.run.delay_p95 if a.run is not None else None,
        rate,
    )


def line(engine: str, params: tuple[tuple[str, object], ...], points: Sequence[Point]) -> Line:
    return Line(engine, params, tuple(sorted(points, key=lambda p: p.value)))


def table(over: str, lines: Sequence[Line]) -> str:
    """Fixed-width text: one block per line, one row per value."""
    out = []
    for ln in lines:
        others = ",".join(f"{k}={v}" for k, v in ln.params)
        title = f"engine {ln.engine}" + (f" ({others})" if others else "")
        out.append(
            f"{title}: highest comparable {over} = {_num(ln.comparable)}"
            + (
                f" (highest passing: {_num(ln.highest_passing)})"
                if ln.highest_passing != ln.comparable
                else ""
            )
        )
        head = (
            f"  {over:>10} {'verdict':>8} {'precision':>9} {'recall':>6} {'f1':>6} "
            f"{'p95 delay':>10} {'triples/s':>10}"
        )
        out.append(head)
        for p in ln.points:
            verdict = "not run" if p.passed is None else ("pass" if p.passed else "FAIL")
            out.append(
                f"  {_num(p.value):>10} {verdict:>8} {_ratio(p.precision):>9} "
                f"{_ratio(p.recall):>6} "
                f"{_ratio(p.f1):>6} {_ms(p.delay_p95):>10} {_rate(p.rate):>10}"
            )
    return "\n".join(out)


def _num(value: float | None) -> str:
    return "none" if value is None else f"{value:g}"


def _ratio(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.3f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}ms"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"
