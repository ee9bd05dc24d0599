"""Builders shared by the transport tests: a tiny replay, engine profiles on the fly."""

from __future__ import annotations

from pathlib import Path

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Engine, Registration, Semantics
from pytest_rspbench.engine.profiles import load_profile
from pytest_rspbench.rsp.outputs import ActualOutput
from pytest_rspbench.stream.model import Event, Stream

S = "http://example.org/s"
QUERY = """PREFIX : <http://example.org/>
REGISTER RStream :out AS SELECT ?s ?o
FROM NAMED WINDOW :w ON STREAM :s [RANGE 2000 STEP 2000]
WHERE { WINDOW :w { ?s :p ?o } }"""
SEMANTICS = """semantics:
  bounds: "[o,c)"
  t0: registration
  report: [window-close, non-empty-content]
  tick: time-driven
  r2s: [RStream]
"""


def events(count: int = 10) -> list[Event]:
    """One triple a second: ``<e{n}> :p "n"``."""
    return [
        Event(n * 1000, ((f"<http://example.org/e{n}>", "<http://example.org/p>", f'"{n}"'),))
        for n in range(count)
    ]


def profile_file(tmp_path: Path, adapter: str, name: str = "svc") -> Path:
    """An engine.yaml with ``adapter`` (YAML text under ``adapter:``) in ``tmp_path``."""
    path = tmp_path / name / "engine.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"name: {name}\nadapter:\n{adapter}\n{SEMANTICS}", encoding="utf-8")
    return path


def engine(path: Path, artifacts: Path | None = None) -> Engine:
    load_profile.cache_clear()
    return load_profile(path).create(artifacts)


def replay(
    engine: Engine,
    count: int = 10,
    timeout: float = 30.0,
    speed: float = 0.0,
    semantics: Semantics | None = None,
) -> ActualOutput:
    """The tiny stream replayed into ``engine``; what it recorded."""
    stream = Stream(S, lambda: iter(events(count)), "tiny")
    registration = Registration(QUERY, (S,), 0, semantics or Semantics())
    return harness.run(
        engine, registration, [stream], count * 1000, speed, timeout, sample_interval=None
    )
