"""The spec's replay settings: durations, the speed and the timeout."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pytest_rspbench.rsp import rspql
from pytest_rspbench.spec.diagnostics import did_you_mean, spec_error
from pytest_rspbench.spec.located import Document, Path_
from pytest_rspbench.spec.templates import PLACEHOLDER

DEFAULT_TIMEOUT = 300.0
MAX_TIMEOUT = 7 * 24 * 3600.0
"""The longest ``replay.timeout``, seconds (a week)."""
MAX_SPEED = 1_000_000.0
"""The highest ``replay.speed``: a million times faster than real time."""


def read_duration(value: Any, where: Path_, document: Document, filename: str) -> int:
    """Milliseconds from ``2000``, ``2000ms``, ``2s`` or ``PT2S``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    try:
        return rspql.duration_ms(str(value).strip())
    except (rspql.QuerySyntaxError, OverflowError, ValueError):
        raise spec_error(
            filename,
            document,
            where,
            f"cannot read {value!r} as a duration.",
            "write milliseconds (2000), a number with a unit (2000ms, 2s) "
            "or an ISO 8601 duration (PT2S).",
        ) from None


def read_speed(
    replay: Mapping[str, Any],
    params: Mapping[str, Any],
    document: Document,
    filename: str,
) -> float:
    value = replay.get("speed", 0)
    where = ("replay", "speed")
    if not isinstance(value, str):
        return check_speed(value, str(value), document, filename)
    whole = PLACEHOLDER.fullmatch(value.strip())
    if whole is None or whole.group(1) not in params:
        name = whole.group(1) if whole else None
        raise spec_error(
            filename,
            document,
            where,
            f"replay speed {value!r} is neither a number nor a placeholder of a matrix parameter.",
            "write a number (0: as fast as possible, 1: real time) or '${speed}' "
            "with 'speed: [1, 2, 4]' under 'matrix:'."
            + (did_you_mean(name, params) if name else ""),
        )
    return check_speed(params[whole.group(1)], value, document, filename)


def check_speed(speed: Any, written: str, document: Document, filename: str) -> float:
    if (
        isinstance(speed, bool)
        or not isinstance(speed, (int, float))
        or not 0 <= speed <= MAX_SPEED  # also false for .nan
    ):
        became = "" if written == str(speed) else f" (from {written})"
        number = isinstance(speed, (int, float)) and not isinstance(speed, bool)
        raise spec_error(
            filename,
            document,
            ("replay", "speed"),
            f"replay speed {short(speed)}{became} is "
            f"{'out of range' if number else 'not a number'}; a speed is a "
            f"number from 0 to {MAX_SPEED:,.0f}.",
            "write 0 (as fast as possible), 1 (real time) or a speed-up such as 10"
            + (
                f"; list such numbers under 'matrix: {written[2:-1]}:'."
                if written.startswith("${")
                else "."
            ),
        )
    return float(speed)


def read_timeout(replay: Mapping[str, Any], document: Document, filename: str) -> float:
    value = replay.get("timeout", DEFAULT_TIMEOUT)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not 0 < value <= MAX_TIMEOUT  # also false for .nan
    ):
        raise spec_error(
            filename,
            document,
            ("replay", "timeout"),
            f"replay timeout {short(value)} is out of range; it is a number of "
            f"seconds above 0 and at most {MAX_TIMEOUT:,.0f} (a week).",
            f"write the seconds an engine may take, e.g. {DEFAULT_TIMEOUT:.0f}.",
        )
    return float(value)


def short(value: Any) -> str:
    """A value as YAML writes it: ``.inf``, ``.nan``, ``'fast'``, ``12``."""
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    text = repr(value)
    return text if len(text) <= 40 else text[:36] + " ..."
