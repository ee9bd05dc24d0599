"""Small inline SVG charts: no JavaScript, no external requests.

Each function returns one ``<svg>`` element as a string. All text is escaped.
Charts stay small on purpose: long series are drawn as polylines (one element
per series, not one per point) so a report with many windows stays light.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 640, 180
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 14, 26
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


class Frame:
    """Maps data coordinates to pixels inside the plot area."""

    def __init__(self, xs: Sequence[float], ys: Sequence[float], y_min: float | None = None, y_max: float | None = None):
        finite = [y for y in ys if not math.isnan(y)]
        self.x0, self.x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
        if self.x1 == self.x0:
            self.x1 = self.x0 + 1
        self.y0 = y_min if y_min is not None else min(finite, default=0.0)
        self.y1 = y_max if y_max is not None else max(finite, default=1.0)
        if self.y1 == self.y0:
            self.y1 = self.y0 + 1

    def x(self, value: float) -> float:
        return LEFT + (value - self.x0) / (self.x1 - self.x0) * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        return HEIGHT - BOTTOM - (value - self.y0) / (self.y1 - self.y0) * (HEIGHT - TOP - BOTTOM)


def line_chart(
    title: str,
    xs: Sequence[float],
    series: dict[str, Sequence[float]],
    bands: Sequence[tuple[float, float]] = (),
    y_range: tuple[float, float] | None = None,
    x_label: str = "",
) -> str:
    """Lines (one ``<polyline>`` per series) over optional shaded x-bands."""
    every = [y for values in series.values() for y in values]
    frame = Frame(xs, every, *(y_range or (None, None)))
    parts = [_open(title)]
    for lo, hi in bands:
        x_lo, x_hi = frame.x(max(lo, frame.x0)), frame.x(min(hi, frame.x1))
        parts.append(
            f'<rect class="band" x="{x_lo:.1f}" y="{TOP}" width="{max(x_hi - x_lo, 0.5):.1f}" '
            f'height="{HEIGHT - TOP - BOTTOM}" fill="#888" fill-opacity="0.08"/>'
        )
    parts += _axes(frame, x_label)
    for k, (name, values) in enumerate(series.items()):
        points = " ".join(
            f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in zip(xs, values, strict=True) if not math.isnan(y)
        )
        color = COLORS[k % len(COLORS)]
        parts.append(f'<polyline class="series" data-name="{escape(name)}" fill="none" stroke="{color}" stroke-width="1.5" points="{points}"/>')
        parts.append(f'<text x="{LEFT + 8 + 110 * k}" y="{TOP + 10}" fill="{color}" font-size="11">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(title: str, xs: Sequence[float], series: dict[str, Sequence[float]], x_label: str = "") -> str:
    """Grouped bars: one ``<path>`` per series so size does not grow per element."""
    every = [y for values in series.values() for y in values if not math.isnan(y)]
    frame = Frame(xs, [0.0, *every])
    step = (WIDTH - LEFT - RIGHT) / max(len(xs), 1)
    width = max(step / (len(series) + 1), 0.6)
    parts = [_open(title), *_axes(frame, x_label)]
    for k, (name, values) in enumerate(series.items()):
        path = []
        for i, y in enumerate(values):
            if math.isnan(y):
                continue
            x = LEFT + i * step + k * width
            top, base = frame.y(y), frame.y(0)
            path.append(f"M{x:.1f},{base:.1f}V{top:.1f}h{width:.1f}V{base:.1f}z")
        color = COLORS[k % len(COLORS)]
        parts.append(f'<path class="series" data-name="{escape(name)}" data-points="{len(path)}" fill="{color}" d="{"".join(path)}"/>')
        parts.append(f'<text x="{LEFT + 8 + 110 * k}" y="{TOP + 10}" fill="{color}" font-size="11">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _open(title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rspbench-chart" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>"
    )


def _axes(frame: Frame, x_label: str) -> list[str]:
    bottom = HEIGHT - BOTTOM
    out = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" stroke="#444"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#444"/>',
    ]
    for value in (frame.y0, (frame.y0 + frame.y1) / 2, frame.y1):
        out.append(f'<text x="{LEFT - 4}" y="{frame.y(value) + 4:.1f}" text-anchor="end" font-size="10">{_num(value)}</text>')
    for value in (frame.x0, frame.x1):
        out.append(f'<text x="{frame.x(value):.1f}" y="{bottom + 14}" text-anchor="middle" font-size="10">{_num(value)}</text>')
    if x_label:
        out.append(f'<text x="{(LEFT + WIDTH) / 2:.0f}" y="{HEIGHT - 2}" text-anchor="middle" font-size="10">{escape(x_label)}</text>')
    return out


def _num(value: float) -> str:
    if abs(value) >= 1e6:
        return f"{value:.3g}"
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
