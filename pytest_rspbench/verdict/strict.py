"""Verdicts: the strict CSRBench verdict and threshold checks, per case.

Strict (CSRBench, RSP-QL Def. 25-26): the output is correct if *some* t0
class yields an expected output that matches the actual one from the stable
start ``t_s`` on. Two ways to match (``comparison.mode``):

- ``strict``: equal, relation by relation;
- ``containment`` (CSRBench §6.2: "true if rs is contained (or it is equal)
  to ro"): the actual relations are a contiguous part of the expected ones.
  It may start late or stop early, but not skip a relation in the middle
  nor add one::

      expected   E1 E2 E3 E4 E5
      actual        E2 E3 E4        contained (relations 2-4 of 5)
      actual        E2    E4        not contained (a gap)
      actual     E1 E2 X            not contained (X is extra)

  An empty output is contained in anything: add a recall threshold when
  that must fail.

The class that matched is reported, with the relations it matched; when none
does, the closest one (best mean F1, the first on ties) is used for the
per-window table. Classes are tried in the oracle's order, so the same
inputs always give the same verdict.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pytest_rspbench.rsp.bags import Solution, bag, equal, remembered
from pytest_rspbench.rsp.bags import same as same_bag
from pytest_rspbench.rsp.outputs import (
    ActualOutput,
    ExpectedOutput,
    ExpectedRelation,
    Received,
    Result,
    T0Class,
    regrouped,
)
from pytest_rspbench.rsp.semantics import Semantics
from pytest_rspbench.rsp.windows import Bounds, window_label
from pytest_rspbench.spec import thresholds as th
from pytest_rspbench.spec.model import STRICT_MODES, Case, Comparison
from pytest_rspbench.verdict.alignment import Aligned
from pytest_rspbench.verdict.departures import Departure, Evidence, classify, summary
from pytest_rspbench.verdict.metrics import RunMetrics, WindowRow, run_metrics, window_rows
from pytest_rspbench.verdict.reported import reproducing, time_finding, window_finding
from pytest_rspbench.verdict.variants import labels

DEFAULT_GRADED = ("precision >= 1 in every window", "recall >= 1 in every window")

# (chosen class, its rows, the results) -> rows with gracious borders filled in
Gracious = Callable[[T0Class, Sequence[WindowRow], Sequence[Received]], Sequence[WindowRow]]
# What the stream says about time (event times, when terms occur), asked for
# only when an item fails.
Times = Callable[[], Sequence[int] | Evidence | None]


@dataclass(frozen=True)
class Span:
    """The relations of a class that the actual output matched: ``first``
    (0-based, in ``T0Class.relations``) and how many."""

    first: int
    count: int
    total: int

    @property
    def label(self) -> str:
        if self.count == 0:
            return f"no relation of {self.total} (empty output)"
        return f"relations {self.first + 1}-{self.first + self.count} of {self.total}"


@dataclass(frozen=True)
class Repeat:
    """One of several replays of a case (``replay.repeat``): its own verdict
    with the median run metrics, and its own run metrics."""

    passed: bool
    run: RunMetrics | None
    engine_seconds: float
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class Assessment:
    """Everything decided about one case; built by keyword only.

    Attributes:
        passed: the item passes: thresholds met, the output matched where the
            mode asks for it, and the engine ran without an error.
        mode: the comparison mode ("strict", "containment" or "graded").
        matched: the t0 class that reproduced the output; None: none did.
        chosen: the class the per-window table compares with: the matched
            one, else the closest (best mean F1).
        rows: the per-window table against ``chosen``.
        outcomes: each threshold of the case, checked.
        classes_tried: how many t0 classes were compared.
        stable_from: ``t_s`` (RSP-QL Def. 26): comparison starts here.
        span: the relations of ``matched`` the output matched.
        alignment: which result went with which expected relation.
        run: the run metrics (IoU, delays, memory, CPU).
        scored: positions in ``rows`` the thresholds judge (warm-up left out).
        repeats: each replay's own verdict, with ``replay.repeat``.
        difference: where a strict comparison with ``chosen`` first goes
            wrong, in words.
        narrowing: which t0 reproduce the output, how the classes were
            chosen and how reported times and windows differ (the t0 note).
        departures: the named departures of a failing output.
        merged: how relations reported within one time unit were merged into
            one (only for a profile whose adapter regroups); empty: none were.
    """

    passed: bool
    mode: str
    matched: T0Class | None
    chosen: T0Class
    rows: tuple[WindowRow, ...]
    outcomes: tuple[th.Outcome, ...]
    classes_tried: int
    stable_from: int
    span: Span | None = None
    alignment: Aligned | None = None
    run: RunMetrics | None = None
    scored: tuple[int, ...] = ()
    repeats: tuple[Repeat, ...] = ()
    difference: str | None = None
    narrowing: str = ""
    departures: tuple[Departure, ...] = ()
    merged: str = ""

    @property
    def strict_ok(self) -> bool | None:
        return None if self.mode not in STRICT_MODES else self.matched is not None

    def headline(self, bounds: Bounds) -> str:
        """The verdict in one line: what ``-r``, JUnit's message and CI logs show.

        >>> from pytest_rspbench.rsp.outputs import T0Class
        >>> a = Assessment(passed=False, mode="strict", matched=None,
        ...     chosen=T0Class(0, 0, ()), rows=(), outcomes=(), classes_tried=1,
        ...     stable_from=0, departures=(Departure("lost-window", ((30000, 40000),)),))
        >>> a.headline("[o,c)")
        'strict: FAIL — lost window x1 at [30000,40000)'
        """
        missed = [o.threshold.text for o in self.outcomes if not o.ok]
        if any(d.name == "engine-error" for d in self.departures) and not any(
            r.actual for r in self.rows
        ):
            missed = []  # nothing came before the error: every threshold fails
        if self.passed:
            return f"{self.mode}: pass"
        verdict = f"{self.mode}: FAIL"
        if self.strict_ok and missed:
            verdict = f"{self.mode}: pass, thresholds: FAIL"
        parts = [summary(self.departures, bounds)] if self.departures else []
        if missed:
            noun = "threshold" if len(missed) == 1 else f"{len(missed)} thresholds"
            parts.append(f"{noun} missed: " + ", ".join(repr(t) for t in missed))
        if not parts and self.difference:
            parts.append(self.difference)  # no window differs: the stream does
        return verdict + (" — " + "; ".join(parts) if parts else "")

    def mean(self, metric: str) -> float:
        values = [row.metric(metric) for row in self.rows]
        return th.mean(values) if values else 1.0


def assess(
    expected: ExpectedOutput,
    actual: ActualOutput,
    semantics: Semantics,
    case: Case,
    gracious: Gracious | None = None,
    times: Times | None = None,
    regroup: int = 1,
) -> Assessment:
    """Decide pass/fail for one case; name the departures of a failing one.

    ``times`` gives the stream's event times, read only for a failing case
    (they tell a border event from a drift, :mod:`.departures`).
    ``regroup`` is the time unit (ms) within which consecutive results are
    one relation: an engine that emits bindings one by one (the recorded
    adapter's ``regroup``) with its ``time_unit``; 1 (the default) merges
    nothing, so two windows reported at one instant stay two relations.
    """
    with remembered():
        return _assess(expected, actual, semantics, case, gracious, times, regroup)


def _assess(
    expected: ExpectedOutput,
    actual: ActualOutput,
    semantics: Semantics,
    case: Case,
    gracious: Gracious | None,
    times: Times | None,
    regroup: int = 1,
) -> Assessment:
    received = regrouped(actual.received, regroup)
    merged = ""
    if len(received) < len(actual.received):
        merged = (
            f"{len(actual.received)} relations reported within one time unit ({regroup} ms) "
            f"were merged into {len(received)} (regroup: true in the engine's adapter)"
        )
    comparison = case.comparison
    matched, span = None, None
    matches: list[tuple[T0Class, Span]] = []
    if comparison.mode in STRICT_MODES:
        matches = _matches(expected.classes, received, expected.stable_from, comparison)
    matches, misfit = _fitting(matches, received, semantics)
    if matches:
        matched, span = matches[0]
    chosen, rows, aligned = _closest(expected.classes, received, semantics, comparison, matched)
    if gracious is not None and comparison.gracious_shift is not None:
        rows = list(gracious(chosen, rows, received))
    samples = getattr(actual, "samples", None) or ()
    run = run_metrics(chosen.relations, received, rows, comparison, samples)
    scored = _scored(rows, case.warmup_windows)
    outcomes = check(case, [rows[k] for k in scored], run)
    passed = all(o.ok for o in outcomes) and (
        comparison.mode not in STRICT_MODES or matched is not None
    )
    passed = passed and actual.error is None
    difference = None
    if comparison.mode == "strict" and matched is None:
        brackets = Bounds(labels(case.query.declared, semantics) or semantics.bounds)
        difference = misfit or first_difference(
            chosen, received, expected.stable_from, comparison, brackets
        )
    departures: tuple[Departure, ...] = ()
    if not passed and aligned is not None:
        departures = classify(
            chosen.relations,
            received,
            aligned,
            semantics,
            comparison,
            r2s=case.query.r2s,
            stable_from=expected.stable_from,
            error=actual.error,
            times=times() if times is not None else None,
            windows=case.query.declared,
        )
    return Assessment(
        passed=passed,
        mode=comparison.mode,
        matched=matched,
        chosen=chosen,
        rows=tuple(rows),
        outcomes=outcomes,
        classes_tried=len(expected.classes),
        stable_from=expected.stable_from,
        span=span,
        alignment=aligned,
        run=run,
        scored=scored,
        difference=difference,
        narrowing=_t0_note(expected, matches, received, semantics),
        departures=departures,
        merged=merged,
    )


def _matches(
    classes: Sequence[T0Class],
    received: Sequence[Received],
    stable_from: int,
    comparison: Comparison,
) -> list[tuple[T0Class, Span]]:
    """Every class that reproduces the output, with where, in the oracle's order."""
    out = []
    for cls in classes:
        span = match_class(cls, received, stable_from, comparison)
        if span is not None:
            out.append((cls, span))
    return out


def _fitting(
    matches: list[tuple[T0Class, Span]], received: Sequence[Received], semantics: Semantics
) -> tuple[list[tuple[T0Class, Span]], str | None]:
    """The matches whose reported windows (then times) fit first, and why the
    windows fit none. With ``reports_window`` the windows are part of the
    output: only the matches they fit reproduce it."""

    def misfits(m: tuple[T0Class, Span]) -> tuple[str | None, str | None]:
        found = (m[0], m[1].first, m[1].count)
        return (
            window_finding(found, received, semantics.bounds),
            time_finding(found, received, semantics.time_unit),
        )

    judged = [(m, misfits(m)) for m in matches]
    fit = [m for m, (window, _) in judged if window is None]
    misfit = None if fit or not judged else judged[0][1][0]
    # Under every report policy: under content-change or periodic reports the
    # oracle lists the active window the engine is in at that instant, of the
    # window an event changed (docs/oracle.md, "When is the query evaluated?").
    if semantics.reports_window:
        judged = [j for j in judged if j[1][0] is None]
    judged.sort(key=lambda j: (j[1][0] is not None, j[1][1] is not None))
    return [m for m, _ in judged], misfit


def _t0_note(
    expected: ExpectedOutput,
    matches: Sequence[tuple[T0Class, Span]],
    received: Sequence[Received],
    semantics: Semantics,
) -> str:
    """Which t0 reproduce the output, how the classes were chosen, and how
    the reported times and windows differ (shown; windows fail only when the
    profile reports them, see :mod:`.reported`)."""
    parts = []
    if matches and expected.total_classes > 1:
        parts.append(reproducing([c for c, _ in matches]))
    if expected.narrowing:
        parts.append(expected.narrowing)
    if matches:
        cls, span = matches[0]
        found = (cls, span.first, span.count)
        windows = window_finding(found, received, semantics.bounds)
        times = time_finding(found, received, semantics.time_unit)
        parts += [t for t in (times, windows) if t]
    return "; ".join(parts)


def first_difference(
    cls: T0Class,
    received: Sequence[Received],
    stable_from: int,
    comparison: Comparison,
    bounds: Bounds = Bounds.OPEN_CLOSED,
) -> str:
    """Where a strict comparison with ``cls`` first goes wrong, in words.

    The per-window table can match window by window while the output stream
    still differs: relations out of order, one window twice, or relations
    missing or extra. This names the first relation (from ``t_s`` on) that
    differs. Windows are written in ``bounds``: the profile's, by default a
    profile's default ``(o,c]`` (RSP-QL).
    """
    same = _comparer(comparison)
    expected = [r for r in cls.relations if r.time >= stable_from]
    lead = _leading(received, stable_from)
    actual = [i.result for i in received[lead if lead < len(received) else 0 :]]

    def shown(window: tuple[int, int]) -> str:
        return window_label(window, bounds)

    def said(result: Result) -> str:
        parts = []
        if result.time is not None:
            parts.append(f"at {result.time}")
        if result.window is not None:
            parts.append(f"for window {shown(result.window)}")
        return " ".join(parts) or "(no time)"

    for k, (a, e) in enumerate(zip(actual, expected, strict=False)):
        got = bag(a.bindings)
        where = f"relation {k + 1} from t_s on"
        if same(got, bag(e.bindings)):
            skipped = _skipped(a, e, expected[k + 1 :], actual)
            if skipped is None:
                continue
            # Two windows with the same content: the one the engine reported
            # is a later one, so the window due here was never sent.
            return (
                f"{where}: the engine sent, {said(a)}, the relation expected at "
                f"{skipped.time} (window {shown(skipped.window)}) where the one at "
                f"{e.time} (window {shown(e.window)}) was due: window "
                f"{shown(e.window)} was never sent (lost window)"
            )
        later = [j for j in range(len(expected)) if j != k and same(got, bag(expected[j].bindings))]
        if later:
            other = expected[later[0]]
            sent = f"{where}: the engine sent, {said(a)}, the relation expected at " + (
                f"{other.time} (window {shown(other.window)}) where the one "
                f"at {e.time} (window {shown(e.window)}) was due: "
            )
            due = bag(e.bindings)
            comes = any(same(bag(x.bindings), due) for x in actual[k + 1 :])
            if later[0] > k and not comes:
                return sent + f"window {shown(e.window)} was never sent (lost window)"
            if later[0] < k and same(bag(actual[later[0]].bindings), bag(other.bindings)):
                return sent + f"the relation of window {shown(other.window)} again"
            return sent + "out of order"
        again = next(
            (x for x in actual[k + 1 :] if a.window is not None and x.window == a.window), None
        )
        return (
            f"{where}: the engine sent {sum(got.values())} solution(s) {said(a)}; "
            f"expected {sum(bag(e.bindings).values())} at {e.time} "
            f"(window {shown(e.window)})"
        ) + (f"; it reported that window again, {said(again)}" if again is not None else "")
    if len(actual) < len(expected):
        e = expected[len(actual)]
        return (
            f"the engine sent {len(actual)} relation(s) from t_s on, {len(expected)} "
            f"expected; the first missing is due at {e.time} (window {shown(e.window)})"
        )
    if len(actual) > len(expected):
        return (
            f"the engine sent {len(actual)} relation(s) from t_s on, {len(expected)} "
            f"expected; the first extra one came {said(actual[len(expected)])}"
        )
    return "the relations match one by one, but not as a whole (see the windows)"


def _skipped(
    sent: Result,
    due: ExpectedRelation,
    later: Sequence[ExpectedRelation],
    actual: Sequence[Result],
) -> ExpectedRelation | None:
    """The later expected relation ``sent`` is for, when it names a window
    other than ``due``'s that is expected later and ``due``'s window is never
    sent; else None (the relations match)."""
    if sent.window is None or sent.window == due.window:
        return None
    if any(r.window == due.window for r in actual):
        return None
    return next((r for r in later if r.window == sent.window), None)


def combine(
    assessments: Sequence[Assessment], actuals: Sequence[ActualOutput], case: Case
) -> tuple[Assessment, int]:
    """One assessment for several replays of a case, and which replay it shows.

    Run metrics (IoU, delays, peak RSS, CPU) are the medians over the
    replays: thresholds on them, and baselines, see the median, as machines
    are noisy. Every replay must pass on its own windows with those medians.
    The replay shown is the first that failed, else the first.
    """
    median = median_run([a.run for a in assessments if a.run is not None])
    judged = []
    for a, actual in zip(assessments, actuals, strict=True):
        outcomes = check(case, [a.rows[k] for k in a.scored], median)
        passed = (
            all(o.ok for o in outcomes)
            and (a.mode not in STRICT_MODES or a.matched is not None)
            and actual.error is None
        )
        judged.append(replace(a, passed=passed, outcomes=outcomes, run=median))
    shown = next((k for k, a in enumerate(judged) if not a.passed), 0)
    repeats = tuple(
        Repeat(j.passed, a.run, actual.seconds, actual.error)
        for j, a, actual in zip(judged, assessments, actuals, strict=True)
    )
    return replace(judged[shown], repeats=repeats), shown


def median_run(runs: Sequence[RunMetrics]) -> RunMetrics:
    """The median of each run metric (over the runs that have it)."""

    def med(name: str) -> Any:
        values = [getattr(r, name) for r in runs if getattr(r, name) is not None]
        return statistics.median(values) if values else None

    return RunMetrics(**{name: med(name) for name in RunMetrics.__dataclass_fields__})


def check(case: Case, rows: Sequence[WindowRow], run: RunMetrics) -> tuple[th.Outcome, ...]:
    """The case's thresholds (not those between engines) on its rows and run."""
    limits = tuple(t for t in case.thresholds if t.scope != "pair")
    if not limits and case.comparison.mode == "graded":
        limits = tuple(th.parse(t) for t in DEFAULT_GRADED)
    table = [{m: r.metric(m) for m in th.WINDOW_METRICS} for r in rows]
    values = run.as_dict()
    return tuple(th.evaluate(limit, table, case.mostly, values) for limit in limits)


def match_class(
    cls: T0Class, received: Sequence[Received], stable_from: int, comparison: Comparison
) -> Span | None:
    """Where the actual output matches this class's output from ``t_s`` on.

    None when it does not match.
    """
    stable = [k for k, r in enumerate(cls.relations) if r.time >= stable_from]
    base = stable[0] if stable else len(cls.relations)
    expected = [bag(cls.relations[k].bindings) for k in stable]
    actual = [bag(i.result.bindings) for i in received]
    # The transient part (before t_s) is not compared: up to as many leading
    # results as the class has relations before t_s (stamps may not be
    # application times: wall clock, another unit, none), or the leading
    # results stamped before t_s when later ones are not. A result stamped
    # before t_s after later ones is compared (out of place, it differs).
    skips = set(range(min(base, len(actual)) + 1))
    if (lead := _leading(received, stable_from)) < len(received):
        skips.add(lead)
    same = _comparer(comparison)
    for skip in sorted(skips):
        tail = actual[skip:]
        starts = range(len(expected) - len(tail) + 1) if comparison.mode == "containment" else (0,)
        if comparison.mode != "containment" and len(tail) != len(expected):
            continue
        for start in starts:
            if all(same(a, expected[start + k]) for k, a in enumerate(tail)):
                return Span(base + start if tail else base, len(tail), len(cls.relations))
    return None


def _leading(received: Sequence[Received], stable_from: int) -> int:
    """How many leading results are stamped before ``t_s``."""
    count = 0
    for item in received:
        if item.result.time is None or item.result.time >= stable_from:
            break
        count += 1
    return count


def _comparer(
    comparison: Comparison,
) -> Callable[[Counter[Solution], Counter[Solution]], bool]:
    if comparison.literal_equality != "value":
        return same_bag
    return lambda a, e: equal(a, e, comparison.literal_equality, comparison.tolerance)


def _closest(
    classes: Sequence[T0Class],
    received: Sequence[Received],
    semantics: Semantics,
    comparison: Comparison,
    matched: T0Class | None,
) -> tuple[T0Class, list[WindowRow], Aligned]:
    """The class the window rows compare with: the matched one, else the one
    with the best mean F1; its rows and alignment."""
    if matched is not None:
        rows, aligned = window_rows(matched.relations, received, semantics, comparison)
        return matched, rows, aligned
    best = None
    for cls in classes:
        rows, aligned = window_rows(cls.relations, received, semantics, comparison)
        score = th.mean([r.f1 for r in rows]) if rows else 1.0
        if best is None or score > best[0]:
            best = (score, cls, rows, aligned)
    assert best is not None  # the oracle always yields at least one class
    return best[1], best[2], best[3]


def _scored(rows: Sequence[WindowRow], warmup: int) -> tuple[int, ...]:
    """Positions of the rows the thresholds judge: all but the warm-up windows."""
    indices = [r.index for r in rows if r.index is not None]
    first = min(indices) if indices else 0
    return tuple(k for k, r in enumerate(rows) if r.index is None or r.index >= first + warmup)
