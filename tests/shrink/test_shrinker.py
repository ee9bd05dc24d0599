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
    from pytest_rspbench.options import Settings
    from pytest_rspbench.session import RspbenchSession

    class Cache:
        def mkdir(self, name):
            return tmp_path / ".pytest_cache" / "d" / name

    item = SimpleNamespace(nodeid="specs/a.rspbench.yaml::a[engine=x]")
    session = RspbenchSession(Settings(master="local[1]"), pytest_cache=Cache())
    folder = session.counterexample_folder(item)
    assert (
        folder
        == tmp_path / ".pytest_cache/d/rspbench-counterexamples/specs_a.rspbench.yaml_a_engine=x"
    )
    with_artifacts = RspbenchSession(Settings(master="local[1]", artifacts=tmp_path / "art"))
    assert with_artifacts.counterexample_folder(item) == with_artifacts.artifacts_for(item)
    bare = RspbenchSession(Settings(master="local[1]")).counterexample_folder(item)
    assert bare.is_dir() and bare.name.startswith("rspbench-counterexample-")
    bare.rmdir()


def example7(tmp_path):
    """RSP-QL Example 7 as a case of the reference engine, and its profile."""
    import shutil
    from pathlib import Path

    from pytest_rspbench.runner import prepare
    from pytest_rspbench.spec.loader import load_spec

    specs = Path(__file__).parents[2] / "specs" / "rspql"
    shutil.copytree(specs / "data", tmp_path / "data")
    shutil.copy(specs / "example7-sliding-window.rspbench.yaml", tmp_path / "e7.rspbench.yaml")
    (case,) = load_spec(tmp_path / "e7.rspbench.yaml").cases
    return case, prepare(case).profile


def judged_as(profile, departures):
    from pytest_rspbench.verdict.departures import Departure

    shown = tuple(Departure(name, ((5, 10),)) for name in departures)
    assessment = SimpleNamespace(passed=not shown, departures=shown)
    return SimpleNamespace(assessment=assessment, profile=profile)


def test_search_keeps_the_smallest_input_that_shows_the_departure(tmp_path, monkeypatch):
    from pytest_rspbench.shrink import shrinker

    case, profile = example7(tmp_path)
    run = SimpleNamespace(
        case=case, profile=profile, assessment=judged_as(profile, ["window-bounds"]).assessment
    )
    tried = []

    def judge(trial, candidate):
        # The "engine" fails while carl's event is there and the input goes
        # on at least 3 ms after it.
        tried.append(candidate)
        carl = [t.time for t in candidate.triples if "carl" in t.triple[0]]
        ends = [e for e in candidate.ends if e is not None]
        shows = bool(carl) and max(ends) - carl[0] >= 3
        return judged_as(profile, ["window-bounds"] if shows else [])

    monkeypatch.setattr(shrinker._Trial, "_judge", judge)
    found = shrinker.shrink(run, "window-bounds", None, tmp_path / "out", 60.0)
    assert found.status == "minimal"
    assert [(t.time, t.triple[0]) for t in found.triples] == [
        (1, "<http://example.org/rspql/carl>")
    ]
    assert found.end == 4  # carl moved from 5 to 1, the end from 16 to 4: slides of 2
    assert found.original == (4, 5) and found.runs == len(tried)
    assert found.shows == "window bounds x1 at (5,10]"
    assert (tmp_path / "out" / "counterexample.nt").read_text().strip() == (
        "<http://example.org/rspql/carl> <http://example.org/rspql/isNearby> "
        '<http://example.org/rspql/a> "1" .'
    )


def test_budget_that_runs_out_keeps_the_input_and_says_where(tmp_path, monkeypatch):
    from pytest_rspbench.shrink import shrinker

    case, profile = example7(tmp_path)
    run = SimpleNamespace(
        case=case, profile=profile, assessment=judged_as(profile, ["window-bounds"]).assessment
    )
    monkeypatch.setattr(shrinker._Trial, "_judge", lambda trial, c: 1 / 0)
    found = shrinker.shrink(run, "window-bounds", None, tmp_path / "out", 0.0)
    assert (found.status, found.runs, found.events, len(found.triples)) == ("budget", 0, 4, 5)
    assert found.note.startswith("the budget of 0 s ran out in step 'events'")
    assert found.spec is not None and found.spec.is_file()
