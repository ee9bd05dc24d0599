"""The end-to-end cost curve as an SVG: seconds against triples, log-log.

Small multiples, one panel per window (rows) and query (columns), on shared
axes so panels compare; in each, one line per method (oracle with the stream
cached, oracle cold, the pyoxigraph loop). A run that did not finish (timed
out, out of memory, failed) is a cross at the time it was stopped, off the
line. Plain SVG text written by hand: no plotting library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

# method key in a row -> (legend, colour, dash pattern)
METHODS = {
    "cached": ("rspbench oracle, stream cached", "#1f63b4", ""),
    "cold": ("rspbench oracle, cold cache", "#d9730d", "6 4"),
    "loop": ("pyoxigraph per-window loop", "#2b8a3e", "2 3"),
}
PANEL_W, PANEL_H = 300, 210
TRIPLES = (5, 8)  # the x axis spans at least 100k to 100M: the benchmark's sizes
MARGIN_L, MARGIN_T, GAP_X, GAP_Y = 62, 92, 34, 62


def decades(values: Sequence[float], least: tuple[int, int] | None = None) -> tuple[int, int]:
    """The powers of ten around ``values`` (and ``least``), at least one apart.

    A value within 2 % below a power of ten counts as on it (99,400 is 100k).

    >>> decades([99_400, 994_000]), decades([3.2]), decades([99_400], (5, 8))
    ((5, 6), (0, 1), (5, 8))
    """
    low = math.floor(math.log10(min(values)) + 0.01)
    high = math.ceil(math.log10(max(values)) - 0.01)
    if least is not None:
        low, high = min(low, least[0]), max(high, least[1])
    return low, max(high, low + 1)


def short(n: float) -> str:
    """A power of ten as a short number: 100k, 1M, 10 s.

    >>> short(1e5), short(1e6), short(1e8), short(10)
    ('100k', '1M', '100M', '10')
    """
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{n / size:g}{unit}"
    return f"{n:g}"


def svg(rows: list[dict[str, Any]], title: str, subtitle: str) -> str:
    """The chart of ``rows`` (as :mod:`oracle_e2e` records them)."""
    windows = list(dict.fromkeys(r["window_label"] for r in rows))
    queries = list(dict.fromkeys(r["query_label"] for r in rows))
    points = [(r["triples"], r[m]["seconds"]) for r in rows for m in METHODS if m in r]
    xs = decades([p[0] for p in points], TRIPLES)
    ys = decades([max(p[1], 0.1) for p in points])
    width = MARGIN_L + len(queries) * (PANEL_W + GAP_X)
    height = MARGIN_T + len(windows) * (PANEL_H + GAP_Y) + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{MARGIN_L}" y="20" font-size="14" font-weight="bold">{escape(title)}</text>',
        f'<text x="{MARGIN_L}" y="37" fill="#555">{escape(subtitle)}</text>',
    ]
    out += legend(MARGIN_L, 56)
    for row_i, window in enumerate(windows):
        for col_i, query in enumerate(queries):
            x0 = MARGIN_L + col_i * (PANEL_W + GAP_X)
            y0 = MARGIN_T + row_i * (PANEL_H + GAP_Y)
            mine = [r for r in rows if r["window_label"] == window and r["query_label"] == query]
            out += panel(x0, y0, f"{query}, {window}", mine, xs, ys)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def legend(x: float, y: float) -> list[str]:
    parts = []
    for name, colour, dash in METHODS.values():
        parts.append(line_svg([(x, y), (x + 26, y)], colour, dash))
        parts.append(f'<circle cx="{x + 13}" cy="{y}" r="3" fill="{colour}"/>')
        parts.append(f'<text x="{x + 32}" y="{y + 4}">{escape(name)}</text>')
        x += 44 + 6.2 * len(name)
    parts.append(cross(x + 6, y, "#444"))
    parts.append(f'<text x="{x + 16}" y="{y + 4}">stopped (timeout, out of memory)</text>')
    return parts


def panel(x0: float, y0: float, title: str, rows: list[dict], xs: tuple, ys: tuple) -> list[str]:
    def at(triples: float, seconds: float) -> tuple[float, float]:
        fx = (math.log10(triples) - xs[0]) / (xs[1] - xs[0])
        fy = (math.log10(max(seconds, 10.0 ** ys[0])) - ys[0]) / (ys[1] - ys[0])
        return x0 + fx * PANEL_W, y0 + PANEL_H - fy * PANEL_H

    parts = [
        f'<text x="{x0}" y="{y0 - 8}" font-weight="bold">{escape(title)}</text>',
        f'<rect x="{x0}" y="{y0}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="#999"/>',
    ]
    parts += grid(x0, y0, xs, ys, at)
    for method, (_, colour, dash) in METHODS.items():
        done = sorted(
            (r["triples"], r[method])
            for r in rows
            if method in r and not r[method]["status"].startswith("not run")
        )
        ok = [at(t, m["seconds"]) for t, m in done if m["status"] == "ok"]
        if len(ok) > 1:
            parts.append(line_svg(ok, colour, dash))
        parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in ok]
        parts += [cross(*at(t, m["seconds"]), colour) for t, m in done if m["status"] != "ok"]
    return parts


def grid(x0: float, y0: float, xs: tuple, ys: tuple, at: Any) -> list[str]:
    """Decade lines with labels, and lighter lines at 2 and 5."""
    parts = []
    for power in range(xs[0], xs[1] + 1):
        for step in (1, 2, 5):
            value = step * 10.0**power
            if value > 10.0 ** xs[1]:
                break
            x, _ = at(value, 10.0 ** ys[0])
            shade = "#ccc" if step == 1 else "#eee"
            parts.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" '
                         f'y2="{y0 + PANEL_H}" stroke="{shade}"/>')  # fmt: skip
            if step == 1:
                parts.append(f'<text x="{x:.1f}" y="{y0 + PANEL_H + 16}" '
                             f'text-anchor="middle">{short(value)}</text>')  # fmt: skip
    for power in range(ys[0], ys[1] + 1):
        for step in (1, 2, 5):
            value = step * 10.0**power
            if value > 10.0 ** ys[1]:
                break
            _, y = at(10.0 ** xs[0], value)
            shade = "#ccc" if step == 1 else "#eee"
            parts.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + PANEL_W}" '
                         f'y2="{y:.1f}" stroke="{shade}"/>')  # fmt: skip
            if step == 1:
                parts.append(f'<text x="{x0 - 5}" y="{y + 4:.1f}" '
                             f'text-anchor="end">{short(value)} s</text>')  # fmt: skip
    parts.append(f'<text x="{x0 + PANEL_W / 2}" y="{y0 + PANEL_H + 30}" '
                 'text-anchor="middle" fill="#555">triples in the stream</text>')  # fmt: skip
    return parts


def line_svg(points: list[tuple[float, float]], colour: str, dash: str) -> str:
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dashes = f' stroke-dasharray="{dash}"' if dash else ""
    return f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dashes}/>'


def cross(x: float, y: float, colour: str) -> str:
    d = 4
    return (
        f'<path d="M{x - d:.1f},{y - d:.1f} L{x + d:.1f},{y + d:.1f} '
        f'M{x - d:.1f},{y + d:.1f} L{x + d:.1f},{y - d:.1f}" '
        f'stroke="{colour}" stroke-width="2"/>'
    )


def write(path: Path, rows: list[dict[str, Any]], title: str, subtitle: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(svg(rows, title, subtitle), encoding="utf-8")
