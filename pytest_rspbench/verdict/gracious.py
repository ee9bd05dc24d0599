"""Gracious mode (YABench §3.4): the window borders that best explain a result.

Engines often put their window borders a little off (YABench Fig. 5: C-SPARQL
under load shifts its windows later), which drags precision and recall down
even when the query itself is right. For each actual result aligned to an
expected window, gracious mode searches borders shifted by at most
``max_shift`` ms around the ideal ones and reports the borders that explain
the result best, with the precision and recall they give.

The search is exact. A border only matters where it crosses an event, so
the start can be cut before each event time within reach and the end after
each one (YABench moves the start forward, then the end, greedily, and
cannot find a window that gains at both ends or around a missing triple)::

    events         1       5     8       12
    ideal          [0 ................ 10)        [o,c): content 1, 5, 8
    max_shift 3:   first ms inside in -3..3, last ms inside in 6..12
    start classes  -3..1 (from 1) | 2..3 (from 5)
    end classes    6..7 (up to 5) | 8..11 (up to 8) | 12 (up to 12)
    candidates     2 x 3 = 6 windows, each evaluated once

Every candidate of every result is evaluated at once by a
:class:`BorderEvaluator` that the runner passes in, built from the oracle
(:func:`pytest_rspbench.oracle.borders.evaluator`: one Spark job with the
compiled plan, or the pyoxigraph fallback per candidate); judging itself
starts no Spark job and imports no oracle. Best means: highest F1, then recall, then
precision, then the smallest total shift, then the earliest borders. Each
candidate stands for a range of equivalent borders (the same events inside);
the reported borders are the ones of that range closest to the ideal ones,
and the ranges are reported too.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pytest_rspbench.errors import OracleError
from pytest_rspbench.rsp.bags import Solution, added, bag, match, size
from pytest_rspbench.rsp.outputs import ExpectedRelation, Received, T0Class
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.windows import Bounds
from pytest_rspbench.spec.model import Comparison
from pytest_rspbench.verdict.metrics import Borders, WindowRow, scores

MAX_CANDIDATES = 200_000


@dataclass(frozen=True)
class Candidate:
    """Inclusive content borders ``[lo, hi]`` (ms) and the ranges of
    equivalent ``lo`` and ``hi`` values (same events inside)."""

    lo: int
    hi: int
    lo_range: tuple[int, int]
    hi_range: tuple[int, int]


def candidates(lo: int, hi: int, times: Sequence[int], shift: int) -> list[Candidate]:
    """Every distinct content of windows whose borders move by at most ``shift``.

    ``times`` are the sorted distinct event times. Each candidate holds the
    borders of its class closest to the ideal ``lo`` and ``hi``.

    >>> [(c.lo, c.hi) for c in candidates(0, 9, [1, 5, 8, 12], 3)]
    [(0, 7), (0, 9), (0, 12), (2, 7), (2, 9), (2, 12)]
    """
    starts = _classes(lo, times, shift, start=True)
    ends = _classes(hi, times, shift, start=False)
    out: list[Candidate] = []
    empty: list[Candidate] = []
    for a, ra in starts:
        for b, rb in ends:
            if a > b + 1:
                continue
            candidate = Candidate(a, b, ra, rb)
            holds = bisect.bisect_right(times, b) > bisect.bisect_left(times, a)
            (out if holds else empty).append(candidate)
    # Windows with no event are all the same: keep the one nearest the ideal.
    if empty:
        out.append(min(empty, key=lambda c: (abs(c.lo - lo) + abs(c.hi - hi), c.lo, c.hi)))
    return sorted(out, key=lambda c: (c.lo, c.hi))


def _classes(
    ideal: int, times: Sequence[int], shift: int, start: bool
) -> list[tuple[int, tuple[int, int]]]:
    """(representative, (first, last)) per class of equivalent border values.

    A start in ``[t_prev + 1, t]`` keeps ``t`` as the first event; an end in
    ``[t, t_next - 1]`` keeps ``t`` as the last one.
    """
    low, high = ideal - shift, ideal + shift
    inside = list(times[bisect.bisect_left(times, low) : bisect.bisect_right(times, high)])
    if start:
        ranges = zip([low, *(t + 1 for t in inside)], [*inside, high], strict=True)
    else:
        ranges = zip([low, *inside], [*(t - 1 for t in inside), high], strict=True)
    return [(min(max(ideal, a), b), (a, b)) for a, b in ranges if a <= b]


def best(
    actual: Counter[Solution],
    options: Sequence[tuple[Candidate, Sequence[Mapping[str, str]]]],
    ideal: tuple[int, int],
    comparison: Comparison,
) -> tuple[Candidate, float, float, float]:
    """The candidate that explains ``actual`` best, with its precision, recall, F1.

    ``options`` gives each candidate with the solutions the query yields on
    its content.

    Matching a bag is the costly step (under value equality with a
    tolerance, a pairing per group), and a result has hundreds of
    candidates when the shift reaches many events. No matching pairs more
    than ``min(|A|, |E|)`` solutions, so that count bounds each candidate's
    rank from above, and precision, recall and F1 only grow with it. The
    candidates are matched in the order of their bounds, and the search
    stops at the first whose bound the best found so far already beats: the
    answer is the one a match of every candidate gives. For a correct
    engine the first candidate of its size closest to the ideal borders
    usually matches fully, and the search ends there; the others' bags are
    never built.
    """
    n_actual = size(actual)

    def rank(candidate: Candidate, common: int, n_expected: int) -> tuple[Any, ...]:
        precision, recall, f1 = scores(common, n_actual, n_expected)
        moved = abs(candidate.lo - ideal[0]) + abs(candidate.hi - ideal[1])
        return (-f1, -recall, -precision, moved, candidate.lo, candidate.hi)

    bounded = []
    for candidate, solutions in options:
        n_expected = len(solutions)  # a bag's size: one solution each, repeats too
        bounds = rank(candidate, min(n_actual, n_expected), n_expected)
        bounded.append((bounds, candidate, solutions))
    bounded.sort(key=lambda b: b[0])
    found: tuple[tuple[Any, ...], Candidate, int, int] | None = None
    for bound, candidate, solutions in bounded:
        if found is not None and found[0] <= bound:
            break  # neither this candidate nor any after it can rank higher
        expected = bag(solutions)
        common = match(actual, expected, comparison.literal_equality, comparison.tolerance).common
        key = rank(candidate, common, len(solutions))
        if found is None or key < found[0]:
            found = (key, candidate, common, len(solutions))
    if found is None:
        raise ValueError("best() needs at least one candidate")
    _, candidate, common, n_expected = found
    return (candidate, *scores(common, n_actual, n_expected))


def ideal_content(o: int, c: int, time: int, bounds: Bounds) -> tuple[int, int]:
    """Inclusive content borders of window ``(o, c)`` evaluated at ``time``
    (a window still open at ``time`` holds its content up to ``time``)."""
    return o + bounds.open_start, min(c - bounds.open_end, time)


def borders(
    candidate: Candidate,
    ideal: tuple[int, int],
    bounds: Bounds,
    scored: tuple[float, float, float],
) -> Borders:
    """The candidate written as window borders in the profile's convention."""
    o, c = candidate.lo - bounds.open_start, candidate.hi + bounds.open_end
    o_ideal, c_ideal = ideal[0] - bounds.open_start, ideal[1] + bounds.open_end
    return Borders(
        (o, c),
        *scored,
        o - o_ideal,
        c - c_ideal,
        (
            candidate.lo_range[0] - bounds.open_start,
            candidate.lo_range[1] - bounds.open_start,
        ),
        (
            candidate.hi_range[0] + bounds.open_end,
            candidate.hi_range[1] + bounds.open_end,
        ),
    )


