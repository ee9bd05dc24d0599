"""Gracious mode without Spark: candidates, the exact search, reconstruction.

The query here asks for every statement (YABench Fig. 5), so a candidate's
bag is just the statements whose time lies inside it; ``evaluate`` computes
that in plain Python.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.rsp.bags import bag, match, size
from pytest_rspbench.rsp.windows import Bounds
from pytest_rspbench.spec.model import Comparison
from pytest_rspbench.verdict.gracious import best, candidates, explain
from pytest_rspbench.verdict.metrics import scores, window_rows

from .helpers import TRUSTED, expected, got, rel, sols

# s1..s4 at 1, 5, 8, 12 ms (YABench Fig. 5).
EVENTS = {1: "s1", 5: "s2", 8: "s3", 12: "s4"}
TIMES = sorted(EVENTS)


def all_statements(events: dict[int, str]):  # type: ignore[no-untyped-def]
    def evaluate(jobs):  # type: ignore[no-untyped-def]
        return {
            (k, m): sols(*[n for t, n in sorted(events.items()) if lo <= t <= hi])
            for k, m, lo, hi in jobs
        }

    return evaluate


def gracious(received, relations, shift, events=EVENTS, bounds=Bounds.CLOSED_OPEN):  # type: ignore[no-untyped-def]
    comparison = Comparison(gracious_shift=shift)
    cls = expected(tuple(relations)).classes[0]
    rows, _ = window_rows(cls.relations, received, TRUSTED, comparison)
    return explain(cls, rows, received, sorted(events), bounds, comparison, all_statements(events))


def test_fig5_borders_are_reconstructed() -> None:
    """W_e = [0,10) holds s1, s2, s3; the engine answered {s3, s4}.

    ::

        time   0   1       5     8       12      19
        W_e    [---s1------s2----s3--)
        found              [6 ..8]       [13 .. 20)   o in 6..8, c in 13..20
    """
    (row,) = gracious([got("s3", "s4", window=(0, 10))], [rel(0, "s1", "s2", "s3")], shift=10)
    assert (row.precision, row.recall) == (0.5, 1 / 3)  # non-gracious: Fig. 5
    g = row.gracious
    assert g is not None
    assert (g.precision, g.recall, g.f1) == (1.0, 1.0, 1.0)
    assert g.window == (6, 13)  # the borders closest to [0,10) that explain it
    assert (g.shift_start, g.shift_end) == (6, 3)
    assert (g.start_range, g.end_range) == ((6, 8), (13, 20))


def test_shift_bound_limits_the_search() -> None:
    # With 3 ms the start cannot pass s2 at 5: the best keeps s2 as well.
    (row,) = gracious([got("s3", "s4", window=(0, 10))], [rel(0, "s1", "s2", "s3")], shift=3)
    g = row.gracious
    assert g is not None
    assert g.window == (2, 13)  # {s2, s3, s4}: s2 is expected but not reported
    assert (g.precision, g.recall) == (1.0, 2 / 3)


def test_ideal_borders_win_ties() -> None:
    (row,) = gracious([got("s1", "s2", "s3", window=(0, 10))], [rel(0, "s1", "s2", "s3")], shift=10)
    g = row.gracious
    assert g is not None and g.window == (0, 10) and (g.shift_start, g.shift_end) == (0, 0)
    assert g.start_range == (-10, 1) and g.end_range == (9, 12)


def test_both_borders_move_together() -> None:
    # The engine kept only s2 and s3: the start moves past s1 (to 2..5)
    # while the end stays; the nearest such borders are [2,10).
    (row,) = gracious([got("s2", "s3", window=(0, 10))], [rel(0, "s1", "s2", "s3")], shift=5)
    g = row.gracious
    assert g is not None and (g.precision, g.recall) == (1.0, 1.0)
    assert g.window == (2, 10)


def test_a_missing_statement_in_the_middle_is_not_explained_away() -> None:
    # {s1, s3}: no window holds s1 and s3 without s2. Best: recall 1 with s2
    # unexplained (precision 1, recall 2/3) over the ideal window.
    (row,) = gracious([got("s1", "s3", window=(0, 10))], [rel(0, "s1", "s2", "s3")], shift=10)
    g = row.gracious
    assert g is not None
    assert (g.precision, g.recall) == (1.0, 2 / 3)
    assert g.window == (0, 10)


def test_rows_without_results_are_left_alone() -> None:
    rows = gracious([got("s1", window=(0, 10))], [rel(0, "s1"), rel(1, "s4")], shift=2)
    assert rows[0].gracious is not None and rows[1].gracious is None


def test_other_bounds_conventions() -> None:
    # (o,c]: the ideal (0,10] holds 1, 5, 8; the engine answered {s3, s4}.
    (row,) = gracious(
        [got("s3", "s4", window=(0, 10))],
        [rel(0, "s1", "s2", "s3")],
        shift=10,
        bounds=Bounds.OPEN_CLOSED,
    )
    g = row.gracious
    assert g is not None
    assert g.window == (5, 12) and (g.shift_start, g.shift_end) == (5, 2)


def test_content_change_relation_is_shifted_around_its_content() -> None:
    # Evaluated at 6 inside [0,10): content up to 6 (s1, s2).
    relation = replace(rel(0, "s1", "s2"), time=6)
    (row,) = gracious([got("s2", window=(0, 10), time=6)], [relation], shift=4)
    g = row.gracious
    assert g is not None
    assert (g.precision, g.recall) == (1.0, 1.0)
    assert g.window == (2, 7)  # first ms inside 2, last 6


@given(
    st.lists(st.integers(-30, 30), unique=True, max_size=8).map(sorted),
    st.integers(-10, 10),
    st.integers(0, 15),
    st.integers(0, 12),
)
def test_candidates_cover_every_content_once(
    times: list[int], lo: int, width: int, shift: int
) -> None:
    """Brute force over every pair of shifted borders gives the same contents."""
    hi = lo + width
    found = [tuple(t for t in times if c.lo <= t <= c.hi) for c in candidates(lo, hi, times, shift)]
    assert len(found) == len(set(found))
    brute = {
        tuple(t for t in times if a <= t <= b)
        for a in range(lo - shift, lo + shift + 1)
        for b in range(hi - shift, hi + shift + 1)
        if a <= b + 1
    }
    assert set(found) == brute
    for c in candidates(lo, hi, times, shift):
        assert c.lo_range[0] <= c.lo <= c.lo_range[1]
        assert c.hi_range[0] <= c.hi <= c.hi_range[1]
        assert abs(c.lo - lo) <= shift and abs(c.hi - hi) <= shift


def test_gracious_is_reproducible() -> None:
    received = [got("s3", "s4", window=(0, 10))]
    runs = {repr(gracious(received, [rel(0, "s1", "s2", "s3")], shift=10)) for _ in range(3)}
    assert len(runs) == 1


DOUBLE = "<http://www.w3.org/2001/XMLSchema#double>"


@given(
    st.lists(st.tuples(st.integers(-20, 20), st.integers(0, 4)), min_size=1, max_size=9),
    st.lists(st.tuples(st.integers(0, 12), st.sampled_from([0.0, 0.05, 0.5])), max_size=8),
    st.integers(-5, 5),
    st.integers(0, 10),
    st.integers(0, 10),
    st.sampled_from([("term", 0.0), ("value", 0.0), ("value", 0.1)]),
)
def test_the_bounded_search_finds_what_matching_every_candidate_finds(
    events: list[tuple[int, int]],
    reported: list[tuple[int, float]],
    lo: int,
    width: int,
    shift: int,
    equality: tuple[str, float],
) -> None:
    """``best`` stops early; matching every candidate and ranking them all
    (precision, recall, F1, then the shift, then the borders) must agree."""
    times = sorted({t for t, _ in events})
    value = {t: v for t, v in events}  # the last value drawn for a time wins

    def solution(key: int, number: float) -> dict[str, str]:
        return {"k": f"<k{key % 3}>", "v": f'"{number}"^^{DOUBLE}'}

    options = [
        (c, [solution(t, value[t]) for t in times if c.lo <= t <= c.hi])
        for c in candidates(lo, lo + width, times, shift)
    ]
    picked = [times[i % len(times)] for i, _ in reported]
    actual = bag(
        [solution(t, value[t] + noise) for t, (_, noise) in zip(picked, reported, strict=True)]
    )
    comparison = Comparison(literal_equality=equality[0], tolerance=equality[1])
    ranked = []
    for c, solutions in options:
        common = match(actual, bag(solutions), *equality).common
        p, r, f1 = scores(common, size(actual), len(solutions))
        moved = abs(c.lo - lo) + abs(c.hi - lo - width)
        ranked.append(((-f1, -r, -p, moved, c.lo, c.hi), (c, p, r, f1)))
    brute = min(ranked, key=lambda item: item[0])[1]
    assert best(actual, options, (lo, lo + width), comparison) == brute
