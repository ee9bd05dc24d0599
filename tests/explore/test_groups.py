"""Failures grouped by departure class and the constructs they need."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pytest_rspbench.explore.groups import EXPLANATIONS, ORACLE_ERROR, Groups
from pytest_rspbench.rsp.constructs import NAMES


def test_a_failure_joins_the_group_whose_constructs_it_uses() -> None:
    groups = Groups()
    plain = groups.add("window-bounds", frozenset())
    optional = groups.add("lost-window", frozenset({"optional"}))
    assert groups.find("window-bounds", frozenset({"optional", "union"})) is plain
    assert groups.find("lost-window", frozenset({"optional", "filter"})) is optional
    assert groups.find("lost-window", frozenset({"filter"})) is None  # needs optional
    assert groups.find("stale-content", frozenset()) is None  # another class


def test_the_most_specific_covering_group_wins() -> None:
    groups = Groups()
    groups.add("wrong-solutions", frozenset())
    union = groups.add("wrong-solutions", frozenset({"union"}))
    assert groups.find("wrong-solutions", frozenset({"union", "bind"})) is union


def test_counts_per_class_leave_replayed_entries_out() -> None:
    groups = Groups()
    a = groups.add("lost-window", frozenset())
    b = groups.add("window-bounds", frozenset({"minus"}))
    c = groups.add("lost-window", frozenset({"union"}))
    a.cases += [3, 9]
    b.cases += [None, 12]  # None: a database entry still failing
    c.cases += [20]
    assert groups.failures() == 4
    assert groups.by_departure() == {"lost-window": 3, "window-bounds": 1}


def test_names_and_folders() -> None:
    groups = Groups()
    first = groups.add("window-bounds", frozenset())
    second = groups.add("lost-window", frozenset({"union", "optional"}))
    error = groups.add(ORACLE_ERROR, frozenset({"aggregates"}))
    assert (first.slug, first.label) == ("01-window-bounds-plain", "window-bounds (plain pattern)")
    assert second.slug == "02-lost-window-optional.union"
    assert second.label == "lost-window (optional, union)"
    assert error.slug == "03-oracle-error-aggregates"
    assert "oracle" in error.explanation
    assert first.explanation.startswith("solutions of an event on a window border")


@given(
    st.sampled_from(sorted(EXPLANATIONS)),
    st.frozensets(st.sampled_from(NAMES)),
    st.integers(1, 120),
)
def test_a_folder_name_is_a_valid_spec_name(
    departure: str, constructs: frozenset[str], number: int
) -> None:
    groups = Groups()
    groups.all = [None] * (number - 1)  # type: ignore[list-item]
    slug = groups.add(departure, constructs).slug
    # shrink/written.py names the spec f"{spec_name}-counterexample"; explore's spec_name:
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", f"explore-{slug}-counterexample")
