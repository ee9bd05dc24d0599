"""Count-window arithmetic (rsp/counting.py): slides, what they hold, ramp-up, ticks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.rsp.counting import CountWindow, Slide, slides


def spans(sizes, window, tick="tuple-driven", rampup="report"):
    return [(s.event, s.first, s.last) for s in slides(sizes, window, tick, rampup)]


def test_rows_step_two_slides_after_every_second_event() -> None:
    # event      0   1   2   3   4   5
    # element    1   2   3   4   5   6
    # slides         ^       ^       ^      holds 1..2, 2..4, 4..6
    window = CountWindow("rows", 3, 2)
    assert spans([1] * 6, window) == [(1, 1, 2), (3, 2, 4), (5, 4, 6)]
    # skip: the slide after 2 holds fewer than 3 elements
    assert spans([1] * 6, window, rampup="skip") == [(3, 2, 4), (5, 4, 6)]


def test_triples_cut_inside_events_tuple_and_graph_driven() -> None:
    # triple   a1 a2 | b1 | c1 c2 c3      (events of 2, 1, 3 triples)
    # count     1  2 |  3 |  4  5  6
    window = CountWindow("triples", 3, 2)
    assert spans([2, 1, 3], window) == [(0, 1, 2), (2, 2, 4), (2, 4, 6)]
    assert spans([2, 1, 3], window, tick="graph-driven") == [(0, 1, 2), (2, 4, 6)]


def test_graph_driven_with_skip_needs_a_slide_at_or_after_n() -> None:
    # [TRIPLES 3 STEP 2], events of 1 and 2 triples: the multiple 2 falls in
    # the second event, but a slide at 2 holds fewer than 3: no evaluation.
    window = CountWindow("triples", 3, 2)
    assert spans([1, 2], window, tick="graph-driven", rampup="skip") == []
    assert spans([1, 2, 1], window, tick="graph-driven", rampup="skip") == [(2, 2, 4)]


def test_hopping_window_leaves_elements_out() -> None:
    # [ROWS 1 STEP 3]: holds element 3, 6, ...; 1, 2, 4, 5 are in no window.
    assert spans([1] * 6, CountWindow("rows", 1, 3)) == [(2, 3, 3), (5, 6, 6)]


def test_events_without_triples_are_rows_but_hold_no_triples() -> None:
    # sizes are elements per event: 1 for a row whatever its triples, the
    # triple count for triples (so an empty event adds none).
    assert spans([1, 1], CountWindow("rows", 2)) == [(0, 1, 1), (1, 1, 2)]
    assert spans([0, 0], CountWindow("triples", 2)) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("events", 3, 1), "counts rows or triples"),
        (("rows", 0, 1), "ROWS 0 STEP 1"),
        (("triples", 3, 0), "TRIPLES 3 STEP 0"),
    ],
)
def test_invalid_windows_say_why(args, message) -> None:
    with pytest.raises(ValueError, match=message):
        CountWindow(*args)


def test_label_is_the_query_text() -> None:
    assert CountWindow("rows", 3).label == "ROWS 3"
    assert CountWindow("triples", 10, 5).label == "TRIPLES 10 STEP 5"


@given(
    st.integers(1, 6),
    st.integers(1, 6),
    st.lists(st.integers(0, 4), max_size=10),
    st.sampled_from(["report", "skip"]),
)
def test_slides_holding_agrees_with_the_slides(size, step, sizes, rampup) -> None:
    # The column formula (an element's slides lo..hi, as Spark would explode
    # it) and the small-data list of slides are the same arithmetic.
    window = CountWindow("triples", size, step)
    listed = slides(sizes, window, "tuple-driven", rampup)
    first, total = window.first_slide(rampup), sum(sizes)
    for element in range(1, total + 1):
        lo, hi = window.slides_holding(element)
        by_formula = {k * step for k in range(max(lo, first), hi + 1) if k * step <= total}
        by_list = {s.last for s in listed if s.first <= element <= s.last}
        assert by_formula == by_list


@given(st.integers(1, 6), st.integers(1, 6), st.lists(st.integers(0, 4), max_size=10))
def test_graph_driven_is_tuple_driven_coalesced_per_event(size, step, sizes) -> None:
    window = CountWindow("triples", size, step)
    tuples = slides(sizes, window, "tuple-driven", "report")
    graphs = slides(sizes, window, "graph-driven", "report")
    assert [g.event for g in graphs] == sorted({t.event for t in tuples})
    ends = {e: sum(sizes[: e + 1]) for e in range(len(sizes))}
    assert all(g.last == ends[g.event] for g in graphs)
    assert all(g == Slide(g.event, max(1, g.last - size + 1), g.last) for g in graphs)
