"""``count_ties: any`` past enumeration: the engine's output picks the resolution.

Each evaluation has a few correct answers (a, b, c: one-solution bags, each
with the window it reports); the search (oracle/t0/ties.py) finds one answer
per evaluation whose output stream is the engine's, under each R2S
operator, or says none is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest

from pytest_rspbench.oracle.t0.ties import equality, matched, picked

A, B, C = (Counter({(("x", f"<{k}>"),): 1}) for k in "abc")
NONE: Counter = Counter()
SAME = equality(by_value=False, tolerance=0.0)


def w(*bags: Counter | None, window: tuple[int, int] | None = None) -> list:
    """Answers (or told relations) all reporting ``window`` (None: none)."""
    return [None if b is None else (b, window) for b in bags]


def test_rstream_picks_each_evaluation_on_its_own() -> None:
    #   evaluations  e1: a   e2: a | b   e3: b | c
    #   engine       a       b           b
    answers = [w(A), w(A, B), w(B, C)]
    assert matched(answers, w(A, B, B), "RStream", False, SAME) == [0, 1, 0]
    assert matched(answers, w(A, C, B), "RStream", False, SAME) is None


def test_istream_picks_by_the_previous_choice_too() -> None:
    # IStream streams a difference with the previous evaluation's answer:
    # e2 answers a+b (emits b) or a (emits nothing, not sent).
    answers = [w(A), w(A + B, A), w(A + B)]
    assert matched(answers, w(A, B), "IStream", False, SAME) == [0, 0, 0]
    assert matched(answers, w(A, B), "IStream", True, SAME) is None  # empty relations sent
    assert matched(answers, w(A, NONE, B), "IStream", True, SAME) == [0, 1, 0]


def test_the_reported_window_picks_between_equal_bags() -> None:
    # e2 emits b in (0,1) or, choosing a, nothing; then e3 emits b in (1,1):
    # the same bags, streamed at another evaluation (another window).
    answers = [w(A, window=(0, 0)), w(A + B, A, window=(0, 1)), w(A + B, window=(1, 1))]
    told = [(A, (0, 0)), (B, (1, 1))]
    assert matched(answers, told, "IStream", False, SAME) == [0, 1, 0]
    assert matched(answers, [(A, None), (B, None)], "IStream", False, SAME) == [0, 0, 0]


def test_left_out_evaluations_keep_the_previous_answer() -> None:
    # None: non-empty-content leaves the evaluation out; DStream then
    # compares e3 with e1.
    answers = [w(A + B), [None], w(A)]
    assert matched(answers, w(NONE, B), "DStream", True, SAME) == [0, 0, 0]


def test_containment_finds_the_engine_output_inside_a_longer_one() -> None:
    answers = [w(A), w(A, B), w(C)]
    assert matched(answers, w(B), "RStream", False, SAME) is None
    assert matched(answers, w(B), "RStream", False, SAME, contained=True) == [0, 1, 0]
    assert matched(answers, w(B, C), "RStream", False, SAME, contained=True) == [0, 1, 0]
    assert matched(answers, w(C, B), "RStream", False, SAME, contained=True) is None


@dataclass(frozen=True)
class Told:
    bindings: tuple[dict[str, str], ...]
    time: int | None
    window: tuple[int, int] | None = None


@pytest.mark.parametrize(
    ("output", "found"),
    [
        ([Told(({"x": "<a>"},), 1), Told(({"x": "<b>"},), 2)], [[0, 1]]),
        # A leading relation stamped before t_s (2) is not compared.
        ([Told(({"x": "<c>"},), 0), Told(({"x": "<a>"},), 2), Told(({"x": "<a>"},), 3)],
         [[0, 0]]),
        ([Told(({"x": "<c>"},), 5)], []),
    ],
)  # fmt: skip
def test_each_replay_picks_its_resolutions_once(output: list[Told], found: list) -> None:
    answers = [w(A), w(A, B)]
    assert picked(answers, [output, output], "RStream", False, SAME, stable_from=2) == found
