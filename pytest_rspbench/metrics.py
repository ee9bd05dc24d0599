"""Per-window metrics (YABench §3.4): precision, recall, F1, delay, sizes.

Each expected relation is one row. Actual relations are aligned to it by the
window the engine says it reported (when the profile trusts those reports),
else by the engine's evaluation time, else by position. Actual relations left
over become rows of their own (nothing expected: precision 0).

Conventions (stated, because the papers leave them open): over bags,
precision = |A ∩ E| / |A| and recall = |A ∩ E| / |E|; an empty actual bag
has precision 1.0 (it reported nothing wrong), an empty expected bag has
recall 1.0 (nothing was missed), so two empty bags score 1.0 on both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_rspbench.bags import Solution, bag, normalise
from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.engine.harness import Received
from pytest_rspbench.oracle.expected import ExpectedRelation
from pytest_rspbench.spec.model import Comparison


@dataclass(frozen=True)
class WindowRow:
    """Metrics of one window (or of one unaligned actual relation)."""

    index: int | None
    window: tuple[int, int] | None
    precision: float
    recall: float
    f1: float
    delay: float | None
    expected: int
    actual: int
    triples: int
    missing: tuple[Solution, ...]
    unexpected: tuple[Solution, ...]

    def metric(self, name: str) -> float:
        value = getattr(self, name)
        return float("nan") if value is None else float(value)


def scores(actual: Counter[Solution], expected: Counter[Solution]) -> tuple[float, float, float]:
    """Precision, recall and F1 over bags.

    >>> scores(Counter({"a": 1, "b": 1}), Counter({"a": 1, "c": 1, "d": 1}))
    (0.5, 0.3333333333333333, 0.4)
    """
    common = sum((actual & expected).values())
    n_actual, n_expected = sum(actual.values()), sum(expected.values())
    precision = common / n_actual if n_actual else 1.0
    recall = common / n_expected if n_expected else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def align(
    expected: Sequence[ExpectedRelation], received: Sequence[Received], semantics: Semantics
) -> tuple[list[list[Received]], list[Received]]:
    """Group actual relations per expected relation; return (groups, leftovers)."""
    groups: list[list[Received]] = [[] for _ in expected]
    leftovers = []
    by_window = {rel.window: k for k, rel in enumerate(expected)}
    by_time = {rel.time: k for k, rel in enumerate(expected)}
    positional = not any(r.result.window or r.result.time is not None for r in received)
    for position, item in enumerate(received):
        result = item.result
        if semantics.reports_window and result.window is not None:
            k = by_window.get(tuple(result.window))
        elif result.time is not None:
            k = by_time.get(result.time)
        elif positional:
            k = position if position < len(expected) else None
        else:
            k = None
        if k is None:
            leftovers.append(item)
        else:
            groups[k].append(item)
    return groups, leftovers


def window_rows(
    expected: Sequence[ExpectedRelation],
    received: Sequence[Received],
    semantics: Semantics,
    comparison: Comparison,
) -> list[WindowRow]:
    """One row per expected relation, plus one per unaligned actual relation."""
    groups, leftovers = align(expected, received, semantics)
    rows = []
    for rel, group in zip(expected, groups, strict=True):
        actual = Counter[Solution]()
        for item in group:
            actual.update(bag(item.result.bindings))
        delays = [item.app_time - rel.window[1] for item in group if item.app_time is not None]
        rows.append(_row(rel.index, rel.window, actual, bag(rel.bindings), max(delays) if delays else None, rel.triples, comparison))
    for item in leftovers:
        window = tuple(item.result.window) if item.result.window else None
        rows.append(_row(None, window, bag(item.result.bindings), Counter(), None, 0, comparison))  # type: ignore[arg-type]
    return rows


def _row(index, window, actual, expected, delay, triples, comparison) -> WindowRow:  # type: ignore[no-untyped-def]
    a = normalise(actual, comparison.literal_equality, comparison.tolerance)
    e = normalise(expected, comparison.literal_equality, comparison.tolerance)
    precision, recall, f1 = scores(a, e)
    missing = tuple(sorted((e - a).elements()))
    unexpected = tuple(sorted((a - e).elements()))
    return WindowRow(
        index, window, precision, recall, f1, delay,
        sum(expected.values()), sum(actual.values()), triples, missing, unexpected,
    )
