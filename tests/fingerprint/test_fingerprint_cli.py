"""``rspbench fingerprint``: clear errors for bad input, and what it writes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from pytest_rspbench.cli import main
from pytest_rspbench.engine.profiles import _semantics_kwargs
from pytest_rspbench.fingerprint import report
from pytest_rspbench.fingerprint.inference import Conclusion, Fingerprint
from pytest_rspbench.rsp.semantics import Semantics


def test_an_unknown_engine_is_named_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fingerprint", "-e", "no-such-engine"]) == 1
    err = capsys.readouterr().err
    assert "unknown engine 'no-such-engine' (registered: " in err and "reference" in err
    assert "HINT:" in err and "Traceback" not in err


def test_a_missing_profile_path_is_relative_to_the_current_folder(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["fingerprint", "-e", "nowhere/engine.yaml"]) == 1
    err = capsys.readouterr().err
    assert "engine profile 'nowhere/engine.yaml' not found" in err
    assert "relative to the current folder" in err


def test_an_output_that_is_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "out"
    taken.write_text("")
    assert main(["fingerprint", "-e", "reference", "-o", str(taken)]) == 1
    assert "it is a file, not a folder" in capsys.readouterr().err


def test_the_engine_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["fingerprint"])
    assert exited.value.code == 2
    assert "-e/--engine" in capsys.readouterr().err


def wrong_bounds() -> Fingerprint:
    declared = Semantics(bounds="[o,c)", t0="registration", reports_window=True)
    bounds = Conclusion(
        "bounds", "(o,c]", "[o,c)", True, {"bounds": "(o,c]"}, ("(o,c]",), (), "window-bounds"
    )
    t0 = Conclusion("t0", "registration", "registration", True, {"t0": "registration"})
    inferred = replace(declared, bounds="(o,c]")
    return Fingerprint("faulty-wrong-bounds", declared, inferred, (t0, bounds), {})


def test_the_profile_fragment_is_a_valid_semantics_section() -> None:
    text = report.profile_yaml(wrong_bounds())
    semantics = Semantics(**_semantics_kwargs(yaml.safe_load(text)["semantics"]))
    assert semantics == wrong_bounds().inferred
    assert '  bounds: "(o,c]"  # declared [o,c)' in text


def test_the_table_marks_a_value_other_than_the_declared_one() -> None:
    lines = report.table(wrong_bounds()).splitlines()
    assert lines[0].split() == ["dimension", "inferred", "declared", "probes"]
    assert lines[3].split()[:4] == ["bounds", "≠", "(o,c]", "[o,c)"]


def test_a_differing_value_is_an_undeclared_departure() -> None:
    (found,) = report.departures(wrong_bounds())
    assert (found["class"], found["kind"], found["dimensions"]) == (
        "window-bounds",
        "undeclared",
        ["bounds"],
    )


# End to end: the command on the engines whose count or session windows differ
# from the reference engine's, each in one table row (docs/fingerprint.md).
DIFFERS = {
    "reference": (None, None, None),
    "faulty-count-triples": ("count unit ROWS", "triples", "count-unit"),
    "faulty-session-merge": ("session_gap", "merge", "session-gap"),
}


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.usefixtures("spark")
@pytest.mark.parametrize("engine", sorted(DIFFERS))
def test_the_command_names_the_window_dimension_that_differs(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fingerprint", "-e", engine, "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = {line.split("  ")[0]: line.split("  ")[0:1] + line.split() for line in out.splitlines()}
    dimension, value, departure = DIFFERS[engine]
    differing = [line.split("  ")[0] for line in out.splitlines() if " ≠ " in line]
    assert differing == ([] if dimension is None else [dimension])
    if dimension is not None:
        words = rows[dimension][1 + len(dimension.split()) :]
        assert words[:2] == ["≠", value]
        assert f"departure {departure} (" in out
    for name in ("windows", "count_order", "count_ties", "count_tick", "session_bounds"):
        assert "supported" not in rows[name] and "(closest)" not in rows[name]
    fragment = yaml.safe_load((tmp_path / "profile.yaml").read_text())["semantics"]
    assert fragment["windows"] == ["time", "rows", "triples", "session"]
    assert fragment["session_gap"] == ("merge" if engine == "faulty-session-merge" else "split")
    assert fragment["count_tick"] == "tuple-driven" and fragment["count_bounds"] == "[first,last]"
    summary = json.loads((tmp_path / "departures.json").read_text())
    assert summary["inferred"]["count_order"] == "time"
    assert [d["class"] for d in summary["departures"]] == ([] if departure is None else [departure])
