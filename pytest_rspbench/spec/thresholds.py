"""Threshold expressions: the conditions that turn a spec into a gate.

Grammar (one expression per list item in a spec)::

    recall >= 0.99 in every window      per window (subject to `mostly`)
    recall >= 0.99 in 90% of windows    per window, with its own share
    precision >= 1                      per window too (no aggregate given)
    mean(f1) >= 0.95                    one number over all windows
    p10(f1) >= 0.95   f1.p10 >= 0.95    percentiles, both spellings
    delay.p95 <= 300ms                  units: ms, s (times), % (ratios)
    iou >= 0.9                          run metrics: one number per run
    peak_rss <= 1GB                     B, KB, MB, GB (10^3), KiB, MiB, GiB (2^10)
    mean_cpu <= 150%                    CPU % of the engine (100 = one core)
    mismatch(rspjs, reference) <= 0.05  between two engines (LSBench §3.3)

Per-window metrics: see :data:`WINDOW_METRICS`; run metrics:
:data:`RUN_METRICS`. Aggregates: mean, min, max, median, pNN (p95, p99.9).

A window without a value (NaN: no delay when nothing arrived for it) is
neither a pass nor a failure of a per-window check (recall judges that
window), and is left out of an aggregate; an aggregate over no values at all
is NaN, which fails. A run metric without a value (no samples) fails.
"""

from __future__ import annotations

import difflib
import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_rspbench.errors import RspbenchError

WINDOW_METRICS = (
    "precision",
    "recall",
    "f1",
    "delay",
    "expected",
    "actual",
    "triples",
    "gracious_precision",
    "gracious_recall",
    "gracious_f1",
    "shift_start",
    "shift_end",
)
GRACIOUS_METRICS = WINDOW_METRICS[7:]
# The columns of the per-window table (the rest come from gracious mode).
TABLE_METRICS = WINDOW_METRICS[:7]
RUN_METRICS = ("iou", "peak_rss", "mean_cpu")
PAIR_METRICS = ("mismatch",)
TIMES = ("delay", "shift_start", "shift_end")
RATIOS = (
    "precision",
    "recall",
    "f1",
    "gracious_precision",
    "gracious_recall",
    "gracious_f1",
    "iou",
    "mismatch",
)
BYTES = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
}
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}
_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.-]*"
_FORM = re.compile(
    r"^\s*(?:(?P<agg>[a-z]\w*(?:\.\d+)?)\(\s*(?P<m1>[a-z_]\w*)\s*\)"
    rf"|mismatch\(\s*(?P<a>{_NAME})\s*,\s*(?P<b>{_NAME})\s*\)"
    r"|(?P<m2>[a-z_]\w*)(?:\.(?P<agg2>\w+(?:\.\d+)?))?)"
    r"\s*(?P<op>>=|<=|==|>|<)\s*(?P<num>-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*"
    r"(?P<unit>ms|s|%|B|KB|MB|GB|KiB|MiB|GiB)?"
    r"(?:(?P<every>\s+in\s+every\s+window)"
    r"|\s+in\s+(?P<share>\d+(?:\.\d+)?)%\s+of\s+(?:the\s+)?windows)?\s*$"
)


