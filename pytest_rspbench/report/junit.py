"""Key metrics as JUnit ``user_properties`` (``--junitxml`` carries them to CI).

Names are stable (``rspbench.<metric>``); a run metric without a value (no
delay when replaying at max rate, no samples) is left out rather than
written as an empty property. ``rspbench.verdict`` is the failure's first
line (also the ``message`` of a failing test case) and
``rspbench.departures`` the names of its departure classes, comma-separated
(empty when it passed).
"""

from __future__ import annotations

from typing import Any


def properties(run: Any) -> list[tuple[str, Any]]:
    """``(name, value)`` pairs for one finished case."""
    a = run.assessment
    out: list[tuple[str, Any]] = [
        ("rspbench.passed", a.passed),
        ("rspbench.verdict", a.headline(run.profile.semantics.bounds)),
        ("rspbench.departures", ",".join(d.name for d in a.departures)),
        ("rspbench.matched_t0", a.matched.label if a.matched else None),
        ("rspbench.precision.mean", round(a.mean("precision"), 6)),
        ("rspbench.recall.mean", round(a.mean("recall"), 6)),
        ("rspbench.f1.mean", round(a.mean("f1"), 6)),
        ("rspbench.windows", len(a.rows)),
        ("rspbench.evaluator", run.expected.evaluator),
        ("rspbench.oracle_stored", run.expected.stored),
    ]
    if a.narrowing:
        out += [
            ("rspbench.t0_classes", run.expected.total_classes),
            ("rspbench.t0_narrowing", a.narrowing),
        ]
    metrics = getattr(a, "run", None)
    optional = (
        ("rspbench.iou", getattr(metrics, "iou", None)),
        ("rspbench.delay.p50", getattr(metrics, "delay_p50", None)),
        ("rspbench.delay.p95", getattr(metrics, "delay_p95", None)),
        ("rspbench.peak_rss", getattr(metrics, "peak_rss", None)),
        ("rspbench.mean_cpu", getattr(metrics, "mean_cpu", None)),
    )
    out += [(k, round(v, 6) if isinstance(v, float) else v) for k, v in optional if v is not None]
    return out
