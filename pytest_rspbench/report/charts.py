"""Small inline SVG charts: no JavaScript, no external requests.

A :class:`Plot` collects layers (a window strip, lines, bars) and renders one
``<svg>`` element. Every series is one element (a ``<polyline>`` or a
``<path>``), never one element per point, and carries ``data-points`` so a
test can count what was drawn. Long series are reduced with :func:`buckets`
before they get here, so a chart never holds more than :data:`MAX_POINTS`
points per series however many windows a run had. All text is escaped.
Values that are not finite (NaN, infinity, from a run that measured nothing or
a setting such as an infinite speed) are left out like missing ones, and
scales stay within :data:`LIMIT`, so no value can make a chart raise.

Layout (pixels)::

    +--------------------------------------------------+
    | title                                            |
    | legend ...                  note (grouping) |  TOP
    |  y1 |  lines / bars                       | y2   |
    |     |                                     |      |
    |     +-------------------------------------+      |  plot bottom
    |      window strip: one lane per overlap          |  STRIP
    |      x ticks and label                           |  BOTTOM
    +--------------------------------------------------+
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import cast

WIDTH, HEIGHT = 680, 210
LEFT, RIGHT, TOP, BOTTOM = 52, 52, 36, 30
STRIP_LANE = 4
MAX_LANES = 6
MAX_POINTS = 200  # 3 px per point on a 580 px plot: finer is not visible
MAX_GROUP = 48  # px: a few bars do not swell to fill the plot
LIMIT = 1e300  # larger values are drawn at the limit: spans stay finite
COLORS = {
    "precision": "#1f77b4",
    "recall": "#d62728",
    "expected": "#9aa5b1",
    "actual": "#1f77b4",
    "delay": "#ff7f0e",
    "RSS": "#9467bd",
    "CPU": "#2ca02c",
    "start shift": "#1f77b4",
    "end shift": "#d62728",
    "ideal": "#888888",
}
_FALLBACK = ("#8c564b", "#e377c2", "#17becf", "#bcbd22")

Aggregate = Callable[[Sequence[float]], float]


def buckets(count: int, limit: int = MAX_POINTS) -> list[range]:
    """Split ``count`` positions into at most ``limit`` consecutive groups.

    >>> [len(b) for b in buckets(5, 2)]
    [2, 3]
    >>> len(buckets(1000)), len(buckets(10))
    (200, 10)
    """
    groups = min(count, limit)
    if groups == 0:
        return []
    edges = [round(k * count / groups) for k in range(groups + 1)]
    return [range(a, b) for a, b in itertools.pairwise(edges)]


def reduce(values: Sequence[float], groups: Sequence[range], how: Aggregate) -> list[float]:
    """One value per group (NaN when a group has no value)."""
    out = []
    for group in groups:
        present = [values[k] for k in group if math.isfinite(values[k])]
        out.append(how(present) if present else math.nan)
    return out


@dataclass
class Scale:
    """Maps a data interval to a pixel interval (pixels may run backwards)."""

    lo: float
    hi: float
    p0: float
    p1: float

    @classmethod
    def fit(
        cls,
        values: Sequence[float],
        p0: float,
        p1: float,
        fixed: tuple[float, float] | None = None,
    ) -> Scale:
        finite = [_clamp(v) for v in values if math.isfinite(v)]
        lo, hi = fixed or (min(finite, default=0.0), max(finite, default=1.0))
        lo, hi = _clamp(lo), _clamp(hi)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            lo, hi = 0.0, 1.0
        if fixed is None and lo > 0 and lo < hi / 3:
            lo = 0.0  # start sizes and memory at zero unless that squashes the data
        if fixed is None and hi - lo < 0.05 * max(abs(lo), abs(hi)):
            # Flat series (memory that barely moves): show at least 5 % of the
            # value, not the jitter magnified to the full height.
            half = 0.025 * max(abs(lo), abs(hi))
            middle = (lo + hi) / 2
            lo, hi = (
                (max(middle - half, 0.0) if lo >= 0 else middle - half),
                middle + half,
            )
        if hi <= lo:  # one value; far from 0, adding 1 would not change it
            hi = lo + max(1.0, abs(lo) * 1e-6)
        if fixed is None:  # widen to round numbers, so ticks fall on the ends
            for _ in range(2):  # twice: widening can change the step
                step = nice_step(hi - lo, 4)
                lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
        return cls(lo, hi, p0, p1)

    def ticks(self, count: int) -> tuple[list[float], float]:
        """Round values inside the scale, about ``count`` of them, and their step."""
        step = nice_step(self.hi - self.lo, count)
        first = math.ceil(self.lo / step - 1e-9)
        last = math.floor(self.hi / step + 1e-9)
        return [k * step for k in range(first, last + 1)], step

    def __call__(self, value: float) -> float:
        value = min(max(value, self.lo), self.hi) if math.isfinite(value) else self.lo
        return self.p0 + (value - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)


@dataclass
class Plot:
    """One chart: x is shared, y1 on the left, optional y2 on the right."""

    title: str
    x_label: str
    y_label: str = ""
    y2_label: str = ""
    y_range: tuple[float, float] | None = None
    note: str = ""
    layers: list[tuple[str, Sequence[float], Sequence[float], dict[str, object]]] = field(
        default_factory=list
    )
    windows: Sequence[tuple[float, float]] = ()

    def line(
        self,
        name: str,
        xs: Sequence[float],
        ys: Sequence[float],
        axis: int = 1,
        dash: str = "",
    ) -> Plot:
        """A polyline; ``dash`` (an SVG dash array such as ``"6 4"``) keeps a
        line visible where it runs over an earlier one."""
        self.layers.append(("line", xs, ys, {"name": name, "axis": axis, "dash": dash}))
        return self

    def bars(
        self,
        names: Sequence[str],
        xs: Sequence[float],
        series: Sequence[Sequence[float]],
    ) -> Plot:
        for k, (name, ys) in enumerate(zip(names, series, strict=True)):
            self.layers.append(("bars", xs, ys, {"name": name, "axis": 1, "slot": (k, len(names))}))
        return self

    def render(self) -> str:
        windows = [
            (_clamp(lo), _clamp(hi))
            for lo, hi in self.windows
            if math.isfinite(lo) and math.isfinite(hi)
        ]
        lanes = _lanes(windows)
        bottom = HEIGHT - BOTTOM - (lanes * STRIP_LANE + 6 if lanes else 0)
        xs = [x for _, lx, _, _ in self.layers for x in lx] + [v for w in windows for v in w]
        xs = [_clamp(x) for x in xs if math.isfinite(x)]
        pad = _bar_pitch(self.layers) / 2
        x = Scale.fit(xs, LEFT, WIDTH - RIGHT, (min(xs) - pad, max(xs) + pad) if xs else None)
        y1, y2 = self._y_scales(bottom)
        parts = [_open(self.title), *_frame(x, y1, y2, bottom, self)]
        if lanes:
            parts.append(_strip(windows, x, bottom + 6, lanes))
        for k, (kind, lx, ly, opts) in enumerate(self.layers):
            y = y2 if opts["axis"] == 2 and y2 is not None else y1
            parts.append(_series(kind, str(opts["name"]), lx, ly, x, y, bottom, opts, k))
        parts.append(_legend([(kind, o) for kind, _, _, o in self.layers]))
        if self.note:
            parts.append(
                f'<text x="{WIDTH - RIGHT}" y="29" text-anchor="end" font-size="10" '
                f'fill="#666">{escape(self.note)}</text>'
            )
        parts.append("</svg>")
        return "".join(parts)

    def _y_scales(self, bottom: float) -> tuple[Scale, Scale | None]:
        def values(axis: int) -> list[float]:
            found = [y for _, _, ly, o in self.layers if o["axis"] == axis for y in ly]
            bars = any(kind == "bars" for kind, _, _, o in self.layers if o["axis"] == axis)
            return [0.0, *found] if bars else found

        y1 = Scale.fit(values(1), bottom, TOP, self.y_range)
        y2 = Scale.fit(values(2), bottom, TOP) if values(2) else None
        return y1, y2


def _lanes(windows: Sequence[tuple[float, float]]) -> int:
    """How many strip lanes keep overlapping windows apart (tumbling: 2)."""
    if not windows:
        return 0
    if len(windows) == 1:
        return 1
    first, second = windows[0], windows[1]
    slide = max(second[0] - first[0], 1e-9)
    overlap = (first[1] - first[0]) / slide
    if not math.isfinite(overlap):  # a window far wider than its slide
        return MAX_LANES
    return max(2, min(MAX_LANES, math.ceil(min(overlap, MAX_LANES))))


def _strip(windows: Sequence[tuple[float, float]], x: Scale, top: float, lanes: int) -> str:
    """Each window as a bar from its open to its close, lane ``i mod lanes``
    (a stroked segment: ``M x0 y H x1``, the shortest path text)."""
    path = []
    for i, (lo, hi) in enumerate(windows):
        y = top + (i % lanes) * STRIP_LANE + STRIP_LANE / 2
        end = max(x(hi) - 1.0, x(lo) + 0.8)
        path.append(f"M{_n(x(lo))} {_n(y)}H{_n(end)}")
    return (
        f'<path class="windows" data-windows="{len(windows)}" fill="none" '
        f'stroke="#555" stroke-opacity="0.45" stroke-width="{STRIP_LANE - 1}" '
        f'd="{"".join(path)}"><title>window bounds (open to close)</title></path>'
    )


def _series(
    kind: str,
    name: str,
    xs: Sequence[float],
    ys: Sequence[float],
    x: Scale,
    y: Scale,
    bottom: float,
    opts: dict[str, object],
    k: int,
) -> str:
    color = COLORS.get(name, _FALLBACK[k % len(_FALLBACK)])
    label = escape(name)
    if kind == "line":
        points = [
            f"{_n(x(a))},{_n(y(b))}"
            for a, b in zip(xs, ys, strict=True)
            if math.isfinite(a) and math.isfinite(b)
        ]
        width = 2.5 if k == 0 else 1.5  # a wider first line shows under an equal second
        return (
            f'<polyline class="series" data-name="{label}" data-points="{len(points)}" '
            f'fill="none" stroke="{color}" stroke-width="{width}"{_dash(opts)} '
            f'points="{" ".join(points)}"/>'
        )
    slot, slots = cast(tuple[int, int], opts["slot"])
    # A group of bars is 80 % of the distance between neighbours, centred on
    # its x; the x scale has half that distance to spare at both ends.
    pitch = _bar_pitch([("bars", xs, ys, opts)])
    step = min(abs(x(x.lo + pitch) - x(x.lo)), MAX_GROUP)
    width = max(step * 0.8 / slots, 0.6)
    path = []
    for a, b in zip(xs, ys, strict=True):
        if not (math.isfinite(a) and math.isfinite(b)):
            continue
        middle = x(a) - step * 0.4 + (slot + 0.5) * width
        path.append(f"M{_n(middle)} {_n(bottom)}V{_n(y(b))}")
    return (
        f'<path class="series" data-name="{label}" data-points="{len(path)}" '
        f'fill="none" stroke="{color}" stroke-opacity="0.8" '
        f'stroke-width="{_n(width)}" d="{"".join(path)}"/>'
    )


def _open(title: str) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" class="rspbench-chart" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(title)}" '
        f'font-family="sans-serif"><title>{escape(title)}</title>'
        f'<text x="{LEFT}" y="13" font-size="12" font-weight="bold">'
        f"{escape(title)}</text>"
    )


def _frame(x: Scale, y1: Scale, y2: Scale | None, bottom: float, plot: Plot) -> list[str]:
    out = [_hline(bottom, "#444")]
    values, step = y1.ticks(4)
    for value in values:
        py = y1(value)
        out.append(_hline(py, "#ddd"))
        out.append(_text(LEFT - 4, py + 4, _num(value, step), "end"))
    if y2 is not None:
        values, step = y2.ticks(4)
        out += [_text(WIDTH - RIGHT + 4, y2(v) + 4, _num(v, step), "start") for v in values]
    values, step = x.ticks(6)
    for value in values:
        out.append(_text(x(value), HEIGHT - BOTTOM + 12, _num(value, step), "middle"))
    out.append(_text((LEFT + WIDTH - RIGHT) / 2, HEIGHT - 3, plot.x_label, "middle"))
    middle = (TOP + bottom) / 2
    for label, x_pos in ((plot.y_label, 11), (plot.y2_label, WIDTH - 5)):
        if label:
            out.append(
                f'<text x="{x_pos}" y="{middle:.1f}" '
                f'transform="rotate(-90 {x_pos} {middle:.1f})" '
                f'text-anchor="middle" font-size="10">{escape(label)}</text>'
            )
    return out


def _legend(layers: Sequence[tuple[str, dict[str, object]]]) -> str:
    """A swatch per series: a square for bars, a short line (dashed as the
    series is) for lines, so two lines that overlap can still be told apart."""
    out, left = [], float(LEFT)
    for k, (kind, opts) in enumerate(layers):
        name = str(opts["name"])
        color = COLORS.get(name, _FALLBACK[k % len(_FALLBACK)])
        if kind == "line":
            width = 2.5 if k == 0 else 1.5
            out.append(
                f'<line x1="{left:.1f}" y1="24.5" x2="{left + 16:.1f}" y2="24.5" '
                f'stroke="{color}" stroke-width="{width}"{_dash(opts)}/>'
            )
            swatch = 20
        else:
            out.append(f'<rect x="{left:.1f}" y="20" width="9" height="9" fill="{color}"/>')
            swatch = 12
        out.append(f'<text x="{left + swatch:.1f}" y="28.5" font-size="11">{escape(name)}</text>')
        left += swatch + 10 + 6.5 * len(name)
    return '<g class="legend">' + "".join(out) + "</g>"


def _dash(opts: dict[str, object]) -> str:
    dash = str(opts.get("dash") or "")
    return f' stroke-dasharray="{escape(dash)}"' if dash else ""


def _bar_pitch(
    layers: Sequence[tuple[str, Sequence[float], Sequence[float], dict[str, object]]],
) -> float:
    """The mean distance between neighbouring bars (data units); 0 without bars.

    One bar alone gets a pitch of 1, as a single value gets a span of 1.

    >>> _bar_pitch([("bars", [2.0, 4.0, 8.0], [1, 1, 1], {})])
    3.0
    >>> _bar_pitch([("line", [0.0, 10.0], [1, 1], {})])
    0.0
    """
    xs = sorted(
        {_clamp(x) for kind, lx, _, _ in layers if kind == "bars" for x in lx if math.isfinite(x)}
    )
    if not xs:
        return 0.0
    if len(xs) == 1:
        return max(1.0, abs(xs[0]) * 1e-6)
    return (xs[-1] - xs[0]) / (len(xs) - 1)


def nice_step(span: float, count: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about ``count`` steps.

    >>> nice_step(0.4, 4), nice_step(60, 6), nice_step(2_000_000, 4)
    (0.1, 10, 500000)
    """
    raw = span / max(count, 1) if 0 < span < math.inf else 1.0
    raw = max(raw, 1e-300)  # smaller steps underflow to 0
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if raw <= m * power * (1 + 1e-9))