Evaluate = Callable[
    [Sequence[tuple[int, int, int, int]]],
    Mapping[tuple[int, int], Sequence[Mapping[str, str]]],
]
"""``(job, candidate, lo, hi)`` ranges to the query's solutions on each
range's content ``[lo, hi]`` (inclusive, ms); a range with none may be absent."""


class BorderEvaluator(Protocol):
    """The query on its window's stream with any borders: what gracious mode
    needs of the oracle, passed in by the runner (which builds it with
    :func:`pytest_rspbench.oracle.borders.evaluator`)."""

    @property
    def times(self) -> Sequence[int]:
        """The distinct event times of the window's stream, ascending."""
        ...

    def __call__(
        self, ranges: Sequence[tuple[int, int, int, int]]
    ) -> Mapping[tuple[int, int], Sequence[Mapping[str, str]]]:
        """The solutions on each range (an :data:`Evaluate`)."""
        ...


def explain(
    chosen: T0Class,
    rows: Sequence[WindowRow],
    received: Sequence[Received],
    times: Sequence[int],
    bounds: Bounds,
    comparison: Comparison,
    evaluate: Evaluate,
) -> list[WindowRow]:
    """Fill in ``gracious`` for every row that has results and a window.

    ``evaluate`` gets ``(job, candidate, lo, hi)`` tuples and returns the
    solutions the query yields on each candidate's content (none: absent).
    """
    shift = comparison.gracious_shift or 0
    # Content-change relations share a window: the evaluation time tells them apart.
    by_key: dict[tuple[int | None, int | None], ExpectedRelation] = {
        (rel.index, rel.time): rel for rel in chosen.relations
    }
    jobs: list[tuple[int, tuple[int, int], list[Candidate]]] = []
    for k, row in enumerate(rows):
        rel = by_key.get((row.index, row.time))
        if rel is None or not row.results:
            continue
        ideal = ideal_content(rel.window[0], rel.window[1], rel.time, bounds)
        jobs.append((k, ideal, candidates(ideal[0], ideal[1], times, shift)))
    total = sum(len(options) for _, _, options in jobs)
    if total > MAX_CANDIDATES:
        raise OracleError(
            f"gracious mode would evaluate {total} candidate windows "
            f"(limit {MAX_CANDIDATES})."
            "\nHINT: lower comparison.gracious.max_shift: the candidates grow with the "
            "square of the number of event times within reach of each border."
        )
    bags = (
        evaluate([(k, m, c.lo, c.hi) for k, _, options in jobs for m, c in enumerate(options)])
        if jobs
        else {}
    )
    out = list(rows)
    for k, ideal, options in jobs:
        actual = added(bag(received[position].result.bindings) for position in rows[k].results)
        scored = [(c, bags.get((k, m), ())) for m, c in enumerate(options)]
        candidate, precision, recall, f1 = best(actual, scored, ideal, comparison)
        found = borders(candidate, ideal, bounds, (precision, recall, f1))
        out[k] = replace(rows[k], gracious=found)
    return out


def explainer(
    evaluator: BorderEvaluator, semantics: Semantics, comparison: Comparison
) -> Callable[[T0Class, Sequence[WindowRow], Sequence[Received]], list[WindowRow]]:
    """The gracious step for :func:`pytest_rspbench.verdict.strict.assess`.

    ``evaluator`` answers the query on candidate windows; the runner builds
    it from the oracle (:func:`pytest_rspbench.oracle.borders.evaluator`),
    which reads the window's stream from the oracle's stream cache when
    there is one.
    """
    bounds = Bounds(semantics.bounds)

    def run(
        chosen: T0Class, window_rows: Sequence[WindowRow], received: Sequence[Received]
    ) -> list[WindowRow]:
        return explain(
            chosen, window_rows, received, evaluator.times, bounds, comparison, evaluator
        )

    return run
