"""The ``hunt`` profile: pinned property tests become long random searches
(tests/helpers/properties.py, docs/oracle.md "How the oracle is checked")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.properties import explore, factor, hunting


@pytest.fixture
def profile() -> Iterator[None]:
    """Put the loaded Hypothesis profile back after the test."""
    before = settings.get_current_profile_name()
    yield
    settings.load_profile(before)


def test_a_hunt_multiplies_the_pinned_examples_and_draws_them_at_random(
    profile: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RSPBENCH_HUNT_FACTOR", raising=False)
    settings.load_profile("default")
    pinned = explore(3, spark=True)
    assert not hunting()
    assert (pinned.max_examples, pinned.derandomize, pinned.deadline) == (3, True, None)
    assert not explore(3).derandomize  # without Spark: random, as Hypothesis's default
    settings.load_profile("hunt")
    assert hunting() and factor() == 20
    assert (explore(3, spark=True).max_examples, explore(3, spark=True).derandomize) == (60, False)
    monkeypatch.setenv("RSPBENCH_HUNT_FACTOR", "7")
    assert explore(3).max_examples == 21
    assert settings.default.max_examples == 1000  # tests that pin no count


def test_a_factor_that_is_not_a_number_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RSPBENCH_HUNT_FACTOR", "many")
    with pytest.raises(ValueError, match="RSPBENCH_HUNT_FACTOR='many': expected a whole number"):
        factor()


@given(st.integers())
def test_marked_example(n: int) -> None:
    """A property test, to see it marked (below)."""
    assert isinstance(n, int)


def test_property_tests_are_marked_for_selection(request: pytest.FixtureRequest) -> None:
    """``-m property`` selects the Hypothesis tests, and only them."""
    here = [item for item in request.session.items if getattr(item, "module", None) is not None]
    marked = {
        item.name: item.get_closest_marker("property") is not None
        for item in here
        if item.module.__name__ == __name__
    }
    assert marked, "this module's tests were collected"
    assert marked == {name: name == "test_marked_example" for name in marked}
    assert marked.get("test_marked_example", True), "the property test is marked"
