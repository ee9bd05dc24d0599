"""``replay.repeat``: several replays of one case, one oracle run, medians."""

from __future__ import annotations

import json

import pytest

from pytest_rspbench.verdict.metrics import RunMetrics
from pytest_rspbench.verdict.strict import median_run

from helpers.project import engine_yaml

FLAKY = '''
from rspbench_engines.reference.engine import ReferenceEngine
from pytest_rspbench.engine.api import Result

REPLAYS = []


class SecondTimeWrong(ReferenceEngine):
    """Right on every replay but the second, where it loses a binding."""

    name = "second-time-wrong"

    def open(self, registration, emit):
        REPLAYS.append(1)
        if len(REPLAYS) == 2:
            def lossy(result):
                emit(Result(result.bindings[1:], result.time, result.window))
            super().open(registration, lossy)
        else:
            super().open(registration, emit)
'''


def test_median_of_each_run_metric_over_the_runs_that_have_it() -> None:
    runs = [
        RunMetrics(1.0, 10.0, 30.0, 40.0, 100, None),
        RunMetrics(0.5, 20.0, 10.0, 90.0, None, None),
        RunMetrics(1.0, 30.0, 20.0, 50.0, 300, None),
    ]
    assert median_run(runs) == RunMetrics(1.0, 20.0, 20.0, 50.0, 200.0, None)  # type: ignore[arg-type]


def one_case_replayed_three_times(project, pytester, engines: str) -> None:
    project(engines=engines, extra="replay:\n  repeat: 3\n")
    spec = pytester.path / "tiny.rspbench.yaml"
    spec.write_text(spec.read_text().replace("step: [2000, 4000]", "step: [2000]"))


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_every_replay_is_judged_and_the_metrics_are_medians(project, pytester):
    one_case_replayed_three_times(project, pytester, "reference")
    result = pytester.runpytest("--rspbench-json", "r.json", "--rspbench-artifacts", "art")
    result.assert_outcomes(passed=1)
    [item] = json.loads((pytester.path / "r.json").read_text())["items"]
    assert [r["passed"] for r in item["repeats"]] == [True, True, True]
    medians = median_run([RunMetrics(**r["run_metrics"]) for r in item["repeats"]])
    assert item["run_metrics"] == medians.as_dict()
    [folder] = (pytester.path / "art").iterdir()
    assert (folder / "results.jsonl").is_file()
    for number in (2, 3):
        assert (folder / f"repeat-{number}" / "results.jsonl").is_file()


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_one_wrong_replay_fails_the_item_and_is_the_one_shown(project, pytester):
    pytester.makepyfile(flaky=FLAKY)
    pytester.makefile(".yaml", flaky=engine_yaml("second-time-wrong", "flaky:SecondTimeWrong"))
    one_case_replayed_three_times(project, pytester, "flaky.yaml")
    result = pytester.runpytest("--rspbench-json", "r.json", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    [item] = json.loads((pytester.path / "r.json").read_text())["items"]
    assert [r["passed"] for r in item["repeats"]] == [True, False, True]
    assert any(w["missing"] for w in item["windows"])  # the second replay's table
