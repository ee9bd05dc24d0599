"""Fixtures that write small specs and engines into a pytester folder."""

from __future__ import annotations

import pytest

from helpers.project import STREAM, engine_yaml

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


@pytest.fixture
def project(pytester: pytest.Pytester):
    """A pytester folder with the tiny stream, faulty engines and a spec writer."""
    pytester.syspathinsert()
    pytester.makefile(".nt", stream=STREAM)
    pytester.makepyfile(faulty_engines=FAULTY_ENGINE)
    pytester.makefile(".yaml", **{"drops-one": engine_yaml("drops-one", "faulty_engines:DropsOne")})
    pytester.makefile(".yaml", crashes=engine_yaml("crashes", "faulty_engines:Crashes"))

    def write(engines: str = "reference", extra: str = "", name: str = "tiny") -> None:
        text = SPEC.replace("ENGINES", engines).replace("name: tiny", f"name: {name}") + extra
        pytester.makefile(".rspbench.yaml", **{name: text})

    return write
