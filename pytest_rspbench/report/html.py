"""pytest-html integration, registered only when pytest-html is loaded.

Adds summary columns per item and, in the item's extras, the per-window
metrics table. Every text placed in the page is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

import pytest

from pytest_rspbench.report.text import window_label

MAX_ROWS = 200


class HtmlHooks:
    """Hook implementations for pytest-html (>= 4)."""

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        cells.insert(2, "<th>Verdict</th>")
        cells.insert(3, "<th>t0</th>")
        cells.insert(4, "<th>Precision</th>")
        cells.insert(5, "<th>Recall</th>")

    def pytest_html_results_table_row(self, report: Any, cells: list[str]) -> None:
        info = getattr(report, "rspbench", None) or {}
        cells.insert(2, f"<td>{escape(str(info.get('verdict', '')))}</td>")
        cells.insert(3, f"<td>{escape(str(info.get('t0', '')))}</td>")
        cells.insert(4, f"<td>{_fmt(info.get('precision'))}</td>")
        cells.insert(5, f"<td>{_fmt(info.get('recall'))}</td>")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Any:
        outcome = yield
        report = outcome.get_result()
        if report.when != "call":
            return
        from pytest_rspbench.plugin import RUN_KEY

        run = item.stash.get(RUN_KEY, None)
        if run is None:
            return
        from pytest_html import extras

        a = run.assessment
        report.rspbench = {
            "verdict": "pass" if a.passed else "fail",
            "t0": a.matched.label if a.matched else f"none (closest {a.chosen.label})",
            "precision": a.mean("precision"),
            "recall": a.mean("recall"),
        }
        report.extras = [*getattr(report, "extras", []), extras.html(charts(run) + window_table(run))]


def window_table(run: Any) -> str:
    """The per-window metrics table as escaped HTML."""
    a = run.assessment
    bounds = run.profile.semantics.bounds
    head = "".join(
        f"<th>{h}</th>"
        for h in ("window", "triples", "expected", "actual", "precision", "recall", "F1", "delay (ms)")
    )
    rows = []
    for row in a.rows[:MAX_ROWS]:
        cells = (
            window_label(row, bounds), row.triples, row.expected, row.actual,
            _fmt(row.precision), _fmt(row.recall), _fmt(row.f1),
            "-" if row.delay is None else f"{row.delay:.0f}",
        )
        style = "" if row.precision == 1 and row.recall == 1 else ' style="background:#fdd"'
        rows.append(f"<tr{style}>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>")
    note = ""
    if len(a.rows) > MAX_ROWS:
        note = f"<p>{len(a.rows) - MAX_ROWS} more windows in the artifacts (metrics.json).</p>"
    caption = escape(
        f"engine {run.profile.name}, bounds {bounds}, t0 {a.chosen.label}, "
        f"oracle: {run.expected.evaluator}"
        + (f" ({run.expected.fallback_reason})" if run.expected.fallback_reason else "")
    )
    return (
        f'<div class="rspbench"><p>{caption}</p><table border="1" cellpadding="3">'
        f"<tr>{head}</tr>{''.join(rows)}</table>{note}</div>"
    )


def charts(run: Any) -> str:
    """Precision/recall per window with window bands; sizes and delay per window."""
    from pytest_rspbench.report.charts import bar_chart, line_chart

    rows = [r for r in run.assessment.rows if r.window is not None]
    if not rows:
        return ""
    xs = [float(r.window[1]) for r in rows]
    bands = [(float(r.window[0]), float(r.window[1])) for r in rows[:MAX_ROWS]]
    quality = line_chart(
        "precision and recall per window (x: window close, ms)", xs,
        {"precision": [r.precision for r in rows], "recall": [r.recall for r in rows]},
        bands=bands, y_range=(0.0, 1.0), x_label="window close (ms)",
    )
    sizes = bar_chart(
        "expected vs actual result size per window", xs,
        {"expected": [float(r.expected) for r in rows], "actual": [float(r.actual) for r in rows]},
        x_label="window",
    )
    out = quality + sizes
    delays = [r.delay for r in rows]
    if any(d is not None for d in delays):
        out += line_chart(
            "delay per window (ms)", xs,
            {"delay": [float("nan") if d is None else d for d in delays]}, x_label="window close (ms)",
        )
    samples = getattr(run.actual, "samples", None) or []
    if samples:
        times = [float(s.get("t", s.get("time", 0))) for s in samples]
        out += line_chart(
            "engine RSS (MiB) over time (s)", times,
            {"rss": [s.get("rss", 0) / 2**20 for s in samples]}, x_label="seconds",
        )
    return f'<div class="rspbench-charts">{out}</div>'


def _fmt(value: Any) -> str:
    return "" if value is None else escape(f"{value:.3f}")
