"""The compact failure text shown for a failing item (no traceback).

Each failed threshold is named with its value and followed by its worst
windows (worst first), each with the bindings it missed and the ones it
should not have had; a failed strict verdict says which t0 classes were
tried and shows the windows that differ.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pytest_rspbench.report.digest import nothing_came
from pytest_rspbench.report.load import SAYS, Load, overload_note
from pytest_rspbench.rsp.bags import Solution, show
from pytest_rspbench.rsp.windows import Bounds, window_label
from pytest_rspbench.spec import thresholds as th
from pytest_rspbench.verdict.metrics import Borders, WindowRow
from pytest_rspbench.verdict.strict import Assessment

MAX_BINDINGS = 5
MAX_WINDOWS = 10
WORST_WINDOWS = 5
_SHOWN = ("precision", "recall", "delay", "expected", "actual", "triples")


def row_label(row: WindowRow, bounds: Bounds) -> str:
    """``[10000,20000)`` written with the profile's bounds convention."""
    if row.window is None:
        return "(no window)"
    return window_label(row.window, bounds)


def failure_text(
    assessment: Assessment, bounds: Bounds, engine_error: str | None, load: Load | None = None
) -> str:
    """What went wrong: the verdict line with the departures (first: it is what
    ``-r``, JUnit and CI logs show), what each departure means, the engine
    error, the verdict's details, each failed threshold. A failed delay,
    memory or CPU threshold measured under ``load`` above
    :data:`~pytest_rspbench.report.load.OVERLOADED` per core says so, on the
    first line too."""
    failed_metrics = [o.threshold.metric for o in assessment.outcomes if not o.ok]
    overloaded = overload_note(load, failed_metrics)
    lines = [assessment.headline(bounds)]
    if overloaded is not None:
        lines = [f"{lines[0]}; {overloaded}", f"  {SAYS}"]
    lines += [f"  {d.kind.title}: {d.kind.explanation}" for d in assessment.departures]
    said = [d.detail for d in assessment.departures if d.name == "engine-error"]
    if engine_error and said and engine_error.splitlines()[0] == said[0]:
        lines += engine_error.splitlines()[1:]  # its first line is in the verdict
    elif engine_error:
        lines.append(f"ENGINE ERROR: {engine_error}")
    if engine_error and assessment.rows and not any(r.actual for r in assessment.rows):
        # Failed before any result (at registration, say): a table of every
        # window as missing would only bury the error and its stderr.
        expected = sum(r.expected for r in assessment.rows)
        return "\n".join([*lines, "", nothing_came(len(assessment.rows), expected)])
    if assessment.alignment is not None:
        a = assessment.alignment
        lines.append(f"results aligned by {a.rule}: {a.reason}")
    if assessment.merged:
        lines.append(assessment.merged)
    strict_failed = assessment.strict_ok is False
    if strict_failed:
        verb = "contains" if assessment.mode == "containment" else "reproduces"
        lines.append(
            f"{assessment.mode} verdict: no t0 class {verb} the engine's output "
            f"({assessment.classes_tried} class(es) tried, compared from t_s = "
            f"{assessment.stable_from} ms); closest: t0 = {assessment.chosen.label}"
        )
        if assessment.narrowing:
            lines.append(f"t0 classes narrowed: {assessment.narrowing}")
        if assessment.difference:
            label = assessment.chosen.label
            lines.append(f"first difference with t0 = {label}: {assessment.difference}")
    failed = [o for o in assessment.outcomes if not o.ok]
    for outcome in failed:
        lines.append("")
        lines += threshold_failure(outcome, assessment, bounds)
    if strict_failed and not any(_worst(o, assessment) for o in failed):
        bad = [r for r in assessment.rows if r.precision < 1 or r.recall < 1]
        if bad:
            lines.append("")
            lines.append(table(bad[:MAX_WINDOWS], bounds))
            if len(bad) > MAX_WINDOWS:
                lines.append(
                    f"... and {len(bad) - MAX_WINDOWS} more differing windows (see the artifacts)"
                )
    return "\n".join(lines)


