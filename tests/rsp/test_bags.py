"""Bag matching: term equality, numbers by value, tolerance without a grid."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.rsp.bags import Solution, bag, equal, match, terms_match

from helpers.verdict import b, num

INT, DEC, DBL, FLT = "integer", "decimal", "double", "float"


def v(*terms: str) -> Counter[Solution]:
    """A bag of one-variable solutions ``{v: term}``."""
    return bag({"v": t} for t in terms)


def test_term_equality_counts_bag_intersection() -> None:
    m = match(b("a", "a", "b"), b("a", "c"))
    assert m.common == 1
    assert m.missing == ((("x", "<http://ex/c>"),),)
    assert m.unexpected == ((("x", "<http://ex/a>"),), (("x", "<http://ex/b>"),))


def test_term_equality_keeps_datatypes_apart() -> None:
    assert match(v(num("1", INT)), v(num("1.0", DBL))).common == 0


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (num("1", INT), num("1.0", DBL)),
        (num("1", INT), num("1.0E0", DBL)),
        (num("01", INT), num("1", INT)),
        (num("1.50", DEC), num("1.5", FLT)),
        (num("0.1", DEC), num("0.1", DBL)),  # decimal promoted to double (SPARQL)
        (num("-0.0", DBL), num("0", INT)),
        (num("NaN", DBL), num("NaN", FLT)),
        (num("INF", DBL), num("INF", FLT)),
    ],
)
def test_value_equality(left: str, right: str) -> None:
    assert match(v(left), v(right), "value").common == 1
    assert terms_match(left, right, "value", 0.0)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (num("1", INT), num("2", INT)),
        (num("1", INT), '"1"'),  # a string is not a number
        (num("NaN", DBL), num("0", INT)),
        (num("INF", DBL), num("-INF", DBL)),
        ("<http://ex/1>", num("1", INT)),
    ],
)
def test_value_inequality(left: str, right: str) -> None:
    assert match(v(left), v(right), "value").common == 0
    assert match(v(left), v(right), "value", 0.5).common == 0


def test_value_equality_reports_the_terms_as_written() -> None:
    m = match(v(num("1", INT), num("2", INT)), v(num("1.0", DBL), num("3", INT)), "value")
    assert m.common == 1
    assert m.unexpected == ((("v", num("2", INT)),),)
    assert m.missing == ((("v", num("3", INT)),),)


def test_tolerance_does_not_split_values_on_a_grid_edge() -> None:
    # The old grid rounding put 0.149 on 0.1 and 0.151 on 0.2: different keys
    # although they differ by 0.002, far within tolerance 0.1.
    assert match(v(num("0.149", DBL)), v(num("0.151", DBL)), "value", 0.1).common == 1
    assert match(v(num("0.25", DBL)), v(num("0.35", DBL)), "value", 0.1).common == 1


def test_tolerance_is_absolute_and_inclusive() -> None:
    assert match(v(num("10", INT)), v(num("10.5", DBL)), "value", 0.5).common == 1
    assert match(v(num("10", INT)), v(num("10.6", DBL)), "value", 0.5).common == 0


def test_tolerance_finds_the_maximum_matching() -> None:
    # Pairing the identical 0s first would leave -1 and 1 (2 apart) unpaired;
    # the maximum pairs -1 with 0 and 0 with 1.
    actual = v(num("-1", INT), num("0", INT))
    expected = v(num("0", INT), num("1", INT))
    assert match(actual, expected, "value", 1).common == 2


def test_tolerance_with_two_numbers_per_solution() -> None:
    # Each solution has two numbers; only a full assignment pairs all three.
    def s(a: str, c: str) -> dict[str, str]:
        return {"a": num(a, DBL), "c": num(c, DBL)}

    actual = bag([s("0", "0"), s("1", "1"), s("2", "0")])
    expected = bag([s("0.1", "0.9"), s("0.9", "0.1"), s("2", "0")])
    # (0,0) fits only (0.9,0.1)? no: |0-0.9| > 0.5. With tolerance 1 both fit.
    m = match(actual, expected, "value", 1)
    assert m.common == 3
    assert m.equal


def test_tolerance_needs_the_other_terms_equal() -> None:
    left = bag([{"s": "<http://ex/a>", "v": num("1", INT)}])
    right = bag([{"s": "<http://ex/b>", "v": num("1", INT)}])
    assert match(left, right, "value", 10).common == 0


def test_unbound_variables_never_match_bound_ones() -> None:
    assert match(bag([{"x": "<a>"}]), bag([{"x": "<a>", "y": "<b>"}])).common == 0


def test_equal() -> None:
    assert equal(v(num("1", INT)), v(num("1.0", DBL)), "value")
    assert not equal(v(num("1", INT)), v(num("1.0", DBL)))
    assert not equal(v(num("1", INT)), v(num("1", INT), num("1", INT)), "value")
    assert equal(v(num("0.149", DBL)), v(num("0.151", DBL)), "value", 0.01)


@given(
    st.lists(st.integers(-20, 20), max_size=12),
    st.lists(st.integers(-20, 20), max_size=12),
    st.integers(0, 4),
)
def test_tolerant_matching_is_maximum(left: list[int], right: list[int], tol: int) -> None:
    """The sweep finds as many pairs as brute force over all assignments."""
    actual = v(*[num(str(x), INT) for x in left])
    expected = v(*[num(str(x), INT) for x in right])
    m = match(actual, expected, "value", tol)
    assert m.common == _brute_force(sorted(left), sorted(right), tol)
    assert m.common + len(m.unexpected) == len(left)
    assert m.common + len(m.missing) == len(right)


def _brute_force(left: list[int], right: list[int], tol: int) -> int:
    # Maximum bipartite matching by augmenting paths (independent of bags.py).
    owner: dict[int, int] = {}

    def try_(i: int, seen: set[int]) -> bool:
        for j, y in enumerate(right):
            if abs(left[i] - y) <= tol and j not in seen:
                seen.add(j)
                if j not in owner or try_(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(try_(i, set()) for i in range(len(left)))


@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=10),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=10),
)
def test_two_number_matching_is_maximum(
    left: list[tuple[int, int]], right: list[tuple[int, int]]
) -> None:
    def as_bag(points: list[tuple[int, int]]) -> Counter[Solution]:
        return bag({"a": num(str(a), INT), "c": num(str(c), INT)} for a, c in points)

    m = match(as_bag(left), as_bag(right), "value", 1)
    owner: dict[int, int] = {}

    def try_(i: int, seen: set[int]) -> bool:
        for j, q in enumerate(right):
            p = left[i]
            if abs(p[0] - q[0]) <= 1 and abs(p[1] - q[1]) <= 1 and j not in seen:
                seen.add(j)
                if j not in owner or try_(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    assert m.common == sum(try_(i, set()) for i in range(len(left)))


def test_matching_is_deterministic() -> None:
    actual = v(*[num(str(x / 10), DBL) for x in range(30)])
    expected = v(*[num(str(x / 10 + 0.05), DBL) for x in range(30)])
    runs = {repr(match(actual, expected, "value", 0.06)) for _ in range(3)}
    assert len(runs) == 1


def test_a_verdict_builds_each_relations_bag_once() -> None:
    from pytest_rspbench.rsp.bags import bag, remembered

    bindings = ({"x": "<a>"}, {"x": "<a>"}, {"x": "<b>"})
    assert bag(bindings) is not bag(bindings)  # outside: built each time
    with remembered():
        first = bag(bindings)
        assert bag(bindings) is first
        with remembered():  # nested: the same memo
            assert bag(bindings) is first
        assert bag(tuple(bindings)) is first  # tuple(t) is t
        other = tuple(dict(b) for b in bindings)
        assert bag(other) == first and bag(other) is not first
        assert bag(list(bindings)) is not bag(list(bindings))  # lists may change
    assert bag(bindings) is not first
    assert first == {(("x", "<a>"),): 2, (("x", "<b>"),): 1}


@given(
    st.lists(st.tuples(st.sampled_from("xyz"), st.integers(0, 6)), max_size=14),
    st.lists(st.tuples(st.sampled_from("xyz"), st.integers(0, 6)), max_size=14),
    st.integers(0, 2),
    st.booleans(),
)
def test_groups_a_difference_does_not_touch_pair_whole(
    left: list[tuple[str, int]], right: list[tuple[str, int]], tol: int, memo: bool
) -> None:
    """Solutions pair only within their group (same IRI here); the groups
    without a difference are set aside whole. The count is the maximum
    matching group by group, with or without a verdict's memo."""
    from contextlib import nullcontext

    from pytest_rspbench.rsp.bags import remembered

    def as_bag(points: list[tuple[str, int]]) -> Counter[Solution]:
        return bag({"k": f"<http://e/{k}>", "v": num(str(x), INT)} for k, x in points)

    with remembered() if memo else nullcontext():
        m = match(as_bag(left), as_bag(right), "value", tol)
    best = sum(
        _brute_force(
            sorted(x for k, x in left if k == g), sorted(x for k, x in right if k == g), tol
        )
        for g in "xyz"
    )
    assert m.common == best
    assert m.common + len(m.unexpected) == len(left)
    assert m.common + len(m.missing) == len(right)


BAGS = st.lists(st.sampled_from(["<a>", "<b>", "<c>", "<d>", None]), max_size=12)


@given(BAGS, BAGS, st.lists(BAGS, max_size=4))
def test_term_matching_and_sums_are_counter_arithmetic(
    left: list[str | None], right: list[str | None], more: list[list[str | None]]
) -> None:
    """The C-speed paths (item views, dict copies) give what Counter's own
    ``&``, ``-`` and ``+`` give, unbound variables included."""
    from pytest_rspbench.rsp.bags import added, differing

    a, e = (bag({"x": t, "y": "<k>"} for t in terms) for terms in (left, right))
    m = match(a, e)
    assert m.common == sum((a & e).values())
    assert m.missing == tuple(sorted((e - a).elements()))
    assert m.unexpected == tuple(sorted((a - e).elements()))
    assert differing(a, e) == set(a - e) | set(e - a)
    bags = [a, e, *(bag({"x": t} for t in terms) for terms in more)]
    before = [Counter(x) for x in bags]
    assert added(bags) == sum(bags, Counter())
    assert bags == before  # the bags themselves are left as they were
