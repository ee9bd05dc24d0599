"""The end-of-session summary table in the terminal: one line per item."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_rspbench.report.digest import digest, show

COLUMNS = (
    ("verdict", 7, "<"),
    ("t0", 10, "<"),
    ("precision", 9, ">"),
    ("recall", 6, ">"),
    ("delay p95", 9, ">"),
    ("peak RSS", 10, ">"),
    ("windows", 7, ">"),
)


def summary_lines(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """Fixed-width lines: verdict, t0, mean precision/recall, p95 delay, peak RSS, item.

    >>> summary_lines([{"nodeid": "a.yaml::a", "passed": True, "matched_t0": "0",
    ...                 "windows": [{"index": 0, "precision": 1.0, "recall": 1.0}]}])[2]
    'pass    0              1.000  1.000         -          -       1  a.yaml::a'
    """
    if not items:
        return []
    head = " ".join(f"{name:{align}{width}}" for name, width, align in COLUMNS) + "  item"
    lines = [head, "-" * len(head)]
    for item in items:
        d = digest(item)
        values = (
            d.verdict,
            _cut(d.t0, 10),
            show("precision", d.precision),
            show("recall", d.recall),
            show("delay", d.delay_p95),
            show("peak_rss", d.peak_rss),
            str(d.windows),
        )
        cells = " ".join(
            f"{v:{align}{width}}" for v, (_, width, align) in zip(values, COLUMNS, strict=True)
        )
        lines.append(f"{cells}  {item.get('nodeid', '')}")
    counts = Counter(digest(i).verdict for i in items)
    lines.append(", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    return lines


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
