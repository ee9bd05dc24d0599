"""Fixtures of the command-line tests: a small spec in the test's folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_specs import STREAM, spec_text


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    """A valid spec file with its stream, in the test's folder."""
    (tmp_path / "tiny.nt").write_text(STREAM)
    path = tmp_path / "tiny.rspbench.yaml"
    path.write_text(spec_text())
    return path
