"""Key figures of one item, read from its results record.

The terminal table, the pytest-html columns, JUnit properties and baseline
comparisons all show the same few numbers; they are computed here, from the
JSON-ready record (``results.item_record``), so a results file read back
later gives exactly what the live run showed.

Metric names follow the threshold grammar (:mod:`pytest_rspbench.spec.thresholds`):
a per-window metric alone is its mean over the windows, ``metric.AGG`` picks
an aggregate (``min``, ``max``, ``mean``, ``median``, ``pNN``); run metrics
(``iou``, ``peak_rss``, ``mean_cpu``) and ``seconds`` (engine run time) are
one number per run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_rspbench.spec.thresholds import TABLE_METRICS, mean, percentile

WINDOW_KEYS = TABLE_METRICS
GRACIOUS_KEYS = {
    "gracious_precision": "precision",
    "gracious_recall": "recall",
    "gracious_f1": "f1",
    "shift_start": "shift_start",
    "shift_end": "shift_end",
}
RUN_KEYS = {
    "iou": ("run_metrics", "iou"),
    "peak_rss": ("engine_peak_rss", None),
    "mean_cpu": ("engine_mean_cpu", None),
    "seconds": ("engine_seconds", None),
    "oracle_seconds": ("oracle_seconds", None),
}
HIGHER_IS_BETTER = {
    "precision",
    "recall",
    "f1",
    "iou",
    "gracious_precision",
    "gracious_recall",
    "gracious_f1",
    "expected",
    "actual",
}
_NAME = re.compile(
    r"^(?P<metric>[a-z_][a-z0-9_]*)(?:\.(?P<agg>mean|min|max|median|p\d+(?:\.\d+)?))?$"
)


@dataclass(frozen=True)
class Digest:
    """What one line of a summary shows for an item."""

    verdict: str
    t0: str
    precision: float | None
    recall: float | None
    delay_p95: float | None
    peak_rss: float | None
    iou: float | None
    windows: int


def digest(record: Mapping[str, Any]) -> Digest:
    """The key figures of a results record.

    >>> d = digest({"passed": True, "matched_t0": "0", "windows": [
    ...     {"index": 0, "precision": 1.0, "recall": 0.5, "delay": None}]})
    >>> d.verdict, d.recall, d.delay_p95
    ('pass', 0.5, None)
    """
    return Digest(
        verdict=verdict(record),
        t0=t0_text(record),
        precision=value(record, "precision"),
        recall=value(record, "recall"),
        delay_p95=value(record, "delay.p95"),
        peak_rss=value(record, "peak_rss"),
        iou=value(record, "iou"),
        windows=len(record.get("windows") or ()),
    )


def t0_text(record: Mapping[str, Any]) -> str:
    """The t0 class an item was judged against, as its label.

    The class that matched (strict and containment verdicts); for a passing
    graded verdict, which matches no class, the class its windows were scored
    against (the closest one, RSP-QL Def. 26); ``~label`` marks the closest
    class of an item that did not pass; ``-`` when there is none.

    >>> t0_text({"passed": True, "matched_t0": "0..999", "closest_t0": "0..999"})
    '0..999'
    >>> t0_text({"passed": True, "matched_t0": None, "closest_t0": "0"})
    '0'
    >>> t0_text({"passed": False, "matched_t0": None, "closest_t0": "0"}), t0_text({})
    ('~0', '-')
    """
    matched, closest = record.get("matched_t0"), record.get("closest_t0")
    if matched is not None:
        return str(matched)
    if closest is None:
        return "-"
    return str(closest) if record.get("passed") else f"~{closest}"


def nothing_came(windows: int, solutions: int) -> str:
    """What replaces the table of missing windows when an engine failed (for
    example at registration) before it gave any result: every window would be
    listed as missing, which says nothing the error does not.

    >>> nothing_came(4, 10)
    'no result came from the engine before the error: ... (4 windows, 10 solutions)'
    """
    return (
        "no result came from the engine before the error: every expected window "
        f"is missing ({windows} windows, {solutions} solutions)"
    )


def verdict(record: Mapping[str, Any]) -> str:
    """``pass``, ``FAIL``, ``error`` (the engine failed or pytest's setup did),
    ``skipped``, ``xfail`` (a declared known failure that still fails); ``-``
    when nothing is known yet. A known failure that passed is ``FAIL``, as
    pytest reports it (``XPASS(strict)``): its ``known_failures`` entry is out
    of date.

    >>> verdict({"outcome": "failed", "passed": True, "xpass_strict": "fixed"})
    'FAIL'
    """
    outcome = record.get("outcome")
    if outcome in ("skipped", "error"):
        return str(outcome)
    if outcome == "xfailed":
        return "xfail"
    if outcome == "failed" and record.get("xpass_strict") is not None:
        return "FAIL"
    if "passed" not in record:
        return {"passed": "pass", "failed": "FAIL"}.get(str(outcome), "-")
    if record.get("engine_error"):
        return "error"
    return "pass" if record.get("passed") else "FAIL"


def parse_name(name: str) -> tuple[str, str | None]:
    """``delay.p95`` -> ``("delay", "p95")``; raises ValueError for unknown names."""
    found = _NAME.match(name.strip())
    if not found:
        raise ValueError(f"cannot read metric name {name!r}")
    metric, agg = found["metric"], found["agg"]
    if metric not in (*WINDOW_KEYS, *GRACIOUS_KEYS, *RUN_KEYS):
        known = ", ".join((*WINDOW_KEYS, *GRACIOUS_KEYS, *RUN_KEYS))
        raise ValueError(f"unknown metric {metric!r} (known: {known})")
    if metric in RUN_KEYS and agg is not None:
        raise ValueError(f"{metric} is one number per run; write it without .{agg}")
    return metric, agg


def value(record: Mapping[str, Any], name: str) -> float | None:
    """The named metric of a record; None when the run has no value for it."""
    metric, agg = parse_name(name)
    if metric in RUN_KEYS:
        key, sub = RUN_KEYS[metric]
        found = record.get(key)
        if sub is not None:
            found = (found or {}).get(sub) if isinstance(found, Mapping) else None
        return None if found is None else float(found)
    values = window_values(record.get("windows") or (), metric)
    if not values:
        return None
    result = aggregate(values, agg or "mean")
    return None if math.isnan(result) else result


def window_values(windows: Sequence[Mapping[str, Any]], metric: str) -> list[float]:
    """One value per expected window (leftover results have no index)."""
    out = []
    for window in windows:
        if window.get("index") is None:
            continue
        if metric in GRACIOUS_KEYS:
            source = window.get("gracious") or {}
            found = source.get(GRACIOUS_KEYS[metric])
        else:
            found = window.get(metric)
        if found is not None:
            out.append(float(found))
    return out


def aggregate(values: Sequence[float], how: str) -> float:
    """``mean``, ``min``, ``max``, ``median`` or ``pNN`` of ``values``.

    >>> aggregate([1, 2, 3, 4], "p50"), aggregate([3, 1], "min")
    (2.5, 1)
    """
    if how == "mean":
        return mean(values)
    if how in ("min", "max"):
        return min(values) if how == "min" else max(values)
    q = 50.0 if how == "median" else float(how[1:])
    return percentile(values, q)


def higher_is_better(metric: str) -> bool:
    """Whether a rise of ``metric`` is an improvement."""
    return metric in HIGHER_IS_BETTER


def show(metric: str, number: float | None) -> str:
    """A value with the metric's unit: ``0.995``, ``120 ms``, ``512.0 MiB``."""
    if number is None or (isinstance(number, float) and math.isnan(number)):
        return "-"
    if metric in ("delay", "shift_start", "shift_end"):
        return f"{number:.0f} ms"
    if metric == "peak_rss":
        return f"{number / 2**20:.1f} MiB"
    if metric == "mean_cpu":
        return f"{number:.0f}%"
    if metric in ("seconds", "oracle_seconds"):
        return f"{number:.2f} s"
    if metric in ("expected", "actual", "triples"):
        return f"{number:g}"
    return f"{number:.3f}"
