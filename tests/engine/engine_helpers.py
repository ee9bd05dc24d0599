"""Helpers for the engine-adapter tests: a tiny stream, its spec, fake engines."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import psutil

from pytest_rspbench.engine import harness
from pytest_rspbench.engine.api import Emit, Engine, Registration, Semantics
from pytest_rspbench.engine.process import ProcessConfig, ProcessEngine
from pytest_rspbench.stream.model import Event, Stream

EX = "http://example.org/"
XSD_DOUBLE = "http://www.w3.org/2001/XMLSchema#double"
FAKE_ENGINE = Path(__file__).with_name("fake_engine.py")
VALUES = [70, 85, 90, 60, 95, 81, 79, 99, 100, 50, 88, 83]  # one per second
QUERY = f"""PREFIX : <{EX}>
REGISTER RStream :out AS SELECT ?obs ?v
FROM NAMED WINDOW :w ON STREAM :s [RANGE 4000 STEP 2000]
WHERE {{ WINDOW :w {{ ?obs :value ?v . FILTER(?v > 80) }} }}"""
SEMANTICS = Semantics(
    bounds="[o,c)",
    t0="registration",
    report=("window-close", "non-empty-content"),
    reports_window=True,
)
END = 12000


def tiny_events() -> list[Event]:
    return [
        Event(t * 1000, ((f"<{EX}obs{t}>", f"<{EX}value>", f'"{v}"^^<{XSD_DOUBLE}>'),))
        for t, v in enumerate(VALUES)
    ]


def tiny_stream() -> Stream:
    return Stream(EX + "s", lambda: iter(tiny_events()), "tiny test stream")


def registration() -> Registration:
    return Registration(QUERY, (EX + "s",), 0, SEMANTICS)


def fake_config(*faults: str, handshake_timeout: float = 5.0) -> ProcessConfig:
    """Run tests/engine/fake_engine.py with the given faults."""
    return ProcessConfig(
        (sys.executable, str(FAKE_ENGINE), *faults),
        Path.cwd(),
        handshake_timeout=handshake_timeout,
        shutdown_grace=1.0,
    )


def new_tag() -> str:
    """A word to pass as ``tag=...`` to fake_engine.py: its processes carry it."""
    return f"rspbench-test-{uuid.uuid4().hex[:12]}"


def leftovers(tag: str) -> list[psutil.Process]:
    """Live processes (not zombies) whose command line holds ``tag``."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if any(tag in part for part in process.info["cmdline"] or ()) and (
                process.status() != psutil.STATUS_ZOMBIE
            ):
                found.append(process)
        except psutil.Error:
            continue
    return found


def run_fake(
    *faults: str,
    artifacts: Path | None = None,
    timeout: float = 60.0,
    speed: float = 0.0,
    handshake_timeout: float = 5.0,
    sample_interval: float | None = None,
) -> harness.ActualOutput:
    """Replay the tiny stream into a fake engine process through the harness."""
    engine = ProcessEngine(
        fake_config(*faults, handshake_timeout=handshake_timeout), "fake", artifacts
    )
    if artifacts is not None:
        artifacts.mkdir(parents=True, exist_ok=True)
    return harness.run(
        engine,
        registration(),
        [tiny_stream()],
        END,
        speed=speed,
        timeout=timeout,
        artifacts=artifacts,
        sample_interval=sample_interval,
    )


SPEC = """\
rspbench: 1
name: tiny
streams:
  - iri: http://example.org/s
    end: 12000
    source:
      kind: lines
      path: stream.nt
      format: ntriples-ts
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?obs ?v
  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${range} STEP ${step}]
  WHERE { WINDOW :w { ?obs :value ?v . FILTER(?v > 80) } }
matrix:
  range: [4000]
  step: STEPS
engines: [ENGINES]
"""


class Recording(Engine):
    """Keeps the ``(stream, time)`` of every event it is pushed; answers nothing."""

    def __init__(self) -> None:
        self.pushed: list[tuple[str, int]] = []

    def open(self, registration: Registration, emit: Emit) -> None:
        pass

    def push(self, stream: str, event: Event) -> None:
        self.pushed.append((stream, event.time))

    def end(self, end_time: int) -> None:
        pass


def named_stream(name: str, times: list[int], base: str = "http://example.org/") -> Stream:
    """A stream ``base + name`` with one triple per time, subject ``name<time>``."""
    events = [Event(t, ((f"<{base}{name}{t}>", f"<{base}p>", f"<{base}o>"),)) for t in times]
    return Stream(base + name, lambda: iter(events), f"stream {name}")
