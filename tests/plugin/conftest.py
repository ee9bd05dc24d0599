"""Fixtures that write small specs and engines into a pytester folder."""

from __future__ import annotations

import textwrap

import pytest

EX = "http://example.org/"
VALUE = "http://example.org/value"

# A tiny stream: one reading per 1000 ms; values alternate around 80.
STREAM_LINES = "\n".join(
    f'<{EX}obs{t}> <{VALUE}> "{v}"^^<http://www.w3.org/2001/XMLSchema#double> "{t * 1000}" .'
    for t, v in enumerate([70, 85, 90, 60, 95, 81, 79, 99, 100, 50, 88, 83])
)

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
  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${range} STEP ${step}]
  WHERE { WINDOW :w { ?obs :value ?v . FILTER(?v > 80) } }
matrix:
  range: [4000]
  step: [2000, 4000]
engines: [ENGINES]
"""

FAULTY_ENGINE = '''
from rspbench_engines.reference.engine import ReferenceEngine
from pytest_rspbench.engine.api import Result


class DropsOne(ReferenceEngine):
    """Loses the first binding of every relation."""

    name = "drops-one"

    def open(self, registration, emit):
        def lossy(result):
            emit(Result(result.bindings[1:], result.time, result.window))
        super().open(registration, lossy)


class Crashes(ReferenceEngine):
    name = "crashes"

    def push(self, stream, event):
        if event.time >= 3000:
            raise RuntimeError("segfault simulated at t=3000")
        super().push(stream, event)
'''


def engine_yaml(name: str, adapter: str) -> str:
    return textwrap.dedent(f"""\
        name: {name}
        adapter:
          python: {adapter}
        semantics:
          bounds: "[o,c)"
          t0: registration
          report: [window-close, non-empty-content]
          tick: time-driven
          r2s: [RStream]
          empty_relations: false
          reports_window: true
        """)


@pytest.fixture
def project(pytester: pytest.Pytester):  # type: ignore[no-untyped-def]
    """A pytester folder with the tiny stream, faulty engines and a spec writer."""
    pytester.syspathinsert()
    pytester.makefile(".nt", stream=STREAM_LINES)
    pytester.makepyfile(faulty_engines=FAULTY_ENGINE)
    pytester.makefile(".yaml", **{"drops-one": engine_yaml("drops-one", "faulty_engines:DropsOne")})
    pytester.makefile(".yaml", crashes=engine_yaml("crashes", "faulty_engines:Crashes"))

    def write(engines: str = "reference", extra: str = "", name: str = "tiny") -> None:
        text = SPEC.replace("ENGINES", engines).replace("name: tiny", f"name: {name}") + extra
        pytester.makefile(".rspbench.yaml", **{name: text})

    return write
