"""Verdicts: the strict CSRBench verdict and threshold checks, per case.

Strict (CSRBench, RSP-QL Def. 25-26): the output is correct if *some* t0
class yields an expected output equal to the actual one from the stable
start ``t_s`` on. The class that matched is reported; when none does, the
closest one (best mean F1) is used for the per-window table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_rspbench import thresholds as th
from pytest_rspbench.bags import bag, normalise
from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.engine.harness import ActualOutput, Received
from pytest_rspbench.metrics import WindowRow, window_rows
from pytest_rspbench.oracle.expected import ExpectedOutput, T0Class
from pytest_rspbench.spec.model import Case, Comparison

DEFAULT_GRADED = ("precision >= 1 in every window", "recall >= 1 in every window")


@dataclass(frozen=True)
class Assessment:
    """Everything decided about one case."""

    passed: bool
    mode: str
    matched: T0Class | None
    chosen: T0Class
    rows: tuple[WindowRow, ...]
    outcomes: tuple[th.Outcome, ...]
    classes_tried: int
    stable_from: int

    @property
    def strict_ok(self) -> bool | None:
        return None if self.mode != "strict" else self.matched is not None

    def mean(self, metric: str) -> float:
        values = [row.metric(metric) for row in self.rows]
        return sum(values) / len(values) if values else 1.0


def assess(expected: ExpectedOutput, actual: ActualOutput, semantics: Semantics, case: Case) -> Assessment:
    """Decide pass/fail for one case."""
    received = actual.received
    matched = None
    if case.comparison.mode == "strict":
        matched = next(
            (c for c in expected.classes if strict_match(c, received, expected.stable_from, case.comparison)),
            None,
        )
    chosen, rows = _closest(expected.classes, received, semantics, case.comparison, matched)
    limits = case.thresholds
    if not limits and case.comparison.mode == "graded":
        limits = tuple(th.parse(t) for t in DEFAULT_GRADED)
    scored = [r for r in rows if r.index is None or r.index >= _first_index(rows) + case.warmup_windows]
    outcomes = tuple(
        th.evaluate(limit, [{m: r.metric(m) for m in th.WINDOW_METRICS} for r in scored], case.mostly)
        for limit in limits
    )
    passed = all(o.ok for o in outcomes) and (case.comparison.mode != "strict" or matched is not None)
    passed = passed and actual.error is None
    return Assessment(
        passed, case.comparison.mode, matched, chosen, tuple(rows), outcomes,
        len(expected.classes), expected.stable_from,
    )


def strict_match(cls: T0Class, received: Sequence[Received], stable_from: int, comparison: Comparison) -> bool:
    """Does the actual output equal this class's output from ``t_s`` on?"""
    def norm(bindings):  # type: ignore[no-untyped-def]
        return normalise(bag(bindings), comparison.literal_equality, comparison.tolerance)

    expected = [norm(r.bindings) for r in cls.relations if r.time >= stable_from]
    timed = all(item.result.time is not None for item in received)
    if timed:
        actual = [norm(i.result.bindings) for i in received if i.result.time >= stable_from]  # type: ignore[operator]
        # Times inside one class differ by the offset of t0; compare contents.
        return actual == expected
    # Without evaluation times the transient part cannot be located: the
    # output must end with the expected stable part.
    actual = [norm(i.result.bindings) for i in received]
    before = sum(1 for r in cls.relations if r.time < stable_from)
    return len(actual) - len(expected) <= before and actual[len(actual) - len(expected):] == expected


def _closest(classes, received, semantics, comparison, matched):  # type: ignore[no-untyped-def]
    if matched is not None:
        return matched, window_rows(matched.relations, received, semantics, comparison)
    best = None
    for cls in classes:
        rows = window_rows(cls.relations, received, semantics, comparison)
        score = sum(r.f1 for r in rows) / len(rows) if rows else 1.0
        if best is None or score > best[0]:
            best = (score, cls, rows)
    assert best is not None  # the oracle always yields at least one class
    return best[1], best[2]


def _first_index(rows: Sequence[WindowRow]) -> int:
    indices = [r.index for r in rows if r.index is not None]
    return min(indices) if indices else 0
