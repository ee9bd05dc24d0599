"""The failure database: kept across runs, replayed first, a fixed bug confirmed.

The replay is checked without Spark or an engine: the runs are faked (what
``attempt_spec`` would say of each written spec), so this is the logic only;
``test_explore_command.py`` replays a real database on Spark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.engine.profiles import resolve
from pytest_rspbench.errors import RspbenchError
from pytest_rspbench.explore import database, exploration
from pytest_rspbench.explore.cases import generate, to_json
from pytest_rspbench.explore.exploration import Exploration, Settings
from pytest_rspbench.explore.scope import scope_of
from pytest_rspbench.explore.trials import Tried

REFERENCE = resolve("reference", Path.cwd())


def entry(spec: str, engine: str = "reference", **more: Any) -> database.Entry:
    return database.Entry(engine, "window-bounds", [], spec, **more)


def test_entries_survive_a_save_and_a_load(tmp_path: Path) -> None:
    entries = [entry("01/counterexample.rspbench.yaml", case={"seed": 1}), entry("02/c.yaml")]
    database.save(tmp_path, entries)
    assert database.load(tmp_path) == entries
    assert database.load(tmp_path / "nothing-yet") == []


def test_a_file_of_something_else_is_refused_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / database.FILE).write_text('{"version": 7, "entries": []}')
    with pytest.raises(RspbenchError, match=r"not a failure database.*version 7") as raised:
        database.load(tmp_path)
    assert "HINT: remove it" in str(raised.value)


class Runs:
    """What each written spec does now, and the order they were run in."""

    def __init__(self, outcomes: dict[str, Tried]) -> None:
        self.outcomes = outcomes
        self.order: list[str] = []

    def __call__(self, path: Path, engine: str, spark: Any, guard: Any = None) -> Tried:
        self.order.append(path.parent.name)
        return self.outcomes[path.parent.name]


def replayed(tmp_path: Path, runs: Runs, monkeypatch: pytest.MonkeyPatch) -> Exploration:
    monkeypatch.setattr(exploration, "attempt_spec", runs)
    # No budget: the replay alone (it always runs in full, first).
    settings = Settings("reference", tmp_path, seed=1, budget=1e-9)
    explored = Exploration(REFERENCE, settings, lambda: None)
    explored.run()
    return explored


def test_the_database_is_replayed_first_and_a_fixed_bug_is_confirmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("fixed", "still"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "counterexample.rspbench.yaml").write_text("")
    entries = [
        entry("fixed/counterexample.rspbench.yaml"),
        entry("still/counterexample.rspbench.yaml"),
        entry("other/counterexample.rspbench.yaml", engine="rspjs"),
    ]
    entries[1].constructs = ["optional"]
    database.save(tmp_path, entries)
    runs = Runs(
        {
            "fixed": Tried("passed"),
            "still": Tried("failed", departure="lost-window", verdict="strict: FAIL — lost"),
        }
    )
    explored = replayed(tmp_path, runs, monkeypatch)
    assert runs.order == ["fixed", "still"]  # this engine's entries, in the order found
    saved = {e.spec.split("/")[0]: e for e in database.load(tmp_path)}
    assert saved["fixed"].status == "fixed" and saved["fixed"].checked
    assert saved["still"].status == "failing"
    assert saved["other"].status == "failing" and not saved["other"].checked  # untouched
    (group,) = explored.outcome.groups.all
    assert (group.departure, group.constructs, group.known) == (
        "lost-window",
        frozenset({"optional"}),
        True,
    )
    # A new failure showing it joins the group instead of being shrunk again.
    assert explored.outcome.groups.find("lost-window", frozenset({"optional", "bind"})) is group
    assert explored.outcome.failures == 0  # known ones are not this run's


def test_an_entry_whose_spec_is_gone_is_run_from_its_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generated = generate(5, 0, scope_of(REFERENCE))
    database.save(tmp_path, [entry("gone/counterexample.rspbench.yaml", case=to_json(generated))])
    seen: list[Any] = []

    def attempt(case: Any, spark: Any, guard: Any = None) -> Tried:
        seen.append(case)
        return Tried("passed")

    monkeypatch.setattr(exploration, "attempt", attempt)
    replayed(tmp_path, Runs({}), monkeypatch)
    assert seen and seen[0].query.text == generated.query.text
    assert database.load(tmp_path)[0].status == "fixed"