def _clamp(value: float) -> float:
    """A finite value kept within ``±LIMIT``, so differences of two stay finite."""
    return min(max(value, -LIMIT), LIMIT)


def _text(x: float, y: float, text: str, anchor: str) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="10">{escape(text)}</text>'
    )


def _hline(y: float, color: str) -> str:
    return f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="{color}"/>'


def _n(pixels: float) -> str:
    """A pixel coordinate, short: ``12``, ``12.5`` (one decimal at most)."""
    text = f"{pixels:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _num(value: float, step: float = 1.0) -> str:
    """A tick label with as many decimals as its step needs.

    >>> [_num(v, s) for v, s in ((0.5, 0.5), (211.2, 0.2), (2048, 1000))]
    ['0.5', '211.2', '2048']
    >>> _num(500_000, 1e5)
    '500k'
    >>> _num(2_500_000, 5e5), _num(0.0, 0.25)
    ('2.5M', '0')
    """
    for scale, suffix, limit in ((1e9, "G", 1e9), (1e6, "M", 1e6), (1e3, "k", 1e4)):
        if abs(value) >= limit and step >= scale / 10:
            return _num(value / scale, step / scale) + suffix
    digits = max(0, -math.floor(math.log10(step) + 1e-9)) if 0 < step < 1 else 0
    text = f"{value:.{digits}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text == "-0" else text
