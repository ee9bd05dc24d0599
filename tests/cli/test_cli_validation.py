"""``rspbench validate``: folders, engine profiles, and the engines a spec names."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_specs import STREAM, engine_profile, spec_text

from pytest_rspbench.cli import main


def test_a_folder_validates_every_spec_under_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "[Errno 21] Is a directory": each spec below, as pytest would collect."""
    for folder in ("a", "b/c", ".hidden", "node_modules"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "tiny.nt").write_text(STREAM)
        name = folder.replace("/", "-").strip(".")
        (tmp_path / folder / "x.rspbench.yaml").write_text(spec_text(name=f"s-{name}"))
    (tmp_path / "notes.yaml").write_text("not: a spec\n")
    assert main(["validate", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{tmp_path}/a/x.rspbench.yaml: ok, 2 case(s)" in out
    assert f"{tmp_path}/b/c/x.rspbench.yaml: ok, 2 case(s)" in out
    assert "hidden" not in out and "node_modules" not in out  # pytest skips them too
    assert "notes.yaml" not in out


def test_a_folder_without_specs_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path}: no *.rspbench.yaml or engine.yaml under this folder." in err
    assert "HINT:" in err and "Errno" not in err


def test_one_bad_spec_in_a_folder_fails_the_run_but_not_the_others(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (spec.parent / "bad.rspbench.yaml").write_text("rspbench: 1\nname: bad\n")
    assert main(["validate", str(spec.parent)]) == 1
    captured = capsys.readouterr()
    assert "bad.rspbench.yaml" in captured.err
    assert f"{spec}: ok, 2 case(s)" in captured.out


def test_an_engine_profile_is_validated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = engine_profile(tmp_path)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: ok, engine mine\n")
    assert "t0 registration" in out and "adapter: python engine.py" in out


def test_an_invalid_engine_profile_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = engine_profile(tmp_path, t0="sometimes")
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:7: $.semantics.t0: 'sometimes' is not allowed here." in err
    assert "HINT:" in err


def test_a_profile_is_recognised_by_its_keys_whatever_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = engine_profile(tmp_path).rename(tmp_path / "my-engine.yml")
    assert main(["validate", str(path)]) == 0
    assert f"{path}: ok, engine mine" in capsys.readouterr().out


def test_the_engines_a_spec_names_are_loaded_and_checked(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec.write_text(spec_text(engines="[engine.yaml]"))
    profile = engine_profile(spec.parent, t0="sometimes")
    assert main(["validate", str(spec)]) == 1
    err = capsys.readouterr().err
    line = spec.read_text().splitlines().index("engines: [engine.yaml]") + 1
    assert f"{spec}:{line}: $.engines[0]: engine 'engine.yaml' has an invalid profile" in err
    assert f"{profile}:7: $.semantics.t0" in err

    engine_profile(spec.parent)
    assert main(["validate", str(spec)]) == 0
    out = capsys.readouterr().out
    assert f"  engine mine: {profile}" in out
    # The profile's name is the engine's identity, as in pytest's item ids.
    assert "  tiny[range=1000,temp=80.0,engine=mine]" in out


def test_a_registered_engine_is_listed_with_its_profile(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(spec)]) == 0
    assert "  engine reference: " in capsys.readouterr().out


def test_a_missing_engine_is_an_error_at_the_spec_line(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = spec_text(engines="[nowhere/engine.yaml]")
    spec.write_text(text)
    line = text.splitlines().index("engines: [nowhere/engine.yaml]") + 1
    assert main(["validate", str(spec)]) == 1
    err = capsys.readouterr().err
    assert f"{spec}:{line}: $.engines[0]: engine profile 'nowhere/engine.yaml' not found" in err


def test_a_known_failure_without_departures_is_a_warning(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It still loads (and the spec is valid), but it would hide a new bug."""
    spec.write_text(
        spec.read_text()
        + "known_failures:\n"
        + "  - engine: rspjs\n    reason: the last window\n"
        + "  - engine: rspjs\n    reason: the last window\n    departures: [missing-final-window]\n"
    )
    assert main(["validate", str(spec)]) == 0
    captured = capsys.readouterr()
    assert f"{spec}: ok" in captured.out
    assert captured.err.count("warning:") == 1
    assert "known_failures[0] (rspjs) names no departures" in captured.err
    assert "HINT: add 'departures: [...]'" in captured.err
