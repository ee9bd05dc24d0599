"""Workload shapes and disorder injection."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.model import Event
from pytest_rspbench.stream.workloads import (
    Disorder,
    Workload,
    arrival_times,
    arrivals,
    workload_events,
)


def test_constant_rate_is_evenly_spaced() -> None:
    #   0   100  200 ... 1000 ms: 10 records/s over 1 s, both ends included
    times = list(arrival_times(Workload("constant", duration=1000, rate=10)))
    assert times == list(range(0, 1001, 100))


def test_periodic_burst() -> None:
    # 400/s, plus 38,000 records every 10 s spread over 175 ms (RMLStreamer §IV.D)
    workload = Workload(
        "periodic-burst", duration=19_999, rate=400, burst=38_000, period=10_000,
        burst_length=175,
    )  # fmt: skip
    per_second = Counter(t // 1000 for t in arrival_times(workload))
    assert per_second[0] == 400 and per_second[9] == 400
    assert per_second[10] == 400 + 38_000
    burst = [t for t in arrival_times(workload) if 10_000 <= t < 10_175]
    assert len(burst) == 38_000 + 70  # the base rate goes on during the burst


def test_step_changes_rate_at_the_step() -> None:
    workload = Workload("step", duration=4000, rate=10, rate_after=100, at=2000)
    per_second = Counter(t // 1000 for t in arrival_times(workload))
    assert [per_second[s] for s in range(4)] == [10, 10, 100, 100]


@pytest.mark.parametrize(("start", "end"), [(0, 200), (200, 0), (50, 150)])
def test_ramp_count_is_the_mean_rate(start: float, end: float) -> None:
    workload = Workload("ramp", duration=10_000, rate=start, rate_after=end)
    times = list(arrival_times(workload))
    assert abs(len(times) - (start + end) / 2 * 10) <= 2
    assert times == sorted(times)
    first = sum(t < 5000 for t in times)
    last = len(times) - first
    assert (first < last) == (start < end)


def test_poisson_is_seeded_and_has_the_right_mean() -> None:
    workload = Workload("poisson", duration=100_000, rate=50, seed=4)
    times = list(arrival_times(workload))
    assert times == list(arrival_times(workload))
    assert times != list(arrival_times(Workload("poisson", duration=100_000, rate=50)))
    assert abs(len(times) - 5000) < 4 * 5000**0.5  # four standard deviations


def test_events_hold_one_observation_per_record() -> None:
    workload = Workload("constant", duration=1000, rate=20, sensors=3)
    events = list(workload_events(workload))
    assert sum(len(e.triples) for e in events) == 3 * 21
    assert [e.time for e in events] == list(range(0, 1001, 50))
    assert events[4].triples[1][2] == "<http://example.org/rspbench/sensor/1>"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"shape": "zigzag"}, "expected shape among"),
        ({"shape": "step"}, "needs rate_after"),
        ({"rate": -1}, "rate must be a finite number from 0 to"),
        ({"period": 0}, "period must be a whole number from 1 to"),
    ],
)
def test_bad_workloads(params: dict, message: str) -> None:
    with pytest.raises(StreamError, match=message):
        Workload(**params)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 1000), max_size=40).map(sorted),
    st.floats(0, 1),
    st.integers(1, 200),
    st.floats(0, 1),
    st.integers(0, 2**32),
)
def test_disorder_is_a_bounded_permutation_with_duplicates(
    times: list[int], late: float, max_delay: int, duplicates: float, seed: int
) -> None:
    events = [
        Event(t, (("<http://ex/s>", "<http://ex/p>", f'"{i}"'),)) for i, t in enumerate(times)
    ]
    disorder = Disorder(late, max_delay, duplicates, seed)
    arrived = list(arrivals(events, disorder))
    assert [a for a, _ in arrived] == sorted(a for a, _ in arrived)
    firsts: dict[int, int] = {}
    for arrival, event in arrived:
        assert event.time <= arrival
        first = firsts.setdefault(id(event), arrival)
        assert arrival - first <= max_delay and arrival - event.time <= 2 * max_delay
    seen = [e for _, e in arrived]
    assert {id(e) for e in seen} == {id(e) for e in events}
    assert all(seen.count(e) <= 2 for e in events)
    if late == 0 and duplicates == 0:
        assert seen == events and [a for a, _ in arrived] == times
    assert list(arrivals(events, disorder)) == arrived  # deterministic


@pytest.mark.parametrize(
    "settings",
    [
        {"late": 1.5, "max_delay": 10},
        {"duplicates": -0.1, "max_delay": 10},
        {"late": 0.5},
        {"max_delay": -1},
        {"late": True, "max_delay": 5},
    ],
)
def test_disorder_argument_checks(settings: dict) -> None:
    with pytest.raises(StreamError, match="disorder: "):
        Disorder(**settings)