class ThresholdSyntaxError(RspbenchError, ValueError):
    """A threshold expression cannot be read."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class Threshold:
    """A parsed threshold.

    Attributes:
        aggregate: None for a per-window check (or a run metric).
        share: the share of windows that must pass (``in 90% of windows``);
            None: the spec's ``mostly``.
        engines: the two engines of ``mismatch(a, b)``.
    """

    text: str
    metric: str
    op: str
    value: float
    aggregate: str | None = None
    share: float | None = None
    engines: tuple[str, ...] = ()

    @property
    def scope(self) -> str:
        """``window``, ``aggregate``, ``run`` or ``pair`` (between engines)."""
        if self.metric in PAIR_METRICS:
            return "pair"
        if self.metric in RUN_METRICS:
            return "run"
        return "window" if self.aggregate is None else "aggregate"

    def holds(self, measured: float) -> bool:
        if math.isnan(measured):
            return False
        return _OPS[self.op](measured, self.value)

    def badness(self, measured: float) -> float:
        """Larger is worse: sorts failing windows worst first."""
        if math.isnan(measured):
            return math.inf
        return -measured if self.op in (">=", ">") else measured


@dataclass(frozen=True)
class Outcome:
    """The result of checking one threshold."""

    threshold: Threshold
    ok: bool
    measured: float
    failing: tuple[int, ...] = ()
    detail: str = ""


def parse(text: str) -> Threshold:
    """Parse one threshold expression.

    >>> parse("delay.p95 <= 0.3s")  # doctest: +NORMALIZE_WHITESPACE
    Threshold(text='delay.p95 <= 0.3s', metric='delay', op='<=', value=300.0,
              aggregate='p95', share=None, engines=())
    """
    match = _FORM.match(text)
    if match is None:
        raise ThresholdSyntaxError(
            f"cannot read threshold {text!r}",
            "write '<metric> <op> <number> [in every window]' or "
            "'<aggregate>(<metric>) <op> <number>', "
            "e.g. 'recall >= 0.99 in every window'",
        )
    engines = (match["a"], match["b"]) if match["a"] else ()
    if match["agg"] == "mismatch":
        raise ThresholdSyntaxError(
            f"mismatch in threshold {text!r} needs two engines",
            "write 'mismatch(<engine>, <engine>) <= <ratio>', "
            "e.g. 'mismatch(rspjs, reference) <= 0.05'",
        )
    metric = "mismatch" if engines else (match["m1"] or match["m2"])
    aggregate = match["agg"] or match["agg2"]
    known = WINDOW_METRICS + RUN_METRICS
    if metric not in known + PAIR_METRICS or (metric in PAIR_METRICS and not engines):
        raise ThresholdSyntaxError(
            f"unknown metric {metric!r} in threshold {text!r}",
            "metrics are: "
            + ", ".join(known)
            + ", and mismatch(<engine>, <engine>)."
            + _did_you_mean(metric, known + PAIR_METRICS),
        )
    unit = match["unit"]
    _check_unit(unit, metric, text)
    if aggregate is not None:
        _aggregator(aggregate, text)
    per_window = match["every"] or match["share"]
    if (aggregate is not None or metric not in WINDOW_METRICS) and per_window:
        what = "aggregates over windows" if aggregate else "is one number per run"
        raise ThresholdSyntaxError(
            f"{text!r} {what} and also says '{per_window.strip()}'",
            "drop one of the two",
        )
    if aggregate is not None and metric not in WINDOW_METRICS:
        raise ThresholdSyntaxError(
            f"{metric!r} is one number per run; {text!r} cannot aggregate it",
            f"write e.g. '{metric} {match['op']} {match['num']}{unit or ''}'",
        )
    share = None
    if match["share"] is not None:
        share = float(match["share"]) / 100
        if not 0 < share <= 1:
            raise ThresholdSyntaxError(
                f"share {match['share']}% in threshold {text!r} is not in (0%, 100%]",
                "write e.g. 'recall >= 0.99 in 90% of windows'",
            )
    value = _value(match["num"], unit, metric)
    return Threshold(text, metric, match["op"], value, aggregate, share, engines)


def evaluate(
    threshold: Threshold,
    rows: Sequence[Mapping[str, float]],
    mostly: float = 1.0,
    run: Mapping[str, float | None] | None = None,
) -> Outcome:
    """Check a threshold against per-window rows (dicts of metric values) or,
    for a run metric, against ``run`` (metric name -> value)."""
    if threshold.scope in ("run", "pair"):
        raw = (run or {}).get(threshold.metric)
        measured = math.nan if raw is None else float(raw)
        detail = f"{threshold.metric} = {_show(measured, threshold.metric)}"
        if math.isnan(measured):
            detail = f"{threshold.metric} has no value in this run" + _why_missing(threshold.metric)
        return Outcome(threshold, threshold.holds(measured), measured, detail=detail)
    values = [float(row[threshold.metric]) for row in rows]
    if threshold.aggregate is not None:
        # NaN would make min, max and sorting depend on the order of windows.
        present = [v for v in values if not math.isnan(v)]
        measured = _aggregator(threshold.aggregate, threshold.text)(present)
        left_out = len(values) - len(present)
        shown = _show(measured, threshold.metric)
        detail = f"{threshold.aggregate}({threshold.metric}) = {shown}"
        if left_out:
            detail += f" ({left_out} of {len(values)} windows without a value left out)"
        return Outcome(threshold, threshold.holds(measured), measured, detail=detail)
    need = threshold.share if threshold.share is not None else mostly
    # A window without a value (no delay: the engine reported nothing for it,
    # which recall judges) is neither a pass nor a failure of this threshold.
    measured_at = [i for i, v in enumerate(values) if not math.isnan(v)]
    failing = tuple(i for i in measured_at if not threshold.holds(values[i]))
    share = 1 - len(failing) / len(measured_at) if measured_at else 1.0
    ok = share >= need - 1e-12
    detail = f"{len(measured_at) - len(failing)} of {len(measured_at)} windows pass"
    if len(measured_at) < len(values):
        detail += f" ({len(values) - len(measured_at)} without a value left out)"
    if need < 1:
        detail += f" (need {need:.0%})"
    return Outcome(threshold, ok, share, failing, detail)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile ``q`` in [0, 100]; NaN for no values.

    >>> percentile([1, 2, 3, 4], 50)
    2.5
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def mean(values: Sequence[float]) -> float:
    """Exactly rounded mean (``math.fsum``: independent of the order of values)."""
    return math.fsum(values) / len(values) if values else math.nan


def show_value(value: float, metric: str) -> str:
    """A measured value with the metric's unit, for messages."""
    return _show(value, metric)


