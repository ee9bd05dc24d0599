"""A report's structure as text, for golden tests and browser checks; golden files.

One line per section, table, chart, series and link, e.g.::

    section item-1 details=open
      table rspbench-windows rows=21
      svg 'precision and recall per window'
        polyline precision points=60
        windows 60
"""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path

GOLDEN = Path(__file__).parents[1] / "report" / "golden"


def golden(name: str, text: str) -> str:
    """The golden file's text; with RSPBENCH_UPDATE_GOLDEN=1 (or when it does
    not exist yet) it is rewritten from ``text`` first: review the diff."""
    path = GOLDEN / name
    if os.environ.get("RSPBENCH_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text)
    return path.read_text()


class Outline(HTMLParser):
    """Collects the outline lines while parsing; checks polyline point counts."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.tables: list[list[object]] = []
        self.polylines: list[tuple[str, int, int]] = []  # name, data-points, parsed

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "")
        if tag == "section":
            self.lines.append(f"section {a.get('id')}")
        elif tag == "details":
            self.lines.append(f"  details={'open' if 'open' in a else 'closed'}")
        elif tag == "table":
            self.tables.append([classes or "-", 0, len(self.lines)])
            self.lines.append("")
        elif tag == "tr" and self.tables:
            self.tables[-1][1] = int(self.tables[-1][1]) + 1  # type: ignore[call-overload]
        elif tag == "svg":
            self.lines.append(f"  svg {a.get('aria-label')!r}")
        elif tag == "polyline":
            parsed = len(a.get("points", "").split())
            self.polylines.append((a.get("data-name", ""), int(a.get("data-points", -1)), parsed))
            self.lines.append(f"    polyline {a.get('data-name')} points={parsed}")
        elif tag == "path" and classes == "series":
            self.lines.append(f"    bars {a.get('data-name')} points={a.get('data-points')}")
        elif tag == "path" and classes == "windows":
            self.lines.append(f"    windows {a.get('data-windows')}")
        elif tag == "a" and not a.get("href", "").startswith("#"):
            self.lines.append(f"  link {a.get('href')}")
        elif tag == "pre":
            self.lines.append(f"  pre {classes}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.tables:
            name, rows, at = self.tables.pop()
            self.lines[int(at)] = f"  table {name} rows={rows}"  # type: ignore[call-overload]


def outline(html: str) -> Outline:
    parser = Outline()
    parser.feed(html)
    parser.close()
    return parser
