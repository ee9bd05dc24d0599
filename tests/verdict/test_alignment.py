"""Alignment rules: reported window, reported time, arrival, position.

Tumbling windows of 10 ms from 0, [o,c); evaluations at 10, 20, 30.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_rspbench.verdict.alignment import align, choose

from helpers.verdict import TRUSTED, UNTRUSTED, got, rel

EXPECTED = [rel(0, "a"), rel(1, "b"), rel(2, "c")]
CONTENT_CHANGE = replace(TRUSTED, report=("content-change",))


def test_trusted_windows_win() -> None:
    received = [got("b", window=(10, 20), time=999, app=1.0), got("a", window=(0, 10))]
    aligned = align(EXPECTED, received, TRUSTED)
    assert aligned.rule == "window"
    assert aligned.groups == ((1,), (0,), ())
    assert "reports_window" in aligned.reason


def test_untrusted_windows_are_ignored_for_arrival() -> None:
    # An engine whose windows cannot be trusted (they say (0,10) for all).
    received = [got("a", window=(0, 10), app=12.0), got("b", window=(0, 10), app=25.0)]
    aligned = align(EXPECTED, received, UNTRUSTED)
    assert aligned.rule == "arrival"
    assert aligned.groups == ((0,), (1,), ())


def test_reported_time_when_no_window() -> None:
    received = [got("c", time=30), got("a", time=10), got("z", time=15)]
    aligned = align(EXPECTED, received, TRUSTED)
    assert aligned.rule == "time"
    assert aligned.groups == ((1,), (), (0,))
    assert aligned.leftovers == (2,)


def test_arrival_maps_to_latest_evaluation_at_or_before() -> None:
    #   evaluations 10        20        30
    #   arrivals      12  19    20         45     (9: before any evaluation)
    received = [
        got(app=12.0),
        got(app=19.9),
        got(app=20.0),
        got(app=45.0),
        got(app=9.0),
    ]
    aligned = align(EXPECTED, received, UNTRUSTED)
    assert aligned.groups == ((0, 1), (2,), (3,))
    assert aligned.leftovers == (4,)


def test_arrival_tolerance_drops_results_too_late() -> None:
    received = [got(app=12.0), got(app=45.0)]
    aligned = align(EXPECTED, received, UNTRUSTED, tolerance=10)
    assert aligned.groups == ((0,), (), ())
    assert aligned.leftovers == (1,)


def test_position_is_the_last_resort() -> None:
    received = [got("a"), got("b"), got("c"), got("d")]
    aligned = align(EXPECTED, received, UNTRUSTED)
    assert aligned.rule == "position"
    assert aligned.groups == ((0,), (1,), (2,))
    assert aligned.leftovers == (3,)
    assert "full speed" in aligned.reason


def test_content_change_aligns_to_evaluation_instants_not_windows() -> None:
    # Evaluations at 3 and 7 inside window [0,10): one window, two instants.
    expected = [
        replace(rel(0, "a"), time=3),
        replace(rel(0, "a", "b"), time=7),
    ]
    received = [got("a", window=(0, 10), time=3), got("a", "b", window=(0, 10), time=7)]
    aligned = align(expected, received, CONTENT_CHANGE)
    assert aligned.rule == "time"
    assert aligned.groups == ((0,), (1,))
    untimed = [
        got("a", window=(0, 10), app=3.5),
        got("a", "b", window=(0, 10), app=8.0),
    ]
    assert align(expected, untimed, CONTENT_CHANGE).rule == "arrival"
    assert align(expected, untimed, CONTENT_CHANGE).groups == ((0,), (1,))


def test_forced_window_rule_picks_the_reported_time_among_a_windows_relations() -> None:
    expected = [replace(rel(0, "a"), time=3), replace(rel(0, "b"), time=7)]
    received = [got("b", window=(0, 10), time=7), got("a", window=(0, 10))]
    aligned = align(expected, received, CONTENT_CHANGE, "window")
    assert aligned.groups == ((1,), (0,))
    assert aligned.reason == "set by the spec (comparison.alignment)"


@pytest.mark.parametrize(
    ("semantics", "received", "rule"),
    [
        (TRUSTED, [], "window"),
        (UNTRUSTED, [], "position"),
        (TRUSTED, [got(window=(0, 10)), got(time=20)], "position"),  # mixed: neither
        (TRUSTED, [got(window=(0, 10), app=1.0), got(time=20, app=2.0)], "arrival"),
    ],
)
def test_rule_choice(semantics, received, rule) -> None:  # type: ignore[no-untyped-def]
    assert choose(received, semantics)[0] == rule


def test_relations_sharing_a_time_and_window_are_aligned_in_turn() -> None:
    # A [TRIPLES 3] window sliding twice inside one event (count windows,
    # docs/count-and-session-windows.md): two evaluations at 6000, both
    # reporting [4000,6000]; each result goes with its own relation.
    #
    #   relation   0: 4000 [4000,4000]   1: 6000 [4000,6000]   2: 6000 [4000,6000]
    expected = [
        replace(rel(0, "a"), time=4000, window=(4000, 4000)),
        replace(rel(1, "b"), time=6000, window=(4000, 6000)),
        replace(rel(2, "c"), time=6000, window=(4000, 6000)),
    ]
    windows = [got(n, window=w, time=t) for n, w, t in (("a", (4000, 4000), 4000),
               ("b", (4000, 6000), 6000), ("c", (4000, 6000), 6000))]  # fmt: skip
    assert align(expected, windows, TRUSTED).groups == ((0,), (1,), (2,))
    times = [got(n, time=t) for n, t in (("a", 4000), ("b", 6000), ("c", 6000))]
    assert align(expected, times, TRUSTED).groups == ((0,), (1,), (2,))
    arrivals = [got(app=a) for a in (4000.0, 6000.0, 6000.5)]
    assert align(expected, arrivals, UNTRUSTED).groups == ((0,), (1,), (2,))
    # A third result at 6000 is a repeat: it goes with the first relation there.
    repeat = [*times, got("c", time=6000)]
    assert align(expected, repeat, TRUSTED).groups == ((0,), (1, 3), (2,))
