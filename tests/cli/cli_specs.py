"""Small specs and engine profiles for the command-line tests."""

from __future__ import annotations

from pathlib import Path

INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"
# A reading every 50 ms for 3 s, its value t // 30: above 90 from t = 2750.
STREAM = "".join(
    f'<http://example.org/obs{t}> <http://example.org/value> "{t // 30}"^^{INTEGER} "{t}" .\n'
    for t in range(0, 3000, 50)
)


def spec_text(name: str = "tiny", engines: str = "[reference]") -> str:
    """A spec over ``tiny.nt`` beside it, with a two-value float matrix."""
    return f"""\
rspbench: 1
name: {name}
streams:
  - iri: http://example.org/s
    end: 3000
    source: {{kind: lines, path: tiny.nt, format: ntriples-ts}}
query: |
  PREFIX : <http://example.org/>
  REGISTER RStream :out AS
  SELECT ?obs ?v
  FROM NAMED WINDOW :w ON STREAM :s [RANGE ${{range}} STEP 1000]
  WHERE {{ WINDOW :w {{ ?obs :value ?v . FILTER(?v > ${{temp}}) }} }}
matrix:
  range: [1000]
  temp: [80.0, 90.0]
engines: {engines}
"""


ENGINE = """\
name: mine
description: An engine of a test.
adapter:
  command: ["python", "engine.py"]
semantics:
  bounds: "[o,c)"
  t0: {t0}
  report: [window-close]
  tick: time-driven
  r2s: [RStream]
  empty_relations: false
"""


def engine_profile(folder: Path, t0: str = "registration") -> Path:
    """An engine.yaml in ``folder``; ``t0`` can make it invalid."""
    path = folder / "engine.yaml"
    path.write_text(ENGINE.format(t0=t0))
    return path
