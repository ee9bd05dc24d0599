"""pytest-html integration, registered only when pytest-html is loaded.

Adds summary columns per item (verdict, matched t0, mean precision and
recall, p95 delay, peak RSS) and puts the item's panel (key figures,
thresholds, charts, window table: :mod:`pytest_rspbench.report.panel`) in its
extras, with a link to the full per-window data when artifacts are kept.
Every text placed in the page is escaped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.report.digest import digest, show

COLUMNS = ("Verdict", "t0", "Precision", "Recall", "Delay p95", "Peak RSS")
STYLE = (
    "<style>.rspbench table{border-collapse:collapse;margin:4px 0;font-size:12px}"
    ".rspbench td,.rspbench th{border:1px solid #ccc;padding:2px 5px;text-align:right}"
    ".rspbench tr.differs,.rspbench tr.fail,.rspbench td.FAIL,.rspbench td.error{background:#fdd}"
    ".rspbench td.pass{background:#dfd}"
    ".rspbench .rspbench-error{background:#fee;white-space:pre-wrap}"
    ".rspbench-caption{font-size:13px}"
    ".rspbench-note{font-size:12px;color:#444;margin:4px 0}"
    ".rspbench-windows td:nth-child(n+10){text-align:left}"
    ".rspbench-charts svg{display:block;margin:6px 0}</style>"
)


class HtmlHooks:
    """Hook implementations for pytest-html (>= 4), over the session's records.

    ``state`` is the session's state (anything with a ``results`` list of
    records, :mod:`pytest_rspbench.report.record`).
    """

    def __init__(self, state: Any) -> None:
        self.state = state

    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        for k, name in enumerate(COLUMNS):
            cells.insert(
                2 + k,
                f'<th class="sortable" data-column-type="rspbench{k}">{name}</th>',
            )

    def pytest_html_results_table_row(self, report: Any, cells: list[str]) -> None:
        for k, text in enumerate(row_cells(getattr(report, "rspbench", None))):
            cells.insert(2 + k, f'<td class="col-rspbench{k}">{escape(text)}</td>')

    def pytest_html_results_summary(
        self, prefix: list[str], summary: list[str], postfix: list[str], session: Any
    ) -> None:
        """The engines' functionality matrix, when the run covers several."""
        from pytest_rspbench.report.matrix import html_table

        table = html_table(self.state.results)
        if table:
            postfix.append(STYLE + f'<div class="rspbench">{table}</div>')

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Any:
        outcome = yield
        report = outcome.get_result()
        if report.when != "call":
            return
        record = _record(self.state.results, item.nodeid)
        if record is None:
            return
        from pytest_html import extras

        report.rspbench = dict(record_cells(record))
        link = data_link(record, item.config)
        added = [extras.html(STYLE + panel_html(record, link))]
        if link is not None:
            added.append(extras.url(link, name="metrics.json"))
        report.extras = [*getattr(report, "extras", []), *added]


def panel_html(record: Mapping[str, Any], link: str | None) -> str:
    """The item's panel without its error: pytest-html shows the failure text
    (the error, the stderr tail, the verdict) in the item's log already."""
    from pytest_rspbench.report.panel import panel

    return panel(record, link, errors=False)


def record_cells(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The column values of an item, as text."""
    d = digest(record)
    named = ", ".join(str(x.get("name")) for x in record.get("departures") or ())
    return [
        ("verdict", f"{d.verdict} ({named})" if named else d.verdict),
        ("t0", d.t0),
        ("precision", show("precision", d.precision)),
        ("recall", show("recall", d.recall)),
        ("delay_p95", show("delay", d.delay_p95)),
        ("peak_rss", show("peak_rss", d.peak_rss)),
    ]


def row_cells(info: Mapping[str, str] | None) -> list[str]:
    """One text per column; empty for tests that are not rspbench items."""
    keys = ("verdict", "t0", "precision", "recall", "delay_p95", "peak_rss")
    return [str((info or {}).get(k, "")) for k in keys]


def data_link(record: Mapping[str, Any], config: pytest.Config) -> str | None:
    """The item's metrics.json relative to the HTML report, if artifacts are kept."""
    if not record.get("artifacts"):
        return None
    target = Path(record["artifacts"]) / "metrics.json"
    html_path = getattr(config.option, "htmlpath", None)
    base = Path(html_path).resolve().parent if html_path else Path.cwd()
    return Path(os.path.relpath(target, base)).as_posix()


def _record(results: list[dict[str, Any]], nodeid: str) -> Mapping[str, Any] | None:
    return next((r for r in reversed(results) if r.get("nodeid") == nodeid), None)
