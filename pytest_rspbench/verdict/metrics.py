"""Per-window and per-run metrics (YABench §3.4, RMLStreamer's IoU).

Each expected relation is one row. Actual relations are aligned to it by one
rule for the whole run (:mod:`pytest_rspbench.verdict.alignment`); actual relations
left over become rows of their own (nothing expected: precision 0).

Conventions (stated, because the papers leave them open; docs/metrics.md):

- over bags, precision = |A ∩ E| / |A| and recall = |A ∩ E| / |E|, with
  |A ∩ E| the number of pairs of a maximum matching under the spec's
  equality (:func:`pytest_rspbench.rsp.bags.match`); an empty actual bag has
  precision 1.0 (it reported nothing wrong), an empty expected bag has
  recall 1.0 (nothing was missed), so two empty bags score 1.0 on both; F1
  is 0 when both are 0.
- delay = arrival of the window's last result, mapped to application time,
  minus the evaluation time (for window-close: the window's close), ms.
- IoU = |A ∩ E| / |A ∪ E| over the whole output as one bag each, regardless
  of windows (RMLStreamer §IV-C: completeness); 1.0 when both are empty.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.rsp import outputs
from pytest_rspbench.rsp.bags import Solution, added, bag, match, size
from pytest_rspbench.rsp.outputs import ExpectedRelation, Received, Sample
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.spec.model import Comparison
from pytest_rspbench.spec.thresholds import percentile
from pytest_rspbench.verdict.alignment import Aligned, align


@dataclass(frozen=True)
class Borders:
    """Gracious mode's answer for one result (YABench §3.4).

    Attributes:
        window: the reconstructed ``(o, c)``, in the profile's bounds
            convention: of all borders that put the same events inside, the
            ones closest to the ideal window.
        shift_start, shift_end: ``o' - o`` and ``c' - c`` in ms.
        start_range, end_range: every ``o`` and ``c`` (inclusive ranges)
            that put the same events inside: what the data can tell.
    """

    window: tuple[int, int]
    precision: float
    recall: float
    f1: float
    shift_start: int
    shift_end: int
    start_range: tuple[int, int] = (0, 0)
    end_range: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class WindowRow:
    """Metrics of one window (or of one unaligned actual relation).

    ``time`` is the expected evaluation time (None for a leftover);
    ``results`` the positions of the actual results aligned to it.
    """

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
    time: int | None = None
    results: tuple[int, ...] = ()
    gracious: Borders | None = None

    def metric(self, name: str) -> float:
        if name.startswith(("gracious_", "shift_")):
            if self.gracious is None:
                return math.nan
            return float(getattr(self.gracious, name.removeprefix("gracious_")))
        value = getattr(self, name)
        return float("nan") if value is None else float(value)


@dataclass(frozen=True)
class RunMetrics:
    """One number each for the whole run."""

    iou: float
    delay_p50: float | None
    delay_p95: float | None
    delay_max: float | None
    peak_rss: int | None
    mean_cpu: float | None

    def as_dict(self) -> dict[str, float | None]:
        return dict(self.__dict__)


def scores(common: int, n_actual: int, n_expected: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from the sizes of A ∩ E, A and E.

    >>> scores(1, 2, 3)
    (0.5, 0.3333333333333333, 0.4)
    """
    precision = common / n_actual if n_actual else 1.0
    recall = common / n_expected if n_expected else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def window_rows(
    expected: Sequence[ExpectedRelation],
    received: Sequence[Received],
    semantics: Semantics,
    comparison: Comparison,
) -> tuple[list[WindowRow], Aligned]:
    """One row per expected relation, plus one per unaligned actual relation."""
    aligned = align(
        expected,
        received,
        semantics,
        comparison.alignment,
        comparison.arrival_tolerance,
    )
    rows = []
    for rel, group in zip(expected, aligned.groups, strict=True):
        actual = added(bag(received[k].result.bindings) for k in group)
        arrivals = [received[k].app_time for k in group]
        delays = [t - rel.time for t in arrivals if t is not None]
        delay = max(delays) if delays else None
        place = _Place(rel.index, rel.window, rel.time, tuple(group), delay, rel.triples)
        rows.append(_row(place, actual, bag(rel.bindings), comparison))
    for k in aligned.leftovers:
        result = received[k].result
        window = (result.window[0], result.window[1]) if result.window else None
        place = _Place(None, window, None, (k,))
        rows.append(_row(place, bag(result.bindings), Counter(), comparison))
    return rows, aligned


def run_metrics(
    expected: Sequence[ExpectedRelation],
    received: Sequence[Received],
    rows: Sequence[WindowRow],
    comparison: Comparison,
    samples: Sequence[Sample | Mapping[str, Any]] = (),
) -> RunMetrics:
    """Whole-run numbers: IoU, delay percentiles, peak RSS and mean CPU."""
    delays = [r.delay for r in rows if r.delay is not None]
    return RunMetrics(
        iou=iou(
            (r.result.bindings for r in received),
            (rel.bindings for rel in expected),
            comparison,
        ),
        delay_p50=percentile(delays, 50) if delays else None,
        delay_p95=percentile(delays, 95) if delays else None,
        delay_max=max(delays) if delays else None,
        peak_rss=peak_rss(samples),
        mean_cpu=mean_cpu(samples),
    )


def iou(
    actual: Iterable[Iterable[Mapping[str, str]]],
    expected: Iterable[Iterable[Mapping[str, str]]],
    comparison: Comparison,
) -> float:
    """|A ∩ E| / |A ∪ E| of the whole output, each taken as one bag.

    >>> iou([[{"x": "1"}], [{"x": "2"}]], [[{"x": "2"}, {"x": "3"}]], Comparison())
    0.3333333333333333
    """
    a, e = added(bag(b) for b in actual), added(bag(b) for b in expected)
    common = match(a, e, comparison.literal_equality, comparison.tolerance).common
    union = size(a) + size(e) - common
    return common / union if union else 1.0


def peak_rss(samples: Sequence[Sample | Mapping[str, Any]]) -> int | None:
    """Largest RSS in bytes over the samples (objects or dicts with ``rss``)."""
    values = [_field(s, "rss") for s in samples]
    present = [int(v) for v in values if v is not None]
    return max(present) if present else None


def mean_cpu(samples: Sequence[Sample | Mapping[str, Any]]) -> float | None:
    """CPU % of the run: CPU time over wall time (:func:`.outputs.mean_cpu`)."""
    return outputs.mean_cpu(samples)


def _field(sample: Sample | Mapping[str, Any], name: str) -> Any:
    if isinstance(sample, dict):
        return sample.get(name)
    return getattr(sample, name, None)


@dataclass(frozen=True)
class _Place:
    """Where a row stands: its expected relation's window (``index`` None:
    an actual relation aligned to none), evaluation time and triples, and
    the results aligned to it, with their delay."""

    index: int | None
    window: tuple[int, int] | None
    time: int | None
    results: tuple[int, ...]
    delay: float | None = None
    triples: int = 0


def _row(
    place: _Place,
    actual: Counter[Solution],
    expected: Counter[Solution],
    comparison: Comparison,
) -> WindowRow:
    """The row at ``place``: ``actual`` scored against ``expected``."""
    matched = match(actual, expected, comparison.literal_equality, comparison.tolerance)
    precision, recall, f1 = scores(matched.common, size(actual), size(expected))
    return WindowRow(
        place.index,
        place.window,
        precision,
        recall,
        f1,
        place.delay,
        size(expected),
        size(actual),
        place.triples,
        matched.missing,
        matched.unexpected,
        place.time,
        place.results,
    )
