"""Session-window arithmetic (rsp/sessions.py): split or merge at the gap."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.rsp.sessions import SessionWindow, sessions

# time       1  2  3  4  5  6  7  8  9 10 11 12 13
# events     *  *        *        *           *  *
# split <3   [1--2]      [5]      [8]         [12-13]     sparq
# merge <=3  [1--2--------5--------8]         [12-13]     Flink
TIMES = [1, 2, 5, 8, 12, 13]


def test_split_and_merge_differ_exactly_at_the_gap() -> None:
    window = SessionWindow(3)
    assert sessions(TIMES, window, "split") == [(0, 1), (2, 2), (3, 3), (4, 5)]
    assert sessions(TIMES, window, "merge") == [(0, 3), (4, 5)]


def test_events_at_one_time_share_a_session() -> None:
    assert sessions([5, 5, 5], SessionWindow(1), "split") == [(0, 2)]


def test_close_and_reported_bounds() -> None:
    window = SessionWindow(3)
    assert window.close(2) == 5
    assert window.reported(1, 2, "[first,last]") == (1, 2)
    assert window.reported(1, 2, "[first,last+gap)") == (1, 5)


def test_gap_must_be_positive() -> None:
    with pytest.raises(ValueError, match="got 0 ms"):
        SessionWindow(0)


@given(st.lists(st.integers(0, 50), max_size=12).map(sorted), st.integers(1, 10))
def test_sessions_partition_the_events_and_respect_the_gap(times, gap) -> None:
    window = SessionWindow(gap)
    for rule, joins in (("split", lambda d: d < gap), ("merge", lambda d: d <= gap)):
        found = sessions(times, window, rule)
        assert [i for first, last in found for i in range(first, last + 1)] == list(
            range(len(times))
        )
        for first, last in found:
            assert all(joins(times[i + 1] - times[i]) for i in range(first, last))
        for (_, last), (first, _) in itertools.pairwise(found):
            assert not joins(times[first] - times[last])
