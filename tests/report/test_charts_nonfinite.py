"""Charts never raise, whatever the numbers.

An infinite value reaching the pytest-html panel (``replay: {speed: .inf}``,
say) would make ``Scale.fit`` raise OverflowError: INTERNALERROR, and every
later item would be lost. The spec loader refuses such a speed, and the charts
leave out values that are not finite, so no number can take a session down.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_rspbench.report import charts

SVG = "{http://www.w3.org/2000/svg}"
ANY = st.floats(allow_nan=True, allow_infinity=True)


def test_infinite_and_nan_values_are_left_out() -> None:
    svg = (
        charts.Plot("delay", "time (s)", windows=[(0, 1), (1, math.inf)])
        .line("delay", [0, 1, 2, math.inf], [1.0, math.inf, -math.inf, 2.0])
        .render()
    )
    root = ET.fromstring(svg)
    (line,) = root.iter(f"{SVG}polyline")
    assert line.get("data-points") == "1"  # only (0, 1.0) is finite on both axes
    (strip,) = (p for p in root.iter(f"{SVG}path") if p.get("class") == "windows")
    assert strip.get("data-windows") == "1"
    assert "inf" not in svg and "nan" not in svg


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(ANY, ANY), max_size=8),
    st.lists(st.tuples(ANY, ANY), max_size=4),
    st.booleans(),
)
def test_any_numbers_render_an_svg(
    points: list[tuple[float, float]], windows: list[tuple[float, float]], bars: bool
) -> None:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    plot = charts.Plot("t", "x", windows=windows)
    if bars:
        plot.bars(("expected", "actual"), xs, [ys, ys[::-1]])
    else:
        plot.line("precision", xs, ys).line("delay", xs, ys, axis=2)
    svg = plot.render()
    ET.fromstring(svg)
    assert "inf" not in svg.replace("info", "") and "nan" not in svg
