"""Delta debugging and time-span compression, without an engine or Spark."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.shrink.delta import compress, ddmin


def test_ddmin_keeps_the_two_units_that_fail_together():
    tried = []

    def fails(units):
        tried.append(units)
        return {2, 11} <= set(units)

    assert ddmin(list(range(16)), fails) == [2, 11]
    assert all(len(t) < 16 for t in tried)  # the whole input is never run again


def test_ddmin_of_one_unit_runs_nothing():
    assert ddmin(["only"], lambda units: 1 / 0) == ["only"]


@given(st.lists(st.integers(0, 40), min_size=1, max_size=30, unique=True), st.data())
def test_ddmin_result_fails_and_is_one_minimal(units, data):
    needed = set(data.draw(st.lists(st.sampled_from(units), min_size=1, max_size=4)))

    def fails(kept):
        return needed <= set(kept)

    kept = ddmin(units, fails)
    assert fails(kept)
    # 1-minimal: without any one unit it no longer fails.
    assert all(not fails(kept[:k] + kept[k + 1 :]) for k in range(len(kept)))
    assert kept == [u for u in units if u in kept]  # order kept


def test_compress_cuts_gaps_by_multiples_of_the_slide():
    # slide 2     0 . 2 . 4 . 6 . 8 . 10. 12. 14
    # before      a           b               end
    # after       a b     end                      (needs end - b >= 4)
    assert compress([0, 6, 14], 0, 2, lambda m: m[14] - m[6] >= 4) == {0: 0, 6: 0, 14: 4}


def test_compress_keeps_each_time_on_its_place_in_the_window_grid():
    # Window (o,c] of width 5 sliding by 2 from t0 = 1: 7 and 12 sit on
    # borders; a cut by a multiple of 2 keeps them there.
    seen = []

    def fails(mapping):
        seen.append(mapping)
        return True

    mapping = compress([7, 12, 16], 0, 2, fails)
    assert mapping == {7: 1, 12: 2, 16: 2}
    assert all((new - old) % 2 == 0 for m in seen for old, new in m.items())


def test_compress_without_a_step_changes_nothing():
    assert compress([3, 9], 0, 0, lambda m: True) == {3: 3, 9: 9}


def test_compress_finds_the_largest_cut_by_bisection():
    runs = []

    def fails(mapping):
        runs.append(mapping)
        return mapping[1000] >= 700

    assert compress([1000], 0, 1, fails) == {1000: 700}
    assert len(runs) <= 1 + 10  # the whole cut, then bisection over 1000
