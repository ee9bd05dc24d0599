"""A standalone HTML report from a results document (``rspbench report``).

One self-contained page, plain HTML and inline SVG (no script, no external
request): the run's metadata, the engines' functionality matrix when the
run covers several engines, a summary table with one line per item, then
one collapsible section per item holding the same panel as the pytest-html
extras. Items that did not pass are open (the first :data:`OPEN_LIMIT`), so
the page opens quickly even for hundreds of items: closed ``<details>`` are
not laid out until opened.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from pytest_rspbench.report.digest import digest, show
from pytest_rspbench.report.matrix import html_table
from pytest_rspbench.report.panel import panel

OPEN_LIMIT = 20
STYLE = """
body{font-family:sans-serif;margin:16px;color:#222}
h1{font-size:20px;margin:0 0 4px}
.meta{color:#555;font-size:12px;margin:2px 0}
table{border-collapse:collapse;margin:6px 0;font-size:12px}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
td:first-child,th:first-child,.rspbench-summary td.id{text-align:left}
tr.differs,tr.fail,td.FAIL,td.error{background:#fdd}
td.pass{background:#dfd}
h2{font-size:16px;margin:12px 0 4px}
.rspbench-caption{font-size:13px;margin:4px 0}
.rspbench-error{background:#fee;white-space:pre-wrap;padding:4px}
.rspbench-note{font-size:12px;color:#444;margin:4px 0}
.rspbench-windows td:nth-child(n+10){text-align:left}
details{border:1px solid #ddd;margin:8px 0;padding:4px 8px}
summary{cursor:pointer;font-weight:bold}
.rspbench-charts svg{display:block;margin:8px 0}
"""


def render(doc: Mapping[str, Any], out_dir: Path | None = None) -> str:
    """The whole page; artifact links are made relative to ``out_dir``."""
    items = list(doc.get("items") or ())
    sections = []
    opened = 0
    for k, item in enumerate(items):
        failing = digest(item).verdict != "pass"
        is_open = failing and opened < OPEN_LIMIT
        opened += is_open
        sections.append(section(k, item, _link(item, out_dir), is_open))
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title(doc))}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title(doc))}</h1>{meta(doc)}{html_table(items)}"
        f"{summary_table(items)}"
        f"{''.join(sections)}</body></html>\n"
    )


def title(doc: Mapping[str, Any]) -> str:
    tool = doc.get("tool") or {}
    return f"{tool.get('name', 'pytest-rspbench')} report"


def meta(doc: Mapping[str, Any]) -> str:
    """When, where and what: tool version, UTC time, machine, commit, counts."""
    tool, machine = doc.get("tool") or {}, doc.get("machine") or {}
    commit = doc.get("commit") or {}
    lines = [
        f"created {doc.get('created', '?')} with {tool.get('name', '?')} "
        f"{tool.get('version', '?')}"
        f" (results format {doc.get('format', '?')})",
        "machine: " + ", ".join(f"{k} {v}" for k, v in sorted(machine.items())),
    ]
    if commit:
        lines.append(
            f"commit {commit.get('id', '?')}"
            + (" (with local changes)" if commit.get("dirty") else "")
        )
    counts = Counter(digest(i).verdict for i in doc.get("items") or ())
    lines.append(
        f"{sum(counts.values())} items: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    )
    return "".join(f'<p class="meta">{escape(line)}</p>' for line in lines)


def summary_table(items: list[Mapping[str, Any]]) -> str:
    """One line per item, linking to its section."""
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "item",
            "verdict",
            "t0",
            "precision",
            "recall",
            "delay p95",
            "peak RSS",
            "IoU",
            "windows",
        )
    )
    rows = []
    for k, item in enumerate(items):
        d = digest(item)
        cells = [
            show("precision", d.precision),
            show("recall", d.recall),
            show("delay", d.delay_p95),
            show("peak_rss", d.peak_rss),
            show("iou", d.iou),
            d.windows,
        ]
        rows.append(
            f'<tr><td class="id"><a href="#item-{k}">{escape(_name(item))}</a></td>'
            f'<td class="{escape(d.verdict)}">{escape(d.verdict)}</td>'
            f"<td>{escape(d.t0)}</td>"
            + "".join(f"<td>{escape(str(c))}</td>" for c in cells)
            + "</tr>"
        )
    return f'<table class="rspbench-summary"><tr>{head}</tr>{"".join(rows)}</table>'


def section(k: int, item: Mapping[str, Any], link: str | None, is_open: bool) -> str:
    """One item: a collapsible block with its panel."""
    d = digest(item)
    params = item.get("params") or {}
    where = ", ".join(f"{a}={b}" for a, b in params.items())
    heading = f"{d.verdict} · {_name(item)}"
    return (
        f'<section id="item-{k}" class="rspbench-item">'
        f"<details{' open' if is_open else ''}>"
        f"<summary>{escape(heading)}</summary>"
        f'<p class="meta">{escape(str(item.get("nodeid", "")))}'
        + (f" · {escape(where)}" if where else "")
        + f"</p>{panel(item, link)}</details></section>"
    )


def write(doc: Mapping[str, Any], path: Path) -> int:
    """Write the page; returns its size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = render(doc, path.resolve().parent)
    path.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


def _name(item: Mapping[str, Any]) -> str:
    return str(item.get("id") or item.get("nodeid") or "?")


def _link(item: Mapping[str, Any], out_dir: Path | None) -> str | None:
    if not item.get("artifacts"):
        return None
    target = Path(item["artifacts"]) / "metrics.json"
    if out_dir is None or not target.is_absolute():
        return target.as_posix()
    return Path(os.path.relpath(target, out_dir)).as_posix()
