"""An empty-group aggregate is named for what it is, even where late events
could explain a missing row (tests/explore/regressions/empty-group-aggregate-with-disorder)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CASE = (
    Path(__file__).resolve().parents[1]
    / "explore"
    / "regressions"
    / "empty-group-aggregate-with-disorder"
)


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_an_unbound_aggregate_is_an_empty_group_aggregate_not_late_events(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(CASE, pytester.path / "case")
    spec = pytester.path / "case" / "counterexample.rspbench.yaml"
    result = pytester.runpytest(str(spec), "--rspbench-engine", "faulty-null-avg")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*strict: FAIL — empty-group aggregate x1 at*"])
    assert "late events" not in result.stdout.str()
