"""Fixtures for the engine-adapter tests (helpers live in engine_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import SPEC, tiny_events


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    return tmp_path / "artifacts"


@pytest.fixture
def spec_project(pytester: pytest.Pytester):
    """A pytester folder with the tiny stream; returns a spec writer."""
    lines = "\n".join(f'{s} {p} {o} "{e.time}" .' for e in tiny_events() for s, p, o in e.triples)
    pytester.makefile(".nt", stream=lines)

    def write(engines: str, extra: str = "", name: str = "tiny", steps: str = "[2000]") -> None:
        text = SPEC.replace("ENGINES", engines).replace("name: tiny", f"name: {name}")
        text = text.replace("STEPS", steps)
        pytester.makefile(".rspbench.yaml", **{name: text + extra})

    return write
