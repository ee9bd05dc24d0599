"""The reference engine's count windows: ROWS and TRIPLES, every profile choice.

Streams are hand-computed (docs/count-and-session-windows.md); each test draws
its timeline. ``who`` lists the subjects of a relation's bindings.
"""

from __future__ import annotations

from typing import Any

import pytest

from helpers.reference import query, run, triple, who

COUNT = {
    "count_order": "time",
    "count_ties": "arrival",
    "count_rampup": "report",
    "count_tick": "tuple-driven",
    "count_bounds": "[first,last]",
}
ANY = "WINDOW :w { ?s ?p ?o }"


def events(*spec: tuple[int, str]) -> list[tuple[int, list[tuple[str, str, str]]]]:
    """``(time, "a b")``: one event at ``time`` with one triple per name."""
    return [(t, [triple(n, "p", "o") for n in names.split()]) for t, names in spec]


def count(window: str, stream, end: int = 100, **profile: Any) -> list[tuple[int, Any, list]]:
    text = query("RStream", f"FROM NAMED WINDOW :w ON STREAM :s [{window}]", ANY, "?s")
    out = run(text, stream, end, **{**COUNT, **profile})
    return [(r.time, r.window, who(r)) for r in out]


# event   e1  e2  e3  e4  e5  e6
# time     1   2   4   5   8   9
SIX = events((1, "e1"), (2, "e2"), (4, "e3"), (5, "e4"), (8, "e5"), (9, "e6"))


def test_rows_slide_every_step_and_hold_the_last_n_events() -> None:
    # [ROWS 3 STEP 2]: slides after events 2, 4, 6
    assert count("ROWS 3 STEP 2", SIX) == [
        (2, (1, 2), ["e1", "e2"]),
        (5, (2, 5), ["e2", "e3", "e4"]),
        (9, (5, 9), ["e4", "e5", "e6"]),
    ]


def test_rampup_skip_waits_for_the_nth_event() -> None:
    # [ROWS 3]: report gives {e1} and {e1,e2} first; skip starts at e3
    reported = count("ROWS 3", SIX)
    skipped = count("ROWS 3", SIX, count_rampup="skip")
    assert [w for _, _, w in reported[:2]] == [["e1"], ["e1", "e2"]]
    assert skipped == reported[2:]
    assert skipped[0] == (4, (1, 4), ["e1", "e2", "e3"])


def test_rampup_skip_with_a_step_starts_at_the_first_multiple_at_or_after_n() -> None:
    # [ROWS 3 STEP 2], skip: the slide after 2 holds 2 < 3 events; first at 4
    assert count("ROWS 3 STEP 2", SIX, count_rampup="skip") == [
        (5, (2, 5), ["e2", "e3", "e4"]),
        (9, (5, 9), ["e4", "e5", "e6"]),
    ]


def test_elements_is_rows_and_bounds_none_reports_no_window() -> None:
    assert count("ELEMENTS 2", SIX[:3], count_bounds="none") == [
        (1, None, ["e1"]),
        (2, None, ["e1", "e2"]),
        (4, None, ["e2", "e3"]),
    ]


# triple   a1 a2 | b1 | c1 c2 c3
# time      1  1 |  3 |  4  4  4
BATCHES = events((1, "a1 a2"), (3, "b1"), (4, "c1 c2 c3"))


def test_triples_cut_inside_an_event_keep_part_of_it() -> None:
    # [TRIPLES 3 STEP 2], tuple-driven: slides after triples 2, 4, 6
    assert count("TRIPLES 3 STEP 2", BATCHES) == [
        (1, (1, 1), ["a1", "a2"]),
        (4, (1, 4), ["a2", "b1", "c1"]),
        (4, (4, 4), ["c1", "c2", "c3"]),
    ]


def test_triples_graph_driven_evaluates_once_per_event_at_its_end() -> None:
    # counts after each event: 2, 3, 6 -> slides in e1 (2) and e3 (4 and 6)
    assert count("TRIPLES 3 STEP 2", BATCHES, count_tick="graph-driven") == [
        (1, (1, 1), ["a1", "a2"]),
        (4, (4, 4), ["c1", "c2", "c3"]),
    ]


