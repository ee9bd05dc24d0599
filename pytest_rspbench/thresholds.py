"""Threshold expressions: the conditions that turn a spec into a gate.

Grammar (one expression per list item in a spec)::

    recall >= 0.99 in every window      per window (subject to `mostly`)
    precision >= 1                      per window too (no aggregate given)
    mean(f1) >= 0.95                    one number over all windows
    p10(f1) >= 0.95   f1.p10 >= 0.95    percentiles, both spellings
    delay.p95 <= 300ms                  units: ms, s (times), % (ratios)

Per-window metrics: precision, recall, f1, delay (ms), expected, actual,
triples. Aggregates: mean, min, max, median, pNN (p95, p99.9).

A window without a value (NaN: no delay when nothing arrived for it) fails a
per-window check, and is left out of an aggregate; an aggregate over no
values at all is NaN, which fails.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_rspbench.errors import RspbenchError

WINDOW_METRICS = ("precision", "recall", "f1", "delay", "expected", "actual", "triples")
_UNITS = {"ms": ("delay",), "s": ("delay",), "%": ("precision", "recall", "f1")}
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}
_FORM = re.compile(
    r"^\s*(?:(?P<agg>[a-z]\w*(?:\.\d+)?)\(\s*(?P<m1>[a-z_]\w*)\s*\)"
    r"|(?P<m2>[a-z_]\w*)(?:\.(?P<agg2>\w+(?:\.\d+)?))?)"
    r"\s*(?P<op>>=|<=|==|>|<)\s*(?P<num>-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*(?P<unit>ms|s|%)?"
    r"(?P<every>\s+in\s+every\s+window)?\s*$"
)


class ThresholdSyntaxError(RspbenchError, ValueError):
    """A threshold expression cannot be read."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class Threshold:
    """A parsed threshold. ``aggregate`` None means: check every window."""

    text: str
    metric: str
    op: str
    value: float
    aggregate: str | None = None

    def holds(self, measured: float) -> bool:
        if math.isnan(measured):
            return False
        return _OPS[self.op](measured, self.value)


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
              aggregate='p95')
    """
    match = _FORM.match(text)
    if match is None:
        raise ThresholdSyntaxError(
            f"cannot read threshold {text!r}",
            "write '<metric> <op> <number> [in every window]' or "
            "'<aggregate>(<metric>) <op> <number>', "
            "e.g. 'recall >= 0.99 in every window'",
        )
    metric = match["m1"] or match["m2"]
    aggregate = match["agg"] or match["agg2"]
    if metric not in WINDOW_METRICS:
        raise ThresholdSyntaxError(
            f"unknown metric {metric!r} in threshold {text!r}",
            "metrics are: " + ", ".join(WINDOW_METRICS),
        )
    unit = match["unit"]
    if unit is not None and metric not in _UNITS[unit]:
        raise ThresholdSyntaxError(
            f"unit {unit!r} does not fit metric {metric!r} in threshold {text!r}",
            "ms and s are for delay, % for precision, recall and f1; "
            "counts take a plain number",
        )
    if aggregate is not None:
        _aggregator(aggregate, text)
        if match["every"]:
            raise ThresholdSyntaxError(
                f"{text!r} aggregates over windows and also says 'in every window'",
                "drop one of the two",
            )
    return Threshold(
        text, metric, match["op"], _value(match["num"], match["unit"]), aggregate
    )


def evaluate(
    threshold: Threshold, rows: Sequence[Mapping[str, float]], mostly: float = 1.0
) -> Outcome:
    """Check a threshold against per-window rows (dicts of metric values)."""
    values = [float(row[threshold.metric]) for row in rows]
    if threshold.aggregate is not None:
        # NaN would make min, max and sorting depend on the order of windows.
        present = [v for v in values if not math.isnan(v)]
        measured = _aggregator(threshold.aggregate, threshold.text)(present)
        left_out = len(values) - len(present)
        detail = (
            f"{measured:g} ({left_out} of {len(values)} windows "
            "without a value left out)"
            if left_out
            else ""
        )
        return Outcome(threshold, threshold.holds(measured), measured, detail=detail)
    # A window without a value (no delay: the engine reported nothing for it,
    # which recall judges) is neither a pass nor a failure of this threshold.
    measured_at = [i for i, v in enumerate(values) if not math.isnan(v)]
    failing = tuple(i for i in measured_at if not threshold.holds(values[i]))
    share = 1 - len(failing) / len(measured_at) if measured_at else 1.0
    ok = share >= mostly - 1e-12
    detail = f"{len(measured_at) - len(failing)} of {len(measured_at)} windows pass"
    if len(measured_at) < len(values):
        detail += f" ({len(values) - len(measured_at)} without a value left out)"
    if mostly < 1:
        detail += f" (need {mostly:.0%})"
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


def _aggregator(name: str, text: str) -> Callable[[Sequence[float]], float]:
    simple = {
        "mean": lambda v: sum(v) / len(v) if v else math.nan,
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


def _value(number: str, unit: str | None) -> float:
    value = float(number)
    if unit == "s":
        return value * 1000
    if unit == "%":
        return value / 100
    return value
