"""The layers of docs/architecture.md hold, and breaking one is caught.

``lint-imports`` (import-linter) checks the contracts in pyproject.toml; here
it runs once on the package as it is and once on a copy where the ground
floor imports the pytest layer, which must break the layers contract.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_rspbench"


def lint_imports(where: Path) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-c",
        "from importlinter.cli import lint_imports_command; lint_imports_command()",
        str(ROOT / "pyproject.toml"),
    ]
    env = {**os.environ, "PYTHONPATH": str(where)}
    return subprocess.run(command, cwd=where, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    pytest.importorskip("importlinter")
    shutil.copytree(
        PACKAGE, tmp_path / "pytest_rspbench", ignore=shutil.ignore_patterns("data", "__pycache__")
    )
    return tmp_path


def contracts() -> int:
    """How many contracts pyproject.toml declares."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return len(config["tool"]["importlinter"]["contracts"])


def add_import(copy: Path, module: str, line: str) -> None:
    path = copy / "pytest_rspbench" / module
    path.write_text(path.read_text() + f"\n{line}  # noqa\n")


def test_the_package_keeps_its_contracts(copy: Path) -> None:
    result = lint_imports(copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {contracts()} kept, 0 broken." in result.stdout


def test_a_room_of_the_oracle_importing_one_above_it_breaks_the_rooms_contract(
    copy: Path,
) -> None:
    add_import(copy, "oracle/sparql/literals.py", "from pytest_rspbench.oracle.t0 import planning")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "The oracle's rooms" in result.stdout and "BROKEN" in result.stdout
    assert "pytest_rspbench.oracle.sparql.literals -> pytest_rspbench.oracle.t0" in result.stdout


def test_spark_imported_outside_the_oracle_breaks_the_spark_contract(copy: Path) -> None:
    add_import(copy, "verdict/strict.py", "import pyspark")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "pytest_rspbench.verdict is not allowed to import pyspark" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "forbidden"),
    [
        ("verdict/alignment.py", "from pytest_rspbench.oracle import borders", "oracle"),
        ("verdict/strict.py", "from pytest_rspbench.engine import harness", "engine"),
    ],
)
def test_the_verdict_importing_either_implementation_breaks_its_contract(
    copy: Path, module: str, line: str, forbidden: str
) -> None:
    # The layers allow it (the verdict is above both); this contract does not.
    add_import(copy, module, line)
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "The verdict is free of both implementations" in result.stdout
    assert f"pytest_rspbench.verdict is not allowed to import pytest_rspbench.{forbidden}" in (
        result.stdout
    )
    assert "Contracts: " in result.stdout and " kept, 1 broken." in result.stdout


def test_py4j_imported_outside_the_runtime_room_breaks_its_contract(copy: Path) -> None:
    add_import(copy, "oracle/t0/planning.py", "import py4j")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "pytest_rspbench.oracle.t0 is not allowed to import py4j" in result.stdout


def test_a_lower_layer_importing_a_higher_one_breaks_the_contract(copy: Path) -> None:
    windows = copy / "pytest_rspbench" / "rsp" / "windows.py"
    windows.write_text(windows.read_text() + "\nfrom pytest_rspbench import plugin  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "pytest_rspbench.rsp is not allowed to import pytest_rspbench.plugin" in result.stdout
    assert "pytest_rspbench.rsp.windows -> pytest_rspbench.plugin" in result.stdout


def test_a_new_cycle_breaks_the_acyclic_contract(copy: Path) -> None:
    record = copy / "pytest_rspbench" / "report" / "results.py"
    record.write_text(record.read_text() + "\nfrom pytest_rspbench.report import record  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "No import cycles" in result.stdout and "BROKEN" in result.stdout
