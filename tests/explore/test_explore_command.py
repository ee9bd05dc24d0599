"""``rspbench explore``: clear errors, and the whole command against a faulty engine.

The slow test runs the command for 45 s against ``faulty-misses-last``
(never reports the windows that close when the input ends): it must find
the bug, name its departure (``missing-final-window``, or ``no-output`` for
a case whose every window the end closes), and write a spec that fails on
that engine and passes on ``reference`` when pytest runs it. A second run replays the
failure database first; a third, against a profile of the same name whose
engine is fixed (the reference engine's class), confirms the bug fixed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_rspbench.cli import main
from pytest_rspbench.explore import database

pytest_plugins = ["pytester"]


def test_an_unknown_engine_is_named_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "-e", "no-such-engine"]) == 1
    err = capsys.readouterr().err
    assert "unknown engine 'no-such-engine' (registered: " in err and "HINT:" in err


def test_an_output_that_is_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "out"
    taken.write_text("")
    assert main(["explore", "-e", "reference", "-o", str(taken)]) == 1
    assert "it is a file, not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("budget", ["0", "-5", "soon"])
def test_a_budget_is_a_positive_number_of_seconds(
    budget: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["explore", "-e", "reference", "--budget", budget])
    assert exited.value.code == 2
    assert "--budget" in capsys.readouterr().err


def test_help_gives_every_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["explore", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for default in ("(default: 300)", "(default: a random one, printed)", "(default: term)"):
        assert default in out
    assert "explore-<engine name>" in out


SHOWS = {"missing-final-window": "missing final window", "no-output": "no output"}
FIXED_ENGINE = """\
name: faulty-misses-last
description: faulty-misses-last, fixed (the reference engine's class under its name).
adapter:
  python: rspbench_engines.reference.engine:ReferenceEngine
semantics:
  bounds: "[o,c)"
  t0: registration
  report: [window-close, non-empty-content]
  tick: time-driven
  r2s: [RStream, IStream, DStream]
  reports_window: true
configurable: true
"""


def run_spec(pytester: pytest.Pytester, spec: Path, engine: str) -> Any:
    return pytester.runpytest(str(spec), "--rspbench-engine", engine, "-p", "no:randomly")


@pytest.mark.spark
@pytest.mark.slow
def test_explore_finds_a_faulty_engines_bug_and_writes_a_spec_that_shows_it(
    spark: Any, tmp_path: Path, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "found"
    argv = ["explore", "-e", "faulty-misses-last", "--seed", "3", "-o", str(out)]
    # A case limit, not a budget, ends it: the run is the same on a busy machine.
    assert main([*argv, "--cases", "5", "--budget", "900"]) == 1
    printed = capsys.readouterr()
    assert printed.out.splitlines()[-1].endswith(" s") and " failure" in printed.out
    record = json.loads((out / "explore.json").read_text())
    # Its bug, as the verdict names it: no output at all when every window of
    # the case is one the end of the input closes, else a missing final window.
    found = [g for g in record["groups"] if g["departure"] in SHOWS]
    assert found, record["groups"]
    group = found[0]
    assert group["spec"] and not group["suspect"] and group["reproduced"]
    spec = out / group["spec"]
    assert spec.is_file() and not spec.is_relative_to(out / "suspects")
    failing = run_spec(pytester, spec, "faulty-misses-last")
    failing.assert_outcomes(failed=1)
    failing.stdout.fnmatch_lines([f"*strict: FAIL*{SHOWS[group['departure']]}*"])
    run_spec(pytester, spec, "reference").assert_outcomes(passed=1)

    # Next run: the database first; the bug is still there.
    assert main([*argv, "--budget", "1"]) == 1
    entries = database.load(out)
    mine = [e for e in entries if e.spec == group["spec"]]
    assert mine and mine[0].status == "failing"
    assert f"replayed {group['spec']}: failing" in capsys.readouterr().err

    # The engine fixed (the same profile name, the reference engine's class): confirmed fixed.
    fixed = tmp_path / "fixed" / "engine.yaml"
    fixed.parent.mkdir()
    fixed.write_text(FIXED_ENGINE)
    fixed_argv = ["explore", "-e", str(fixed), "--seed", "3", "-o", str(out), "--budget", "1"]
    main(fixed_argv)
    mine = [e for e in database.load(out) if e.spec == group["spec"]]
    assert mine[0].status == "fixed"
    assert f"replayed {group['spec']}: fixed" in capsys.readouterr().err


@pytest.mark.spark
@pytest.mark.slow
def test_cases_run_at_once_find_and_write_what_one_at_a_time_does(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs-{jobs}"
        argv = ["explore", "-e", "faulty-misses-last", "--seed", "3", "-o", str(out)]
        main([*argv, "--cases", "3", "--budget", "900", "--jobs", jobs])
        record = json.loads((out / "explore.json").read_text())
        assert record["cases"] == 3
        groups = [(g["departure"], g["cases"], g["spec"]) for g in record["groups"]]
        specs = {
            g["spec"]: (out / g["spec"]).read_text().replace(str(out), "OUT")
            for g in record["groups"]
            if g["spec"]
        }
        written[jobs] = (groups, specs)
    capsys.readouterr()
    assert written["1"][0], "seed 3 fails on its third case"
    assert written["1"] == written["2"]
