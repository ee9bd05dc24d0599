"""The order in which a basic graph pattern's triple patterns are joined.

Only the plan's cost depends on it (the differential tests check the
answers); here the shape is pinned: each subject's star first, then stars
linked through a subject, and two stars sharing only an object last.
"""

from __future__ import annotations

from pytest_rspbench.oracle.compiler import Relation
from pytest_rspbench.oracle.patterns import _best_pair


def rel(*variables: str) -> Relation:
    return Relation(None, variables, False)


def test_stars_linked_through_a_subject_join_before_a_shared_object() -> None:
    """YABench Q6: ``?ob1 :procedure ?sensor ; :result ?res1 . ?res1 :value ?v1``
    and the same for ``?ob2``; the two observations share only ``?sensor``."""
    groups = [
        (rel("ob1", "sensor", "res1"), frozenset({"ob1"})),
        (rel("ob2", "sensor", "res2"), frozenset({"ob2"})),
        (rel("res1", "v1"), frozenset({"res1"})),
        (rel("res2", "v2"), frozenset({"res2"})),
    ]
    assert _best_pair(groups) == (0, 2)  # ob1 with its result, not with ob2
    assert _best_pair(groups[1:]) == (0, 2)  # ob2 with its result


def test_a_shared_object_before_nothing_shared() -> None:
    groups = [
        (rel("a", "x"), frozenset({"a"})),
        (rel("c", "y"), frozenset({"c"})),
        (rel("b", "x"), frozenset({"b"})),
    ]
    assert _best_pair(groups) == (0, 2)


def test_disjoint_relations_are_crossed_in_order() -> None:
    groups = [(rel("a"), frozenset({"a"})), (rel("b"), frozenset({"b"}))]
    assert _best_pair(groups) == (0, 1)
