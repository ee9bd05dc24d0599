"""The shrinker's refusals, without an engine run or Spark."""

from __future__ import annotations

from types import SimpleNamespace

from pytest_rspbench.engine.adapters import RecordedAdapter
from pytest_rspbench.shrink import shrink


def test_recorded_answers_cannot_be_rerun_and_say_so(tmp_path):
    profile = SimpleNamespace(name="answers", config=RecordedAdapter("answers.jsonl"))
    run = SimpleNamespace(case=None, profile=profile)

    def no_spark():
        raise AssertionError("Spark is not needed to say so")

    found = shrink(run, "lost-window", no_spark, tmp_path, 60.0)
    assert found.status == "not-rerunnable"
    assert found.note.startswith("engine 'answers' gives recorded answers")
    assert found.spec is None and not list(tmp_path.iterdir())
