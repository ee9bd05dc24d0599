"""The compact failure text shown for a failing item (no traceback)."""

from __future__ import annotations

from pytest_rspbench.bags import show
from pytest_rspbench.metrics import WindowRow
from pytest_rspbench.verdict import Assessment

MAX_BINDINGS = 5
MAX_WINDOWS = 10


def window_label(row: WindowRow, bounds: str) -> str:
    """``[10000,20000)`` written with the profile's bounds convention."""
    if row.window is None:
        return "(no window)"
    return f"{bounds[0]}{row.window[0]},{row.window[1]}{bounds[-1]}"


def failure_text(assessment: Assessment, bounds: str, engine_error: str | None) -> str:
    """What went wrong, with a table of the failing windows."""
    lines = []
    if engine_error:
        lines.append(f"ENGINE ERROR: {engine_error}")
    if assessment.mode == "strict" and assessment.matched is None:
        lines.append(
            f"strict verdict: no t0 class reproduces the engine's output "
            f"({assessment.classes_tried} class(es) tried, compared from t_s = "
            f"{assessment.stable_from} ms); closest: t0 = {assessment.chosen.label}"
        )
    for outcome in assessment.outcomes:
        if not outcome.ok:
            lines.append(f"threshold {outcome.threshold.text!r} failed: {outcome.detail or outcome.measured}")
    bad = [r for r in assessment.rows if r.precision < 1 or r.recall < 1]
    if bad:
        lines.append("")
        lines.append(table(bad[:MAX_WINDOWS], bounds))
        if len(bad) > MAX_WINDOWS:
            lines.append(f"... and {len(bad) - MAX_WINDOWS} more failing windows (see the artifacts)")
    return "\n".join(lines)


def table(rows: list[WindowRow], bounds: str) -> str:
    """Fixed-width table: window, sizes, precision, recall, delay, bindings."""
    head = f"{'window':<22} {'triples':>7} {'expected':>8} {'actual':>6} {'precision':>9} {'recall':>6} {'delay':>8}"
    out = [head, "-" * len(head)]
    for row in rows:
        delay = "-" if row.delay is None else f"{row.delay:.0f}ms"
        out.append(
            f"{window_label(row, bounds):<22} {row.triples:>7} {row.expected:>8} {row.actual:>6} "
            f"{row.precision:>9.3f} {row.recall:>6.3f} {delay:>8}"
        )
        out += _bindings("missing", row.missing) + _bindings("unexpected", row.unexpected)
    return "\n".join(out)


def _bindings(label: str, solutions: tuple) -> list[str]:  # type: ignore[type-arg]
    lines = [f"    {label}: {show(s)}" for s in solutions[:MAX_BINDINGS]]
    if len(solutions) > MAX_BINDINGS:
        lines.append(f"    ... {len(solutions) - MAX_BINDINGS} more {label}")
    return lines
