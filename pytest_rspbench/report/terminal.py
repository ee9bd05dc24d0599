"""The end-of-session summary table in the terminal: one line per item (with
``-q``, per item that did not pass), a count line and legend lines."""

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


def summary_lines(items: Sequence[Mapping[str, Any]], quiet: bool = False) -> list[str]:
    """Fixed-width lines: verdict, t0, mean precision/recall, p95 delay, peak RSS, item.

    ``quiet`` (pytest's ``-q``) lists only the items that did not pass; the
    count line still counts them all. Legend lines follow for a ``~`` in the
    t0 column and for the figures of in-process engines (``*``).

    >>> summary_lines([{"nodeid": "a.yaml::a", "passed": True, "matched_t0": "0",
    ...                 "windows": [{"index": 0, "precision": 1.0, "recall": 1.0}]}])[2]
    'pass    0              1.000  1.000         -          -       1  a.yaml::a'
    >>> summary_lines([{"nodeid": "a.yaml::a", "passed": True}], quiet=True)
    ['1 pass (not listed: -q)']
    """
    if not items:
        return []
    digests = [digest(i) for i in items]
    shown = [
        (i, d) for i, d in zip(items, digests, strict=True) if not quiet or d.verdict != "pass"
    ]
    lines = []
    if shown:
        head = " ".join(f"{name:{align}{width}}" for name, width, align in COLUMNS) + "  item"
        lines = [head, "-" * len(head)]
    for item, d in shown:
        rss = show("peak_rss", d.peak_rss)
        values = (
            d.verdict,
            _cut(d.t0, 10),
            show("precision", d.precision),
            show("recall", d.recall),
            show("delay", d.delay_p95),
            rss + "*" if item.get("engine_in_process") and d.peak_rss is not None else rss,
            str(d.windows),
        )
        cells = " ".join(
            f"{v:{align}{width}}" for v, (_, width, align) in zip(values, COLUMNS, strict=True)
        )
        lines.append(f"{cells}  {item.get('nodeid', '')}")
    counts = Counter(d.verdict for d in digests)
    total = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    hidden = len(items) - len(shown)
    lines.append(total + (" (not listed: -q)" if hidden and quiet else ""))
    return lines + _legend([i for i, _ in shown], [d for _, d in shown])


def _legend(items: Sequence[Mapping[str, Any]], digests: Sequence[Any]) -> list[str]:
    """What a ``~`` in the t0 column and a ``*`` after a peak RSS mean."""
    out = []
    if any(d.t0.startswith("~") for d in digests):
        out.append(
            "t0 ~N: no t0 class reproduces the output; N is the closest class, the "
            "one the windows are scored against (docs/reports.md)"
        )
    if any(
        i.get("engine_in_process") and d.peak_rss is not None
        for i, d in zip(items, digests, strict=True)
    ):
        out.append(
            "peak RSS *: in-process engine: the harness's memory (pytest, the engine "
            "and the oracle's threads), not the engine's alone (docs/metrics.md)"
        )
    return out


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
