"""windows.py against brute force: every t0 of one slide, every bounds convention.

The brute force knows only the definitions (RSP-QL Def. 12-13): window ``i``
spans ``o_i = t0 + i*beta`` to ``c_i = o_i + alpha``, reached by walking one
slide at a time from window 0, and a convention says which ends are inside::

    width 5, slide 2, t0 = 1 (RSP-QL Example 7)

    time     0   1   2   3   4   5   6   7   8   9  10
    W0           o-------------------c
    W1                   o-------------------c
    W2                           o-------------------c

    "(o,c]"  o <  t <= c     6 is in W0, W1, W2; 1 is in none
    "[o,c)"  o <= t <  c     1 is in W0; 6 is in W1, W2
    "[o,c]"  o <= t <= c     6 is in W0, W1, W2; 1 is in W0

It lists the windows around the event times and asks each one whether it holds
a time; the module answers with floor divisions. For each drawn width, slide,
event times and start ``a``, every candidate ``t0`` in ``[a, a + slide)``
(RSP-QL Theorem 1) is tried with each of the three conventions.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_rspbench.rsp.windows import Bounds, WindowSpec, window_label

Inside = Callable[[int, int, int], bool]
INSIDE: dict[str, Inside] = {
    "(o,c]": lambda o, c, t: o < t <= c,
    "[o,c)": lambda o, c, t: o <= t < c,
    "[o,c]": lambda o, c, t: o <= t <= c,
}
BRACKETS = {"(o,c]": ("(", "]"), "[o,c)": ("[", ")"), "[o,c]": ("[", "]")}

widths = st.integers(1, 12)
slides = st.integers(1, 12)
starts = st.integers(-30, 30)
event_times = st.lists(st.integers(-40, 80), max_size=6)


def brute_windows(
    width: int, slide: int, t0: int, low: int, high: int
) -> dict[int, tuple[int, int]]:
    """Window ``i -> (o, c)`` for every window that meets ``[low, high]``, found by
    walking from window 0 one slide at a time; one more on each side."""
    i, o = 0, t0
    while o + width >= low:  # back until a window ends before `low`
        i, o = i - 1, o - slide
    windows = {}
    while o <= high + slide:  # forward until one starts after `high`
        windows[i] = (o, o + width)
        i, o = i + 1, o + slide
    return windows


def holding(windows: dict[int, tuple[int, int]], bounds: str, *times: int) -> list[int]:
    """Indices of the windows that hold every one of ``times``."""
    inside = INSIDE[bounds]
    return sorted(i for i, (o, c) in windows.items() if all(inside(o, c, t) for t in times))


def runs(signatures: Sequence[object], start: int) -> list[tuple[int, int]]:
    """Maximal runs of equal consecutive signatures, as ``[first, next_first)``."""
    firsts = [start + k for k, s in enumerate(signatures) if k == 0 or s != signatures[k - 1]]
    return list(zip(firsts, [*firsts[1:], start + len(signatures)], strict=True))


@given(widths, slides, st.integers(-50, 50), st.integers(-50, 50))
def test_contains_labels_and_open_ends_follow_the_convention(
    width: int, slide: int, o: int, t: int
) -> None:
    c = o + width
    for bounds in Bounds:
        spec = WindowSpec(width, slide, bounds)
        inside = INSIDE[bounds.value]
        assert spec.contains(o, c, t) is inside(o, c, t)
        assert bounds.open_start == (not inside(o, c, o))
        assert bounds.open_end == (not inside(o, c, c))
        opening, closing = BRACKETS[bounds.value]
        assert (
            bounds.label((o, c))
            == window_label((o, c), bounds.value)
            == f"{opening}{o},{c}{closing}"
        )
        assert str(bounds) == f"{bounds}" == bounds.value


@given(widths, slides, starts, event_times)
@example(5, 2, 1, [1, 2, 6, 8, 9, 10])  # RSP-QL Example 7
@example(10, 10, 0, [0, 3, 6])  # tumbling: the t0_classes docstring
@example(2, 5, 0, [3, 4, 12])  # slide > width: times in no window
@example(3, 7, -20, [-40, -13, 0])  # negative times and starts
def test_window_arithmetic_equals_brute_force(
    width: int, slide: int, a: int, times: list[int]
) -> None:
    low = min([*times, a]) - width - slide
    high = max([*times, a]) + width + slide
    pairs = [(s, u) for s in times for u in times if s <= u]
    for bounds in Bounds:
        spec = WindowSpec(width, slide, bounds)
        signatures = []
        aligned = []
        for t0 in range(a, a + slide):
            windows = brute_windows(width, slide, t0, low, high)
            for i, bounds_of_i in windows.items():
                assert spec.window(i, t0) == bounds_of_i
            for t in times:
                earliest, present = spec.open_at(t0, t)
                assert list(range(earliest, present + 1)) == holding(windows, bounds, t)
                assert spec.latest_closed(t0, t) == max(
                    i for i, (_, c) in windows.items() if c <= t
                )
                assert list(spec.closed_by(t0, t)) == [
                    i for i, (_, c) in sorted(windows.items()) if i >= 0 and c <= t
                ]
            for t_min, t_max in pairs:
                lo, hi = spec.index_range(t_min, t_max, t0)
                assert list(range(lo, hi + 1)) == holding(windows, bounds, t_min, t_max)
            signatures.append(tuple(tuple(holding(windows, bounds, t)) for t in sorted(set(times))))
            if all(c % slide == 0 for _, c in windows.values()):
                aligned.append(t0)
        # One class per run of t0s that put every event time into the same windows.
        assert spec.t0_classes(times, start=a) == runs(signatures, a)
        assert [spec.aligned_t0(start=a)] == aligned


@given(widths, slides, starts, st.integers(-40, 80), st.integers(0, 20))
def test_index_range_divides_only_by_the_slide_through_floordiv(
    width: int, slide: int, t0: int, t_min: int, length: int
) -> None:
    """The oracle passes a Spark floor division: the formula must use no other."""
    divisors: list[int] = []

    def floordiv(a: int, b: int) -> int:
        divisors.append(b)
        return operator.floordiv(a, b)

    for bounds in Bounds:
        spec = WindowSpec(width, slide, bounds)
        t_max = t_min + length
        assert spec.index_range(t_min, t_max, t0, floordiv) == spec.index_range(t_min, t_max, t0)
    assert divisors and set(divisors) == {slide}


@pytest.mark.parametrize(("width", "slide"), [(0, 1), (1, 0), (-5, 2), (5, -2)])
def test_width_and_slide_must_be_positive(width: int, slide: int) -> None:
    with pytest.raises(ValueError, match=f"RANGE {width} STEP {slide}"):
        WindowSpec(width, slide)
