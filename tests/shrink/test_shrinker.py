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


def test_counterexample_folder_without_artifacts_is_in_pytests_cache(tmp_path):
    from pytest_rspbench.session import RspbenchSession

    class Cache:
        def mkdir(self, name):
            return tmp_path / ".pytest_cache" / "d" / name

    item = SimpleNamespace(nodeid="specs/a.rspbench.yaml::a[engine=x]")
    session = RspbenchSession(None, "local[1]", None, pytest_cache=Cache())
    folder = session.counterexample_folder(item)
    assert (
        folder
        == tmp_path / ".pytest_cache/d/rspbench-counterexamples/specs_a.rspbench.yaml_a_engine=x"
    )
    with_artifacts = RspbenchSession(None, "local[1]", tmp_path / "art")
    assert with_artifacts.counterexample_folder(item) == with_artifacts.artifacts_for(item)
    bare = RspbenchSession(None, "local[1]", None).counterexample_folder(item)
    assert bare.is_dir() and bare.name.startswith("rspbench-counterexample-")
    bare.rmdir()