def test_range_triples_is_csparqls_spelling() -> None:
    assert count("RANGE TRIPLES 3 STEP 2", BATCHES) == count("TRIPLES 3 STEP 2", BATCHES)


def test_ties_any_is_resolved_by_arrival_one_correct_resolution() -> None:
    assert count("TRIPLES 3 STEP 2", BATCHES, count_ties="any") == count(
        "TRIPLES 3 STEP 2", BATCHES
    )


def test_a_triple_repeated_in_the_window_counts_twice_but_is_held_once() -> None:
    # e1 and e2 carry the same triple x; [TRIPLES 2] after e2 holds {x}
    stream = events((1, "x"), (2, "x"), (3, "y"))
    assert count("TRIPLES 2", stream) == [
        (1, (1, 1), ["x"]),
        (2, (1, 2), ["x"]),
        (3, (2, 3), ["x", "y"]),
    ]


# delivered   e2@2  e1@1  e1@1 (repeat)  e3@4
DISORDERED = [*events((2, "e2"), (1, "e1")), *events((1, "e1"), (4, "e3"))]


def test_count_order_arrival_counts_deliveries_and_drops_repeats() -> None:
    # sparq: the last n arrivals; times and bounds follow the deliveries
    assert count("ROWS 2", DISORDERED, count_order="arrival") == [
        (2, (2, 2), ["e2"]),
        (1, (2, 1), ["e1", "e2"]),
        (4, (1, 4), ["e1", "e3"]),
    ]


def test_count_order_arrival_ignores_the_lateness_it_declares() -> None:
    # Only count windows in the query: arrivals are counted as they come.
    plain = count("ROWS 2", DISORDERED, count_order="arrival")
    assert count("ROWS 2", DISORDERED, count_order="arrival", lateness=5) == plain


def test_count_order_time_with_lateness_counts_the_stream_in_time_order() -> None:
    # the watermark buffer puts e1 back before e2 and drops the repeat
    assert count("ROWS 2", DISORDERED, lateness=5) == [
        (1, (1, 1), ["e1"]),
        (2, (1, 2), ["e1", "e2"]),
        (4, (2, 4), ["e2", "e3"]),
    ]


def test_istream_over_a_count_window_streams_what_is_new() -> None:
    text = query("IStream", "FROM NAMED WINDOW :w ON STREAM :s [ROWS 2]", ANY, "?s")
    out = run(text, SIX[:4], 100, **COUNT)
    assert [(r.time, who(r)) for r in out] == [(1, ["e1"]), (2, ["e2"]), (4, ["e3"]), (5, ["e4"])]


def test_content_change_skips_a_slide_that_changes_nothing() -> None:
    # [ROWS 1] over x, x, y: the second slide holds {x} again
    stream = events((1, "x"), (2, "x"), (3, "y"))
    window_close = count("ROWS 1", stream)
    changes = count("ROWS 1", stream, report=("content-change",), tick="graph-driven")
    assert [t for t, _, _ in window_close] == [1, 2, 3]
    assert changes == [(1, (1, 1), ["x"]), (3, (3, 3), ["y"])]


@pytest.mark.parametrize("field", list(COUNT))
def test_a_profile_without_a_count_field_is_refused(field: str) -> None:
    profile = {**COUNT, field: None}
    text = query("RStream", "FROM NAMED WINDOW :w ON STREAM :s [ROWS 2]", ANY)
    with pytest.raises(ValueError, match=f"does not declare {field}"):
        run(text, SIX, 10, **profile)


def test_arrival_counting_beside_a_time_window_under_lateness_is_refused() -> None:
    windows = (
        "FROM NAMED WINDOW :w ON STREAM :s [ROWS 2]\n"
        "FROM NAMED WINDOW :t ON STREAM :s [RANGE 2 STEP 2]"
    )
    text = query("RStream", windows, ANY)
    with pytest.raises(ValueError, match="not defined when late events are reordered"):
        run(text, SIX, 10, **{**COUNT, "count_order": "arrival", "lateness": 5})
