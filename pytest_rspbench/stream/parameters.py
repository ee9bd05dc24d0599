"""Bounds of stream parameters: every number a stream takes is finite and in range.

A generator checks its parameters when its configuration is built, and the
spec loader builds every stream's configuration when it loads the spec, so a
value out of range is a spec error at ``file:line`` before anything runs
(``rate: .inf`` once grew a run's memory without bound; ``start: 2**64`` once
failed deep inside Spark). The bounds keep each run finite in time and memory:

- times are whole milliseconds within :data:`MAX_TIME` of 0, exact in a
  double (JSON, JavaScript engines) and far from overflowing Spark's 64-bit
  longs when added or multiplied by a window count;
- a generator makes at most :data:`MAX_RECORDS` records in all, and at most
  :data:`MAX_PER_MS` in one millisecond (one event is held in memory whole).

The same bounds are written in ``schemas/spec-v1.schema.json`` for editors;
``tests/test_spec_bounds.py`` checks that both agree.
"""

from __future__ import annotations

import math
from typing import Any

from pytest_rspbench.errors import StreamError

MAX_TIME = 2**53 - 1
"""The largest time or duration in ms (about 285,000 years)."""
MAX_RECORDS = 10**9
"""The most records one generated stream may have."""
MAX_PER_MS = 100_000
"""The most records a generator may put in one millisecond."""
JAVA_LONG = 2**63
"""Seeds are Java longs: ``-2**63 <= seed < 2**63``."""


class ParameterError(StreamError):
    """A stream parameter that is missing, of the wrong type or out of range.

    Attributes:
        source: the generator (``workload``) or stream setting it belongs to.
        parameter: its name, as written in the spec (``rate``).
        problem: what is wrong, without the source's name.
        hint: what to write instead.
    """

    def __init__(self, source: str, parameter: str, problem: str, hint: str) -> None:
        super().__init__(f"{source}: {problem}\nHINT: {hint}")
        self.source = source
        self.parameter = parameter
        self.problem = problem
        self.hint = hint


def integer(source: str, name: str, value: Any, low: int, high: int, unit: str = "") -> int:
    """``value`` if it is an integer in ``[low, high]``, else a ParameterError.

    >>> integer("workload", "period", 10_000, 1, MAX_TIME, "ms")
    10000
    >>> integer("workload", "period", 0, 1, MAX_TIME, "ms")
    Traceback (most recent call last):
    ...
    pytest_rspbench.stream.parameters.ParameterError: workload: period must be \
a whole number from 1 to 9,007,199,254,740,991 (ms), got 0.
    HINT: write a whole number from 1 to 9,007,199,254,740,991.
    """
    if type(value) is not int or not low <= value <= high:
        raise ParameterError(
            source,
            name,
            f"{name} must be a whole number from {_show(low)} to {_show(high)}"
            f"{f' ({unit})' if unit else ''}, got {_value(value)}.",
            f"write a whole number from {_show(low)} to {_show(high)}"
            + (" (no decimal point, no quotes)." if _looks_numeric(value) else "."),
        )
    return value


def number(
    source: str,
    name: str,
    value: Any,
    low: float,
    high: float,
    unit: str = "",
    above_low: bool = False,
) -> float:
    """``value`` if it is a finite number in range, else a ParameterError.

    The range is ``[low, high]``, or ``(low, high]`` with ``above_low``.

    >>> number("workload", "rate", 2.5, 0, 1e7)
    2.5
    >>> number("workload", "rate", float("inf"), 0, 1e7, "records/s")
    Traceback (most recent call last):
    ...
    pytest_rspbench.stream.parameters.ParameterError: workload: rate must be \
a finite number from 0 to 10,000,000 (records/s), got .inf.
    HINT: write a number from 0 to 10,000,000; .inf and .nan are not values \
a stream can take.
    """
    valid = (
        not isinstance(value, bool)
        and isinstance(value, (int, float))
        and math.isfinite(value)
        and (low < value if above_low else low <= value)
        and value <= high
    )
    if not valid:
        span = (
            f"above {_show(low)} and at most {_show(high)}"
            if above_low
            else f"from {_show(low)} to {_show(high)}"
        )
        raise ParameterError(
            source,
            name,
            f"{name} must be a finite number {span}"
            f"{f' ({unit})' if unit else ''}, got {_value(value)}.",
            f"write a number {span}; .inf and .nan are not values a stream can take.",
        )
    return float(value) if isinstance(value, float) else value


def seed(source: str, value: Any) -> int:
    """A seed: any whole number that fits a Java long."""
    return integer(source, "seed", value, -JAVA_LONG, JAVA_LONG - 1)


def records(source: str, name: str, count: float, hint: str) -> None:
    """Refuse a stream of about ``count`` records when that is over the bound."""
    if count > MAX_RECORDS:
        raise ParameterError(
            source,
            name,
            f"these settings make about {_show(count)} records; a stream may have "
            f"at most {_show(MAX_RECORDS)}.",
            hint,
        )


def _show(value: float) -> str:
    """``10000000`` -> ``10,000,000``; ``0.5`` stays ``0.5``."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.6g}" if abs(value) < 1e15 else f"{value:.3g}"
    if abs(value) >= 1e21:
        return f"{value:.3g}"
    return f"{int(value):,}"


def _value(value: Any) -> str:
    """A bad value as the user wrote it in YAML: ``.inf``, ``.nan``, ``'fast'``."""
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 60 else text[:56] + " ..."


def _looks_numeric(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)
