"""LSBench's mismatch mm(E1, E2, Q, R) on small sequences, by hand."""

from __future__ import annotations

import pytest

from pytest_rspbench.engine.api import Semantics
from pytest_rspbench.verdict.mismatch import blocks, matrix, mismatch, partition_of, table

from helpers.verdict import num

A, B, C, D, E = ({"x": n} for n in "abcde")


def test_periodical_partition_by_hand() -> None:
    """E1 = [a b] [c a] [d], E2 = [b] [a c] [c] [e] (positions 0..3).

    T1 = A1 ∩ O_E2[0] = {a@1, b@0} -> next slice from 0
    T2 = A2 ∩ O_E2[0] = {c@1, a@1} -> next slice from 1
    T3 = A3 ∩ O_E2[1] = {}        (d is nowhere)
    mm = (0 + 0 + 1) / 5
    """
    e1 = [[A, B], [C, A], [D]]
    e2 = [[B], [A, C], [C], [E]]
    assert mismatch(e1, e2, "periodical") == pytest.approx(1 / 5)
    # mm(E2, E1): blocks [b] [a c] [c] [e] against E1's positions a:0,1 b:0 c:1 d:2
    # T1 = {b@0}, T2 = {a@0, c@1} -> 0, T3 = {c@1} -> 1, T4 = {} (e nowhere)
    assert mismatch(e2, e1, "periodical") == pytest.approx(1 / 5)


def test_eager_partition_follows_the_order() -> None:
    """Eager blocks a, b | a, c | d (sorted within a relation).

    a@1 -> slice from 1; b is only at 0: lost; a@1; c@1; d: lost. mm = 2/5.
    """
    e1 = [[B, A], [C, A], [D]]
    e2 = [[B], [A, C], [C], [E]]
    assert mismatch(e1, e2, "eager") == pytest.approx(2 / 5)


def test_duplicates_are_tolerated() -> None:
    # LSBench: C-SPARQL outputs replicated results; they are all covered.
    assert mismatch([[A], [A], [A]], [[A]], "periodical") == 0.0
    assert mismatch([[A]], [[A], [A], [A]], "periodical") == 0.0


def test_order_matters_across_relations() -> None:
    # b appears in E2 only before a's match: it is not covered.
    assert mismatch([[A], [B]], [[B], [A]], "periodical") == 0.5
    assert mismatch([[A, B]], [[B], [A]], "periodical") == 0.0  # one block: order-free


def test_empty_outputs() -> None:
    assert mismatch([], [[A]]) == 0.0
    assert mismatch([[]], [[A]]) == 0.0
    assert mismatch([[A]], []) == 1.0


def test_blocks() -> None:
    assert blocks([[B, A], [], [C]], "periodical") == [
        [(("x", "a"),), (("x", "b"),)],
        [(("x", "c"),)],
    ]
    assert len(blocks([[B, A], [], [C]], "eager")) == 3


def test_value_equality_and_tolerance() -> None:
    one = [[{"v": num("1")}]]
    almost = [[{"v": num("1.04", "double")}]]
    assert mismatch(one, almost) == 1.0
    assert mismatch(one, [[{"v": num("1.0", "double")}]], literal_equality="value") == 0.0
    assert mismatch(one, almost, literal_equality="value", tolerance=0.05) == 0.0


def test_partition_from_the_profile() -> None:
    assert partition_of(Semantics(report=("content-change",))) == "eager"
    assert partition_of(Semantics(report=("window-close",))) == "periodical"
    assert partition_of(Semantics(report=("content-change",)), "periodical") == "periodical"


def test_matrix_and_comparability() -> None:
    outputs = {
        "e1": [[A, B], [C, A], [D]],
        "e2": [[B], [A, C], [C], [E]],
        "e3": [[A, B], [C, A], [D]],
    }
    m = matrix(outputs, {"e1": "periodical", "e2": "periodical", "e3": "periodical"})
    assert m.values[("e1", "e3")] == 0.0
    assert m.values[("e2", "e1")] == pytest.approx(0.2)
    assert m.comparable(0.2) and not m.comparable(0.19)
    assert m.worst() == (("e1", "e2"), pytest.approx(0.2))
    text = table(m)
    assert text.splitlines()[2].startswith("e1")
    assert "20.00%" in text and "(periodical)" in text
