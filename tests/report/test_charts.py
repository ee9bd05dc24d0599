"""Inline SVG charts: bounded points, one element per series, escaped text."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.report import charts

SVG = "{http://www.w3.org/2000/svg}"


@given(st.integers(0, 5000), st.integers(1, 400))
def test_buckets_cover_every_position_once_in_order(count, limit):
    groups = charts.buckets(count, limit)
    assert len(groups) == min(count, limit)
    assert [k for g in groups for k in g] == list(range(count))
    assert all(len(g) >= 1 for g in groups)
    if groups:
        sizes = {len(g) for g in groups}
        assert max(sizes) - min(sizes) <= 1


def test_reduce_keeps_the_worst_and_skips_nan():
    values = [1.0, 0.5, math.nan, math.nan, 0.9]
    groups = charts.buckets(len(values), 3)
    #  groups:  [1.0, 0.5]  [nan, nan]  [0.9]  (round() splits 5 into 2, 1, 2)
    out = charts.reduce(values, [range(0, 2), range(2, 4), range(4, 5)], min)
    assert out[0] == 0.5 and math.isnan(out[1]) and out[2] == 0.9
    assert len(groups) == 3


def test_line_points_match_data_points_and_skip_nan():
    svg = charts.Plot("t", "x").line("a", [0, 1, 2, 3], [0.1, math.nan, 0.3, 0.4]).render()
    root = ET.fromstring(svg)
    (line,) = root.iter(f"{SVG}polyline")
    assert line.get("data-points") == "3"
    assert len(line.get("points").split()) == 3


def test_bars_are_one_path_per_series():
    plot = charts.Plot("sizes", "x").bars(("expected", "actual"), [1, 2, 3], [[1, 2, 3], [1, 0, 3]])
    root = ET.fromstring(plot.render())
    paths = [p for p in root.iter(f"{SVG}path") if p.get("class") == "series"]
    assert [p.get("data-name") for p in paths] == ["expected", "actual"]
    assert [len(re.findall("M", p.get("d"))) for p in paths] == [3, 3]


def test_window_strip_has_one_bar_per_window_in_lanes():
    #  windows of width 4 sliding by 2: two lanes keep neighbours apart
    #   [0----4)
    #       [2----6)
    #           [4----8)
    windows = [(0.0, 4.0), (2.0, 6.0), (4.0, 8.0)]
    svg = charts.Plot("q", "x", windows=windows).line("p", [4, 6, 8], [1, 1, 1]).render()
    strip = next(p for p in ET.fromstring(svg).iter(f"{SVG}path") if p.get("class") == "windows")
    assert strip.get("data-windows") == "3"
    tops = [float(m) for m in re.findall(r"M[\d.]+ ([\d.]+)H", strip.get("d"))]
    assert tops[0] == tops[2] != tops[1]


def test_text_is_escaped_and_svg_parses():
    svg = (
        charts.Plot('<b>"x"</b> & y', "<axis>", y_label="a&b").line("<s>", [0, 1], [0, 1]).render()
    )
    ET.fromstring(svg)  # well-formed XML: nothing unescaped
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    assert "<script" not in svg


def test_ticks_are_round_numbers_with_the_decimals_they_need():
    def labels(values):
        values, step = charts.Scale.fit(values, 100, 0).ticks(4)
        return [charts._num(v, step) for v in values]

    #  delays from 98 to 135 ms: round ticks that include both ends
    assert labels([98, 135]) == ["80", "100", "120", "140"]
    #  RSS that barely moves (211.03 to 211.38 MiB): not the jitter magnified
    assert labels([211.03, 211.38]) == ["205", "210", "215", "220"]
    assert labels([0.2, 0.35]) == ["0.2", "0.25", "0.3", "0.35"]
    assert charts._num(2_000_000.0, 500_000) == "2M"


def _bar_extents(svg: str) -> list[tuple[float, float]]:
    """Every bar's left and right edge, in pixels."""
    out = []
    for path in ET.fromstring(svg).iter(f"{SVG}path"):
        if path.get("class") != "series":
            continue
        half = float(path.get("stroke-width") or 0) / 2
        for middle in re.findall(r"M([-\d.]+) ", path.get("d") or ""):
            out.append((float(middle) - half, float(middle) + half))
    return out


@pytest.mark.parametrize(
    "xs",
    [
        [4.0],
        [4.0, 6.0],
        [4.0, 6.0, 8.0, 10.0, 12.0],
        [0.5, 1.0, 9.0],  # uneven: groups of windows
        [float(k) for k in range(200)],
    ],
)
def test_bars_stay_inside_the_plot(xs):
    #  y1 labels | first bar ... last bar | y2 labels
    #            ^ LEFT                   ^ WIDTH - RIGHT
    sizes = [[3.0] * len(xs), [2.0] * len(xs)]
    plot = charts.Plot("sizes", "x").bars(("expected", "actual"), xs, sizes)
    svg = plot.line("delay", xs, [1.0] * len(xs), axis=2).render()
    extents = _bar_extents(svg)
    assert len(extents) == 2 * len(xs)
    assert min(lo for lo, _ in extents) >= charts.LEFT
    assert max(hi for _, hi in extents) <= charts.WIDTH - charts.RIGHT


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=30, unique=True))
def test_bars_stay_inside_the_plot_for_any_positions(xs):
    svg = charts.Plot("sizes", "x").bars(("n",), sorted(xs), [[1.0] * len(xs)]).render()
    extents = _bar_extents(svg)
    assert min(lo for lo, _ in extents) >= charts.LEFT - 0.05
    assert max(hi for _, hi in extents) <= charts.WIDTH - charts.RIGHT + 0.05


def test_a_dashed_line_over_an_equal_line_stays_visible_and_in_the_legend():
    #  precision = recall = 1 in every window: the dashed recall runs over the
    #  wider precision line, and each legend swatch is drawn as its line is
    svg = (
        charts.Plot("q", "x", y_range=(0.0, 1.0))
        .line("precision", [1, 2, 3], [1.0, 1.0, 1.0])
        .line("recall", [1, 2, 3], [1.0, 1.0, 1.0], dash="6 4")
        .render()
    )
    root = ET.fromstring(svg)
    first, second = root.iter(f"{SVG}polyline")
    assert first.get("points") == second.get("points")
    assert first.get("stroke-dasharray") is None
    assert second.get("stroke-dasharray") == "6 4"
    assert float(first.get("stroke-width")) > float(second.get("stroke-width"))
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    swatches = list(legend.iter(f"{SVG}line"))
    assert [s.get("stroke-dasharray") for s in swatches] == [None, "6 4"]
    assert [t.text for t in legend.iter(f"{SVG}text")] == ["precision", "recall"]
