"""The end-of-session summary table in the terminal: one line per item."""

from __future__ import annotations

from typing import Any


def summary_lines(items: list[dict[str, Any]]) -> list[str]:
    """Fixed-width lines: verdict, t0, mean precision/recall, windows, item."""
    if not items:
        return []
    head = f"{'verdict':<8} {'t0':<12} {'precision':>9} {'recall':>6} {'windows':>7} {'oracle':>8}  item"
    lines = [head, "-" * len(head)]
    for item in items:
        windows = item.get("windows", [])
        precision = _mean(w["precision"] for w in windows)
        recall = _mean(w["recall"] for w in windows)
        t0 = item.get("matched_t0") or f"~{item.get('closest_t0')}"
        verdict = "error" if item.get("engine_error") else ("pass" if item.get("passed") else "FAIL")
        lines.append(
            f"{verdict:<8} {t0:<12} {precision:>9.3f} {recall:>6.3f} {len(windows):>7} "
            f"{item.get('oracle_seconds', 0):>7.1f}s  {item.get('nodeid', '')}"
        )
    return lines


def _mean(values: Any) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 1.0
