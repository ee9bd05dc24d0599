"""``rspbench init``: the files it writes, never over existing ones, and a CI command that passes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pytest_rspbench.cli import main
from pytest_rspbench.cli.init import ADAPTERS
from pytest_rspbench.engine.profiles import load_profile

FILES = {
    "engine.yaml",
    "pytest.ini",
    "specs/example.rspbench.yaml",
    "specs/example.nt",
    ".github/workflows/rspbench.yml",
    ".gitlab-ci.yml",
}


@pytest.mark.parametrize("adapter", [a for a in ADAPTERS if a != "reference"])
def test_init_writes_a_valid_profile_spec_and_ci_for_each_adapter(tmp_path, adapter, capsys):
    folder = tmp_path / "my-engine"
    assert main(["init", str(folder), "--adapter", adapter]) == 0
    written = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert FILES <= written
    assert ("engine.js" if adapter == "node" else "engine.py") in written
    load_profile.cache_clear()
    profile = load_profile(folder / "engine.yaml")
    assert profile.name == "my-engine"
    text = (folder / "engine.yaml").read_text()
    for key in ("bounds", "t0", "report", "tick", "r2s", "empty_relations", "reports_window"):
        assert re.search(rf"# .*\n  {key}:", text), key  # each key has its comment
    assert main(["validate", str(folder / "specs")]) == 0
    workflow = yaml.safe_load((folder / ".github/workflows/rspbench.yml").read_text())
    steps = workflow["jobs"]["conformance"]["steps"]
    assert any(s.get("uses", "").startswith("actions/upload-artifact") for s in steps)
    gitlab = yaml.safe_load((folder / ".gitlab-ci.yml").read_text())
    assert gitlab["rspbench"]["artifacts"]["paths"] == [
        "rspbench-report.html",
        "rspbench-results.json",
    ]
    assert "rspbench_suite = conformance" in (folder / "pytest.ini").read_text()


def test_init_with_the_reference_engine_writes_its_profile_under_the_repository_name(
    tmp_path, capsys
):
    folder = tmp_path / "my-engine"
    assert main(["init", str(folder), "--adapter", "reference"]) == 0
    written = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert written == FILES  # no skeleton: the engine is the bundled one
    load_profile.cache_clear()
    profile = load_profile(folder / "engine.yaml")
    assert profile.name == "my-engine" and profile.configurable
    assert "replace `adapter:` with your engine's" in (folder / "engine.yaml").read_text()
    assert main(["validate", str(folder / "specs")]) == 0


def test_init_never_overwrites_without_force(tmp_path, capsys):
    (tmp_path / "engine.yaml").write_text("mine\n")
    assert main(["init", str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert f"error: {tmp_path}: would overwrite engine.yaml" in error
    assert "HINT: move them away, or pass --force" in error
    assert (tmp_path / "engine.yaml").read_text() == "mine\n"
    assert not (tmp_path / "pytest.ini").exists()
    assert main(["init", str(tmp_path), "--force"]) == 0
    assert (tmp_path / "engine.yaml").read_text() != "mine\n"


def test_init_help_documents_it(capsys):
    with pytest.raises(SystemExit):
        main(["init", "--help"])
    out = capsys.readouterr().out
    for word in ("--adapter", "python,node,http,websocket,mqtt", "--force", "--suite"):
        assert word in out


@pytest.mark.spark
@pytest.mark.slow
def test_the_generated_ci_command_passes_against_the_skeleton_engine(tmp_path):
    """The Python skeleton is a small correct engine for the example spec."""
    assert main(["init", str(tmp_path), "--suite", "none"]) == 0
    done = run_generated_ci(tmp_path, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
    assert (tmp_path / "rspbench-report.html").is_file()
    assert (tmp_path / "rspbench-results.json").is_file()


@pytest.mark.spark
@pytest.mark.slow
def test_the_generated_ci_command_passes_against_the_reference_engine_it_configures(tmp_path):
    """--adapter reference: the engine.yaml runs the bundled reference engine, and
    the generated CI command (specs/ and a part of the conformance suite) passes."""
    assert (
        main(["init", str(tmp_path), "--adapter", "reference", "--suite", "conformance/rspql"]) == 0
    )
    profile = yaml.safe_load((tmp_path / "engine.yaml").read_text())
    assert profile["adapter"] == {"python": "rspbench_engines.reference.engine:ReferenceEngine"}
    assert profile["name"] != "reference"  # the repository's own name
    assert not (tmp_path / "engine.py").exists()
    done = run_generated_ci(tmp_path, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
    results = json.loads((tmp_path / "rspbench-results.json").read_text())
    names = {item["spec"] for item in results["items"]}
    assert any("rspql" in name for name in names) and len(names) > 2, names


def run_generated_ci(folder: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """The test command of the GitHub workflow ``rspbench init`` wrote, run in ``folder``."""
    workflow = yaml.safe_load((folder / ".github/workflows/rspbench.yml").read_text())
    command = next(
        s["run"] for s in workflow["jobs"]["conformance"]["steps"] if "specs" in s.get("name", "")
    )
    program, *args = command.split()
    venv = Path(sys.executable).parent
    return subprocess.run(
        [str(venv / program), *args, "-p", "no:cacheprovider"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
