"""``--param K=V``: picking a case by its matrix values, as YAML reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_specs import engine_profile, spec_text

from pytest_rspbench.cli import main
from pytest_rspbench.cli.cases import same_value, select_case
from pytest_rspbench.engine.profiles import identify
from pytest_rspbench.errors import SpecError
from pytest_rspbench.spec.loader import load_spec


@pytest.mark.parametrize("written", ["90", "90.0", "9e1", "90.00"])
def test_a_number_matches_whatever_its_spelling(spec: Path, written: str) -> None:
    """``temp=90`` picks the case ``temp: [90.0]``, whatever the number's spelling."""
    case = select_case(load_spec(spec), [f"temp={written}"])
    assert dict(case.params)["temp"] == 90.0


def test_no_param_is_the_first_case(spec: Path) -> None:
    assert dict(select_case(load_spec(spec), []).params)["temp"] == 80.0


def test_every_param_must_match(spec: Path) -> None:
    case = select_case(load_spec(spec), ["range=1000", "temp=90", "engine=reference"])
    assert dict(case.params) == {"range": 1000, "temp": 90.0}


def test_an_unknown_parameter_names_the_known_ones(spec: Path) -> None:
    with pytest.raises(SpecError) as raised:
        select_case(load_spec(spec), ["tmp=80"])
    assert str(raised.value) == (
        f"--param tmp=...: {spec} has no parameter 'tmp'; its parameters are "
        "range, temp, engine.\nHINT: use one of those names; did you mean 'temp'?"
    )


def test_a_value_no_case_has_lists_the_values(spec: Path) -> None:
    with pytest.raises(SpecError, match=r"\(temp takes 80.0, 90.0\)") as raised:
        select_case(load_spec(spec), ["temp=85"])
    assert "HINT: the cases are range=1000,temp=80.0" in str(raised.value)


def test_a_param_without_a_value_is_an_error(spec: Path) -> None:
    with pytest.raises(SpecError, match="expected K=V"):
        select_case(load_spec(spec), ["temp"])


@pytest.mark.parametrize(
    ("value", "text", "same"),
    [
        (80.0, "80", True),
        (80, "80.0", True),
        (10000, "1e4", True),
        ("10s", "10s", True),
        (True, "true", True),
        (True, "1", False),  # YAML's true is no number
        (1, "true", False),
        (80, "80.5", False),
        ("80", "80", True),  # a quoted matrix value, by its text
    ],
)
def test_values_compare_as_yaml_reads_them(value: object, text: str, same: bool) -> None:
    assert same_value(value, text) is same


def test_rspbench_oracle_says_which_parameter_is_unknown(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before anything starts: the error comes from the command, with its hint."""
    assert main(["oracle", str(spec), "--param", "tmp=80"]) == 1
    err = capsys.readouterr().err
    assert "has no parameter 'tmp'" in err and "did you mean 'temp'?" in err


def test_engine_by_its_profile_name_or_as_written(spec: Path) -> None:
    spec.write_text(spec_text(engines="[reference, engine.yaml]"))
    engine_profile(spec.parent)
    loaded = load_spec(spec, check_engine=identify)
    assert select_case(loaded, ["engine=mine"]).engine == "engine.yaml"
    assert select_case(loaded, ["engine=engine.yaml", "temp=90"]).case_id.endswith(
        "temp=90.0,engine=mine"
    )
    assert select_case(loaded, ["engine=reference"]).engine == "reference"