def _show(value: float, metric: str) -> str:
    if math.isnan(value):
        return "no value"
    if metric in TIMES:
        return f"{value:g} ms"
    if metric == "peak_rss":
        return f"{value / 2**20:.1f} MiB ({value:.0f} B)"
    if metric == "mean_cpu":
        return f"{value:.1f}%"
    return f"{value:.6g}"


def _why_missing(metric: str) -> str:
    if metric in ("peak_rss", "mean_cpu"):
        return " (no CPU/memory samples: the engine was not sampled)"
    if metric == "mismatch":
        return " (one of the two engines did not run)"
    return ""


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def _check_unit(unit: str | None, metric: str, text: str) -> None:
    if unit is None:
        return
    fits = (
        (unit in ("ms", "s") and metric in TIMES)
        or (unit == "%" and (metric in RATIOS or metric == "mean_cpu"))
        or (unit in BYTES and metric == "peak_rss")
    )
    if not fits:
        raise ThresholdSyntaxError(
            f"unit {unit!r} does not fit metric {metric!r} in threshold {text!r}",
            "ms and s are for delay and shifts, % for ratios (precision, recall, "
            "f1, iou, mismatch) and mean_cpu, B/KB/MB/GB/KiB/MiB/GiB for peak_rss; "
            "counts take a plain number",
        )


def _aggregator(name: str, text: str) -> Callable[[Sequence[float]], float]:
    simple: dict[str, Callable[[Sequence[float]], float]] = {
        "mean": mean,
        "min": lambda v: min(v) if v else math.nan,
        "max": lambda v: max(v) if v else math.nan,
        "median": lambda v: percentile(v, 50),
    }
    if name in simple:
        return simple[name]
    match = re.fullmatch(r"p(\d{1,2}(?:\.\d+)?|100)", name)
    if match:
        q = float(match.group(1))
        return lambda v: percentile(v, q)
    raise ThresholdSyntaxError(
        f"unknown aggregate {name!r} in threshold {text!r}",
        "use mean, min, max, median or pNN (e.g. p95)",
    )


def _value(number: str, unit: str | None, metric: str) -> float:
    value = float(number)
    if unit == "s":
        return value * 1000
    if unit == "%":
        return value if metric == "mean_cpu" else value / 100
    if unit in BYTES:
        return value * BYTES[unit]
    return value
