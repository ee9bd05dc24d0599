"""lsbench-social: determinism, stream subsets, correlations with static data."""

from __future__ import annotations

from collections import Counter

import pytest

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.lsbench import (
    BASE,
    FOAF,
    GEO,
    SIB,
    SIOC,
    LSBenchConfig,
    lsbench_events,
    lsbench_static,
)

CONFIG = LSBenchConfig(users=150, duration=120_000, seed=7)
KNOWS, LIKE = f"<{FOAF}knows>", f"<{SIB}like>"


def timed(config: LSBenchConfig) -> list[tuple[int, tuple[str, str, str]]]:
    return [(e.time, t) for e in lsbench_events(config) for t in e.triples]


@pytest.fixture(scope="module")
def everything() -> list[tuple[int, tuple[str, str, str]]]:
    return timed(CONFIG)


@pytest.fixture(scope="module")
def knows() -> set[tuple[str, str]]:
    return {(s, o) for s, p, o in lsbench_static(CONFIG) if p == KNOWS}


def test_same_seed_same_stream_other_seed_other_stream(everything: list) -> None:
    assert timed(CONFIG) == everything
    other = LSBenchConfig(users=150, duration=120_000, seed=8)
    assert timed(other) != everything


def test_time_order_and_range(everything: list) -> None:
    times = [t for t, _ in everything]
    assert times == sorted(times)
    assert 0 <= times[0] and times[-1] <= CONFIG.duration


def test_a_subset_of_streams_filters_the_same_activity(everything: list) -> None:
    likes = timed(LSBenchConfig(users=150, duration=120_000, seed=7, streams=("plike",)))
    expected = [(t, x) for t, x in everything if x[1] == LIKE and "/post/" in x[2]]
    assert likes == expected and likes


def test_likes_and_comments_refer_to_earlier_posts_of_friends(everything: list, knows: set) -> None:
    creator, seen = {}, 0
    for _, (s, p, o) in everything:
        if p == f"<{SIOC}has_creator>" and "/post/" in s:
            creator[s] = o
        elif p == LIKE and "/post/" in o:
            assert (s, creator[o]) in knows
            seen += 1
    assert seen > 50


def test_photo_tags_are_friends(everything: list, knows: set) -> None:
    creator, tags = {}, 0
    for _, (s, p, o) in everything:
        if p == f"<{SIOC}has_creator>":
            creator[s] = o
        elif p == f"<{SIB}usertag>":
            assert (creator[s], o) in knows
            tags += 1
    assert tags > 0


def test_knows_is_symmetric_and_mostly_within_a_city(knows: set) -> None:
    assert all((b, a) in knows for a, b in knows)
    city = {s: o for s, p, o in lsbench_static(CONFIG) if p == f"<{FOAF}based_near>"}
    same = sum(city[a] == city[b] for a, b in knows) / len(knows)
    assert same > 0.6  # same_city = 0.8, plus chance meetings


def test_posting_is_skewed(everything: list) -> None:
    posts = Counter(
        o for _, (s, p, o) in everything if p == f"<{SIOC}has_creator>" and "/post/" in s
    )
    mean = sum(posts.values()) / CONFIG.users
    assert max(posts.values()) > 4 * mean


def test_event_attendees_report_positions_near_the_event() -> None:
    config = LSBenchConfig(users=60, duration=60_000, seed=3, streams=("gps",))
    static = list(lsbench_static(config))
    events = {s for s, p, o in static if o == f"<{SIB}Event>"}
    where: dict[str, dict[str, float]] = {s: {} for s in events}
    for s, p, o in static:
        if s in where and p.startswith(f"<{GEO}"):
            where[s][p] = float(o.split('"')[1])
    attendees = {s for s, p, o in static if p == f"<{SIB}attends>"}
    points: dict[str, list[float]] = {}
    for event in lsbench_events(config):
        for s, p, o in event.triples:
            if p == f"<{GEO}lat>":
                points.setdefault(s, []).append(float(o.split('"')[1]))
    assert points and attendees
    event_lats = [w[f"<{GEO}lat>"] for w in where.values()]
    near = [lat for lats in points.values() for lat in lats
            if any(abs(lat - e) <= 0.001 for e in event_lats)]  # fmt: skip
    assert near  # someone reported a position at an event


def test_static_data_has_profiles_and_forums() -> None:
    static = list(lsbench_static(LSBenchConfig(users=5, seed=1)))
    users = {s for s, p, o in static if o == f"<{SIOC}User>"}
    assert users == {f"<{BASE}user/u{i}>" for i in range(5)}
    assert any(p == f"<{SIOC}has_moderator>" for _, p, _ in static)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"streams": ("tweets",)}, "expected streams among"),
        ({"streams": ()}, "expected streams among"),
        ({"users": 0}, "users must be a whole number from 1 to"),
        ({"skew": 1.0}, "skew must be a finite number above 1 and at most 1,000"),
        ({"duration": -1}, "duration must be a whole number from 0 to"),
        ({"friends": 2.5}, "friends must be a whole number"),
    ],
)
def test_bad_parameters(params: dict, message: str) -> None:
    with pytest.raises(StreamError, match=message):
        LSBenchConfig(**params)


def test_streams_may_be_a_list_or_a_name() -> None:
    assert LSBenchConfig(streams=["pc", "gps"]).streams == ("pc", "gps")  # type: ignore[arg-type]
    assert LSBenchConfig(streams="gps").streams == ("gps",)  # type: ignore[arg-type]
