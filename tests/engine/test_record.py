"""``--rspbench-record DIR``: an engine's answers written where a recorded
profile of the same name reads them, and judged there as they were live."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "rspql" / "bounds-co.rspbench.yaml"
FAULTY = ROOT / "engines" / "faulty" / "wrong-bounds" / "engine.yaml"


def recorded_profile(folder: Path, answers: Path) -> Path:
    """faulty-wrong-bounds's own profile, its adapter the recorded answers."""
    profile = yaml.safe_load(FAULTY.read_text())
    profile["adapter"] = {"recorded": {"path": f"{answers}/{{spec}}/{{case}}.jsonl"}}
    path = folder / "engine.yaml"
    folder.mkdir()
    path.write_text(yaml.safe_dump(profile, sort_keys=False))
    return path


def first_failure_lines(result: pytest.RunResult) -> list[str]:
    return sorted(line.strip() for line in result.outlines if "strict: FAIL" in line)


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_recorded_answers_are_judged_as_they_were_live(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    shutil.copytree(SPEC.parent, pytester.path / "rspql")  # the spec and its data
    spec = pytester.path / "rspql" / SPEC.name
    answers = tmp_path / "answers"
    live = pytester.runpytest(
        str(spec), "--rspbench-engine", "faulty-wrong-bounds", "--rspbench-record", str(answers)
    )
    outcomes: dict[str, Any] = live.parseoutcomes()
    assert outcomes.get("failed")
    written = sorted(answers.rglob("*.jsonl"))
    assert written and all(p.parent.name == "rspql-bounds-co" for p in written)
    assert all("engine=faulty-wrong-bounds" in p.name for p in written)

    profile = recorded_profile(tmp_path / "recorded", answers)
    offline = pytester.runpytest(str(spec), "--rspbench-engine", str(profile))
    assert offline.parseoutcomes() == outcomes
    assert first_failure_lines(offline) == first_failure_lines(live)
