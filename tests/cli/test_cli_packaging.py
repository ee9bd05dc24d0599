"""What ``pip install`` gets: every package and data file of the tree.

``.ci/build-check`` builds the wheel and checks its contents for real (minutes);
this is the quick static half: pyproject's package list against the folders.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[2]


def _setuptools() -> Any:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)["tool"]["setuptools"]


def test_every_package_folder_is_in_the_package_list() -> None:
    """A subpackage missing from [tool.setuptools] packages is missing from the wheel."""
    config = _setuptools()
    folders = {folder: name for name, folder in config["package-dir"].items()}
    found = set()
    for folder, name in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            if "node_modules" in init.parts:
                continue
            inside = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *inside)))
    assert sorted(found - set(config["packages"])) == []


def test_the_build_check_script_is_executable_bash() -> None:
    script = ROOT / ".ci" / "build-check"
    assert script.stat().st_mode & stat.S_IXUSR
    subprocess.run(["bash", "-n", str(script)], check=True)
    text = script.read_text()
    for step in ('python" -m build', 'twine" check --strict', "--rspbench-suite"):
        assert step in text, step
