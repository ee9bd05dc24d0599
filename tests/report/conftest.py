"""Fixtures for the report tests: a results document, Chromium, a tiny project."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml  # noqa: F401  (see below)

from helpers.project import STREAM, profile_yaml

# Import PyYAML in this process before any in-process pytester run: pytester
# drops modules first imported inside a run, and PyYAML's C extension cannot
# be imported twice (the second copy resolves no tags: spec loading breaks).

HERE = Path(__file__).parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


@pytest.fixture(scope="session")
def fixture_doc() -> dict[str, Any]:
    """A hand-made results document: pass, fail (60 windows, gracious), skip,
    max-rate run, mismatch item, sweep item; with HTML-special text."""
    return json.loads((HERE / "data" / "results.json").read_text())


@pytest.fixture
def doc(fixture_doc: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(fixture_doc)


@pytest.fixture
def chromium(tmp_path: Path) -> Any:
    """Run headless Chromium on a page: ``(dom, console lines)``."""
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} is missing: the browser checks need Debian's chromium package "
            "(apt-get install -y chromium); tests do not install it"
        )

    def run(page: Path, *extra: str) -> tuple[str, list[str]]:
        profile = tmp_path / "chromium-profile"
        shutil.rmtree(profile, ignore_errors=True)
        done = subprocess.run(
            [
                str(CHROMIUM),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=10000",
                *extra,
                "--dump-dom",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=180,
        )
        console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
        return done.stdout, console

    return run


@pytest.fixture
def screenshot(chromium: Any, tmp_path: Path) -> Any:
    """Take a PNG of the top of a page, ``width`` x ``height`` CSS pixels:
    ``screenshot(url, out_png, width=1400, height=2000)``. A ``url`` may carry
    a query (pytest-html reads its filters from it)."""

    def take(url: str, out: Path, width: int = 1400, height: int = 2000) -> Path:
        profile = tmp_path / "chromium-screenshot-profile"
        shutil.rmtree(profile, ignore_errors=True)
        out.unlink(missing_ok=True)
        subprocess.run(
            [
                str(CHROMIUM),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--hide-scrollbars",
                "--virtual-time-budget=10000",
                f"--window-size={width},{height}",
                f"--screenshot={out}",
                url,
            ],
            capture_output=True,
            timeout=180,
            check=False,
        )
        assert out.exists(), f"chromium wrote no screenshot of {url}"
        return out

    return take


# -- a tiny project for end-to-end runs ------------------------------------------

SPEC = """\
rspbench: 1
name: tiny
streams:
  - iri: http://example.org/s
    source:
      kind: lines
      path: stream.nt
      format: ntriples-ts
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?obs ?v
  FROM NAMED WINDOW :w ON STREAM :s [RANGE 4000 STEP ${step}]
  WHERE { WINDOW :w { ?obs :value ?v . FILTER(?v > 80) } }
matrix:
  step: [2000, 4000]
engines: [switch.yaml]
comparison:
  mode: graded
"""
SWITCH = '''
import os

from rspbench_engines.reference.engine import ReferenceEngine
from pytest_rspbench.engine.api import Result


class Switch(ReferenceEngine):
    """The reference engine; loses a binding per result when RSPBENCH_TEST_DROP=1."""

    name = "switch"

    def open(self, registration, emit):
        if os.environ.get("RSPBENCH_TEST_DROP") == "1":
            inner = emit
            def emit(result):
                inner(Result(result.bindings[1:], result.time, result.window))
        super().open(registration, emit)
'''
ENGINE = profile_yaml(
    "switch",
    "python: switch_engine:Switch",
    description="the reference engine <with a switch> & a test hook",
)


@pytest.fixture
def tiny(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester folder with a two-case spec and the ``switch`` engine."""
    pytester.syspathinsert()
    pytester.makefile(".nt", stream=STREAM)
    pytester.makepyfile(switch_engine=SWITCH)
    pytester.makefile(".yaml", switch=ENGINE)
    (pytester.path / "tiny.rspbench.yaml").write_text(SPEC)  # keeps the last newline
    return pytester
