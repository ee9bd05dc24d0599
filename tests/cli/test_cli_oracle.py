"""``rspbench oracle SPEC``: the spec as a plain argument, like validate and report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_rspbench.cli import main


def test_the_spec_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["oracle"]) == 1
    err = capsys.readouterr().err
    assert "rspbench oracle: which spec?" in err
    assert "HINT: rspbench oracle SPEC.rspbench.yaml" in err


def test_two_different_specs_are_an_error(
    spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["oracle", str(spec), "--spec", str(tmp_path / "other.rspbench.yaml")]) == 1
    assert "two specs" in capsys.readouterr().err


@pytest.mark.parametrize("form", ["positional", "--spec", "both"])
def test_the_spec_can_be_given_either_way(
    spec: Path, form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each form reaches the case selection (its error needs no Spark)."""
    args = {"positional": [str(spec)], "--spec": ["--spec", str(spec)]}
    args["both"] = args["positional"] + args["--spec"]
    assert main(["oracle", *args[form], "--param", "temp=85"]) == 1
    assert f"no case of {spec} has these values" in capsys.readouterr().err


@pytest.mark.spark
@pytest.mark.usefixtures("spark")
def test_expected_output_of_the_case_a_param_picks(spec: Path, tmp_path: Path) -> None:
    out = tmp_path / "expected.jsonl"
    argv = ["oracle", str(spec), "--param", "temp=90", "-o", str(out)]
    assert main(argv) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    values = sorted(int(b["v"].split('"')[1]) for row in rows for b in row["bindings"])
    assert values == [91, 93, 95, 96, 98], rows