def threshold_failure(outcome: th.Outcome, assessment: Assessment, bounds: Bounds) -> list[str]:
    """``threshold 'recall >= 1' failed: ...`` and its worst windows."""
    limit = outcome.threshold
    worst = _worst(outcome, assessment)
    measured = outcome.detail or th.show_value(outcome.measured, limit.metric)
    if limit.scope == "window" and worst:
        value = worst[0].metric(limit.metric)
        measured += f"; worst {limit.metric} = {th.show_value(value, limit.metric)}"
    lines = [f"threshold {limit.text!r} failed: {measured}"]
    if worst:
        metric = limit.metric if limit.scope in ("window", "aggregate") else "f1"
        shown = worst[:WORST_WINDOWS]
        lines.append(f"worst {len(shown)} of {len(worst)} window(s) by {metric}:")
        lines.append(table(shown, bounds, metric if metric not in _SHOWN else None))
    return lines


def table(rows: Sequence[WindowRow], bounds: Bounds, extra: str | None = None) -> str:
    """Fixed-width table: window, sizes, precision, recall, delay, bindings."""
    head = (
        f"{'window':<22} {'triples':>7} {'expected':>8} {'actual':>6} "
        f"{'precision':>9} {'recall':>6} {'delay':>8}"
    )
    if extra:
        head += f" {extra:>{max(len(extra), 8)}}"
    out = [head, "-" * len(head)]
    for row in rows:
        delay = "-" if row.delay is None else f"{row.delay:.0f}ms"
        line = (
            f"{row_label(row, bounds):<22} {row.triples:>7} {row.expected:>8} "
            f"{row.actual:>6} "
            f"{row.precision:>9.3f} {row.recall:>6.3f} {delay:>8}"
        )
        if extra:
            value = row.metric(extra)
            line += f" {'-' if math.isnan(value) else f'{value:.4g}':>{max(len(extra), 8)}}"
        out.append(line)
        g = row.gracious
        if g is not None and _moved(row, g):
            label = window_label(g.window, bounds)
            out.append(
                f"    gracious: borders {label} "
                f"(shift {g.shift_start:+d}/{g.shift_end:+d} ms; "
                f"o in {g.start_range[0]}..{g.start_range[1]}, "
                f"c in {g.end_range[0]}..{g.end_range[1]}) "
                f"precision {g.precision:.3f} recall {g.recall:.3f}"
            )
        out += _bindings("missing", row.missing) + _bindings("unexpected", row.unexpected)
    return "\n".join(out)


def _worst(outcome: th.Outcome, assessment: Assessment) -> list[WindowRow]:
    """The rows that make this threshold fail, worst first (ties: time order)."""
    limit = outcome.threshold
    rows = [assessment.rows[k] for k in assessment.scored]
    if limit.scope == "window":
        picked = [rows[i] for i in outcome.failing]
    elif limit.scope == "aggregate":
        picked = [
            r
            for r in rows
            if not math.isnan(r.metric(limit.metric)) and not limit.holds(r.metric(limit.metric))
        ]
    elif limit.metric == "iou":
        # The windows that lose the most of the output.
        differing = [r for r in rows if r.precision < 1 or r.recall < 1]
        return [r for _, r in sorted(enumerate(differing), key=lambda p: (p[1].f1, p[0]))]
    else:
        return []
    ranked = sorted(
        enumerate(picked),
        key=lambda p: (-limit.badness(p[1].metric(limit.metric)), p[0]),
    )
    return [r for _, r in ranked]


def _moved(row: WindowRow, g: Borders) -> bool:
    """Whether gracious mode changed anything for the window (a border moved, or
    the scores differ); otherwise its gracious line would repeat the window's."""
    shifted = g.shift_start != 0 or g.shift_end != 0
    return shifted or (g.precision, g.recall) != (row.precision, row.recall)


def _bindings(label: str, solutions: tuple[Solution, ...]) -> list[str]:
    lines = [f"    {label}: {show(s)}" for s in solutions[:MAX_BINDINGS]]
    if len(solutions) > MAX_BINDINGS:
        lines.append(f"    ... {len(solutions) - MAX_BINDINGS} more {label}")
    return lines
